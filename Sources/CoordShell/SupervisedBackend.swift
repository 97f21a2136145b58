import CLineEdit
import CoordRuntime
import CoordSDK
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The shell's session on an app in a worker process it watches (`coordsh --supervised`).
///
/// A plugin that traps takes only the worker with it: the command that was running gets one
/// error line naming the plugin, the line, the signal and Swift's "Fatal error" message; a new
/// worker is started and the session is put back on the page it was on. As Erlang's
/// supervisors and VS Code's extension host do, restarts are bounded: at most
/// `maxCrashes` within `crashWindow` seconds restart by themselves (the first at once, then
/// with a growing pause);
/// past that the app stays stopped, the shell stays up, and `restart` starts it again.
@MainActor
final class SupervisedBackend: ShellBackend {
    static let maxCrashes = 3
    static let crashWindow: Double = 300
    /// Crashes of one plugin that set it aside (see `Quarantine`).
    static let quarantineAfter = 2

    private let launch: () throws -> WorkerProcess
    /// Seconds a command may take in the worker before it is killed as hung.
    private let answerTimeout: Double
    private let secrets: SecretPrompt
    private var worker: WorkerProcess?
    private var remote: RemoteBackend?
    private var crashes: [Date] = []
    /// Crashes so far by the plugin that was running, and where the quarantined are listed.
    private var crashesByPlugin: [String: Int] = [:]
    private let quarantine: Quarantine?
    /// Why the app is stopped, while it is.
    private var stoppedBecause: String?
    /// Said unasked at the next prompt (a crash noticed while idle, start-up warnings).
    private var pending: [Reply.Notice] = []
    private(set) var route: String?
    private(set) var startPage: [String]?
    /// The login to resume in the next worker: the scene's session token after the last
    /// command (see `AccountManaging.resumeSession`).
    private var resumeToken: String?
    /// The messages that waited in the scene's queues after the last command.
    private var queuedCommands: [(line: String, from: String?)] = []
    /// One descriptor that stays the same across workers: an epoll set holding the current
    /// worker's connection, so the prompt keeps watching whichever worker is running.
    let watchSet: Int32

    init(secrets: SecretPrompt, answerTimeout: Double, quarantine: Quarantine?, launch: @escaping () throws -> WorkerProcess) throws {
        self.secrets = secrets
        self.quarantine = quarantine
        self.answerTimeout = answerTimeout
        self.launch = launch
        watchSet = coordsh_watchset_create()
        try start(restoring: nil)
        startPage = remote?.startPage
    }

    deinit { close(watchSet) }

    /// Starts a worker, says hello, and (when `replay`) gives it the session back: the
    /// queued messages sent again, then `route` opened (the page the session was on).
    private func start(restoring route: String?, replay: Bool = true) throws {
        let worker = try launch()
        worker.connection.answerTimeout = answerTimeout
        let remote: RemoteBackend
        do {
            remote = try RemoteBackend(connection: worker.connection, secrets: secrets, resume: resumeToken)
        } catch {
            worker.stop()
            throw error
        }
        self.worker = worker
        self.remote = remote
        _ = coordsh_watchset_add(watchSet, worker.connection.descriptor)
        self.route = remote.route
        // What the new worker said at once (the login resumed, start-up warnings).
        pending += remote.takePushed()
        guard replay else {
            queuedCommands = []
            return
        }
        // The messages that waited: sent again from the page that sent them, they wait again.
        for queued in queuedCommands {
            if let from = queued.from, from != remote.route { _ = remote.run("open \(from)") }
            let again = remote.run(queued.line)
            if remote.connection.closedReason != nil { return try restoreFailed("'\(queued.line)'") }
            if let error = again.error {
                pending.append(.init(text: "'\(queued.line)' no longer waits: \(error.message)", isWarning: true))
            } else {
                pending.append(.init(text: "'\(queued.line)' waits again", isWarning: false))
            }
        }
        queuedCommands = remote.queuedCommands
        if let route, route != remote.route {
            let reopened = remote.run("open \(route)")
            if remote.connection.closedReason != nil { return try restoreFailed("the page \(route)") }
            if let error = reopened.error {
                pending.append(.init(text: "could not go back to \(route): \(error.message)", isWarning: true))
            }
        }
        self.route = remote.route
    }

    /// The new worker died while it was given the session back (a page that traps when it is
    /// shown again): one more worker, on its start page, without what could not be restored.
    private func restoreFailed(_ what: String) throws {
        if let worker {
            let how = worker.reap()
            let fatal = worker.fatalError.map { " — \($0)" } ?? ""
            pending.append(.init(text: "\(what) could not be restored: the app process crashed again (\(how)\(fatal)); starting over from the start page", isWarning: true))
        }
        worker = nil
        remote = nil
        queuedCommands = []
        try start(restoring: nil, replay: false)
    }

    func run(_ line: String) -> Reply {
        guard let remote else { return stopped(line) }
        let reply = remote.run(line)
        if reply.error?.code == "connection" || remote.connection.closedReason != nil {
            return Reply(notices: pending.drain(), error: ShellError(crashed(), code: "crashed", status: .failure))
        }
        route = remote.route
        resumeToken = remote.resumeToken
        queuedCommands = remote.queuedCommands
        return reply
    }

    /// The app is stopped: only `restart` does anything.
    private func stopped(_ line: String) -> Reply {
        guard line.trimmingCharacters(in: .whitespaces) == "restart" else {
            return Reply(error: ShellError("the app is stopped (\(stoppedBecause ?? "it crashed")); 'restart' starts it again", code: "stopped", status: .failure))
        }
        do {
            try start(restoring: route)
        } catch {
            return Reply(error: ShellError("restart: \(error)", code: "stopped", status: .failure))
        }
        crashes.removeAll()
        stoppedBecause = nil
        return Reply(notices: [.init(text: "the app was started again", isWarning: false)] + pending.drain())
    }

    /// The worker died: what it was running, how it died; then a new one, or a stop.
    private func crashed() -> String {
        guard let worker else { return "the app process is gone" }
        let hung = worker.connection.timedOut
        if hung { worker.killNow() }
        let how = worker.reap()
        var message = hung ? "the app process stopped answering" : "the app process crashed"
        let running = worker.running
        if let running {
            message += " running '\(running.line)'" + (running.plugin.isEmpty ? "" : " in plugin \(running.plugin)")
        }
        let cause = hung ? "no answer for \(Int(worker.connection.answerTimeout ?? 0)) s" : how
        message += hung ? ": \(cause), killed" : ": \(cause)"
        let fatal = worker.fatalError
        if let fatal { message += " — \(fatal)" }
        if let plugin = running?.plugin, !plugin.isEmpty {
            crashesByPlugin[plugin, default: 0] += 1
            if crashesByPlugin[plugin, default: 0] >= Self.quarantineAfter, let quarantine {
                let count = crashesByPlugin[plugin, default: 0]
                do {
                    try quarantine.add(plugin, reason: "\(count) crashes, the last running '\(running?.line ?? "")': \(fatal ?? cause)")
                    message += "; plugin \(plugin) quarantined after \(count) crashes ('plugins allow \(plugin)' lets it load again)"
                } catch {
                    message += "; plugin \(plugin) could not be quarantined (\(error))"
                }
            }
        }
        self.worker = nil
        self.remote = nil
        let now = Date()
        crashes = crashes.filter { now.timeIntervalSince($0) < Self.crashWindow } + [now]
        guard crashes.count <= Self.maxCrashes else {
            stoppedBecause = "\(crashes.count) crashes in \(Int(Self.crashWindow / 60)) minutes"
            return message + "; \(stoppedBecause ?? "") — the app is stopped; 'restart' starts it again"
        }
        // The first restart at once (the person is waiting); then 0.2 s, 0.4 s: a plugin that
        // dies at every start does not spin the machine.
        if crashes.count > 1 { usleep(UInt32(100_000 << (crashes.count - 1))) }
        do {
            try start(restoring: route)
        } catch {
            stoppedBecause = "it could not be started again: \(error)"
            return message + "; it could not be started again (\(error)); 'restart' tries again"
        }
        return message + "; restarted" + (route.map { ", back at \($0)" } ?? "")
    }

    func completions(line: String, word: String) -> [String] {
        remote?.completions(line: line, word: word) ?? []
    }

    func isSecret(_ line: String) -> Bool {
        remote?.isSecret(line) ?? false
    }

    var watchDescriptor: Int32? { watchSet }

    func takePushed() -> [Reply.Notice] {
        var notices = pending.drain()
        guard let remote else { return notices }
        // The set's readiness is cleared; the connection itself says what arrived.
        coordsh_watchset_drain(watchSet)
        notices += remote.takePushed().filter { !$0.text.hasPrefix("server: ") }
        if remote.connection.closedReason != nil {
            notices.append(.init(text: crashed(), isWarning: true))
        }
        return notices
    }
}

extension Array where Element == Reply.Notice {
    /// The notices, emptying the list.
    fileprivate mutating func drain() -> [Reply.Notice] {
        defer { removeAll() }
        return self
    }
}
