import CWatchSet
import CoordAccounting
import CoordClient
import CoordProtocol
import CoordRuntime
import CoordSession
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The front's side of supervision, shared by the supervised shell (one scene) and a
/// supervised `coordsh serve` (a scene per client): it starts the worker, builds the scenes in
/// it, and when the worker dies says why, starts another and builds every scene again.
///
/// As Erlang's supervisors and VS Code's extension host do, restarts are bounded: at most
/// `maxCrashes` within `crashWindow` seconds restart by themselves (the first at once, then
/// with a growing pause); past that the app stays stopped, the front stays up, and `restart`
/// starts it again. A plugin that was running in `quarantineAfter` crashes is set aside.
@MainActor
package final class Supervisor {
    static let maxCrashes = 3
    static let crashWindow: Double = 300
    static let quarantineAfter = 2

    private let launch: (WorkerHistory) throws -> WorkerProcess
    /// Seconds a command may take in the worker before it is killed as hung.
    package let answerTimeout: Double
    private let quarantine: Quarantine?
    package private(set) var worker: WorkerProcess?
    private var crashes: [Date] = []
    private var crashesByPlugin: [String: Int] = [:]
    /// New workers started and why, and the crashes each plugin caused, since this front
    /// started: given to each new worker (`plugins stats`) and read by `serve --metrics`.
    package private(set) var history = WorkerHistory()
    /// Why the app is stopped, while it is.
    package private(set) var stoppedBecause: String?
    /// One descriptor that stays the same across workers: an epoll set holding the current
    /// worker's control channel and scene connections, readable when any of them is.
    package let watchSet: Int32

    package init(answerTimeout: Double, quarantine: Quarantine?, launch: @escaping (WorkerHistory) throws -> WorkerProcess) {
        self.answerTimeout = answerTimeout
        self.quarantine = quarantine
        self.launch = launch
        watchSet = coordsh_watchset_create()
    }

    deinit { close(watchSet) }

    /// A worker started ahead (before the front's own start-up work), used by the next start.
    package var prelaunched: WorkerProcess?

    /// A new worker. `probe`: wait until it answers, and learn its plugins and start-up
    /// notes (an upgrade compares them; a server with no client yet has no scene that would
    /// show a worker that cannot start). Without it the first scene built is the proof.
    private func spawn(probe: Bool) throws -> WorkerProcess {
        let candidate = try prelaunched ?? launch(history)
        prelaunched = nil
        guard probe else {
            _ = coordsh_watchset_add(watchSet, candidate.control)
            return candidate
        }
        do {
            try candidate.probe(timeout: answerTimeout)
        } catch {
            let how = end(candidate)
            if let refusal = candidate.startRefusal { throw WorkerProcess.Failure(description: refusal) }
            throw WorkerProcess.Failure(description: "the app process did not start (\(how)\(candidate.fatalError.map { " — \($0)" } ?? ""))")
        }
        _ = coordsh_watchset_add(watchSet, candidate.control)
        return candidate
    }

    /// How `worker` ended, killing it first if it still runs (it stopped answering).
    private func end(_ worker: WorkerProcess) -> String {
        if !worker.hasEnded { worker.killNow() }
        return worker.reap()
    }

    /// Starts a worker and builds every scene in it. A scene whose restore kills the worker (a
    /// page that traps when it is shown again) starts over on the start page, with its login,
    /// in the next worker; the other scenes keep their places.
    package func start(_ scenes: [SceneLink]) throws {
        var attempts = 0
        while true {
            let candidate = try spawn(probe: scenes.isEmpty)
            var built: [SceneLink.Built] = []
            var failed: (scene: SceneLink, what: String)?
            for scene in scenes {
                do {
                    built.append(try scene.build(in: candidate, timeout: answerTimeout))
                } catch {
                    failed = (scene, (error as? SceneLink.RestoreFailure)?.what ?? "the scene")
                    break
                }
            }
            guard let failed else {
                adopt(candidate, scenes: scenes, built: built)
                return
            }
            let how = end(candidate)
            if let refusal = candidate.startRefusal { throw WorkerProcess.Failure(description: refusal) }
            let fatal = candidate.fatalError.map { " — \($0)" } ?? ""
            failed.scene.pending.append(.init(
                text: "\(failed.what) could not be restored: the app process crashed again (\(how)\(fatal)); starting over from the start page",
                isWarning: true))
            failed.scene.forgetPlace()
            attempts += 1
            guard attempts <= scenes.count else {
                throw WorkerProcess.Failure(description: "the app process crashes while the scenes are restored (\(how)\(fatal))")
            }
        }
    }

    private func adopt(_ candidate: WorkerProcess, scenes: [SceneLink], built: [SceneLink.Built]) {
        if let hello = built.first?.remote.hello, candidate.plugins.isEmpty { candidate.learn(plugins: hello.plugins) }
        for (scene, built) in zip(scenes, built) {
            scene.adopt(built)
            if let remote = scene.remote { _ = coordsh_watchset_add(watchSet, remote.connection.descriptor) }
        }
        worker = candidate
    }

    /// A scene that arrives while the app runs (a client attaching), begun in the current
    /// worker without waiting: its hello is sent on a new connection, watched from now on,
    /// whose answer goes to `finishAttach`.
    package func beginAttach(_ scene: SceneLink) throws -> ServerConnection {
        guard let worker else {
            throw WorkerProcess.Failure(description: stoppedLine)
        }
        do {
            let connection = try scene.beginBuild(in: worker)
            _ = coordsh_watchset_add(watchSet, connection.descriptor)
            return connection
        } catch {
            throw WorkerProcess.Failure(description: "the app process failed while the scene was opened")
        }
    }

    /// The worker answered a scene's hello (see `beginAttach`): the scene is in use.
    package func finishAttach(_ scene: SceneLink, on connection: ServerConnection, hello: ServerReply.Hello) {
        if let worker, worker.plugins.isEmpty { worker.learn(plugins: hello.plugins) }
        scene.adopt(.init(remote: RemoteBackend(connection: connection, hello: hello, secrets: scene.secrets, resume: scene.resumeToken), notices: []))
    }

    /// The worker died, or stopped answering. Says what it was running (the plugin and the
    /// line it noted before running it), how it ended and Swift's "Fatal error" line; counts
    /// the crash against the plugin; then starts a new worker with every scene restored, or
    /// stops the app when the crashes come too fast.
    package func workerDied(scenes: [SceneLink], hung timedOut: Bool = false) -> WorkerEnd {
        guard let worker else { return WorkerEnd(message: "the app process is gone", restarted: false, runningScene: nil) }
        let hung = timedOut || scenes.contains { $0.remote?.connection.timedOut == true }
        for scene in scenes { scene.drop() }
        self.worker = nil
        // Asked before the kill: where the main thread was stuck.
        let stuck = hung ? worker.stuckIn() : nil
        let how = end(worker)
        var message = hung ? "the app process stopped answering" : worker.endedByItself ? "the app process crashed" : "the app process was killed"
        let running = worker.running
        let blamed = running.flatMap { !$0.plugin.isEmpty && (hung || worker.endedByItself) ? $0.plugin : nil }
        let ended = { (message: String, restarted: Bool) in
            WorkerEnd(message: message, restarted: restarted, runningScene: running?.scene, blamed: blamed, hung: hung)
        }
        if let running {
            message += " running '\(running.line)'" + (running.plugin.isEmpty ? "" : " in plugin \(running.plugin)")
        }
        let cause = hung ? "no answer for \(Int(answerTimeout)) s" + (stuck.map { ", stuck in \($0)" } ?? "") : how
        message += hung ? ": \(cause), killed" : ": \(cause)"
        let fatal = worker.fatalError
        if let fatal { message += " — \(fatal)" }
        // A plugin answers for its traps and its hangs, not for a kill from outside.
        if let plugin = blamed {
            history.crashes[plugin, default: 0] += 1
            message += quarantineIfRepeated(plugin, line: running?.line ?? "", cause: fatal ?? cause)
        }
        let now = Date()
        crashes = crashes.filter { now.timeIntervalSince($0) < Self.crashWindow } + [now]
        guard crashes.count <= Self.maxCrashes else {
            stoppedBecause = "\(crashes.count) crashes in \(Int(Self.crashWindow / 60)) minutes"
            return ended(message + "; \(stoppedBecause ?? "") — " + Self.stopped(because: nil), false)
        }
        // The first restart at once (the person is waiting); then 0.2 s, 0.4 s: a plugin that
        // dies at every start does not spin the machine.
        if crashes.count > 1 { usleep(UInt32(100_000 << (crashes.count - 1))) }
        history.count(hung ? .hang : .crash)
        do {
            try start(scenes)
        } catch {
            stoppedBecause = "it could not be started again: \(error)"
            return ended(message + "; it could not be started again (\(error)); '\(FrontCommand.restart.usage)' tries again", false)
        }
        return ended(message + "; restarted", true)
    }

    /// How many plugins are set aside now (the quarantine file's entries, crashes of earlier
    /// runs included).
    package var quarantinedCount: Int { quarantine?.entries().count ?? 0 }

    private func quarantineIfRepeated(_ plugin: String, line: String, cause: String) -> String {
        crashesByPlugin[plugin, default: 0] += 1
        let count = crashesByPlugin[plugin, default: 0]
        guard count >= Self.quarantineAfter, let quarantine else { return "" }
        do {
            try quarantine.add(plugin, reason: "\(count) crashes, the last running '\(line)': \(cause)")
            return "; plugin \(plugin) quarantined after \(count) crashes ('plugins allow \(plugin)' lets it load again)"
        } catch {
            return "; plugin \(plugin) could not be quarantined (\(error))"
        }
    }

    /// `restart` while the app is stopped: a new worker with every scene restored.
    package func restart(_ scenes: [SceneLink]) throws {
        history.count(.restart)
        do {
            try start(scenes)
        } catch {
            history.count(.restart, by: -1)
            throw error
        }
        crashes.removeAll()
        stoppedBecause = nil
    }

    /// A new version of a plugin is in a plugin folder (the worker offered it, or `plugins
    /// upgrade`): a new worker loads the folders as they are now and every scene is handed
    /// over to it, then the old worker is stopped — nginx's binary upgrade. The old worker
    /// keeps serving, and the reason is given, if the new one fails to start, loads no new
    /// version, drops a plugin the old one had, or dies while a scene is restored in it.
    /// `grantsChanged` (the person granted or revoked something, which a worker reads when it
    /// starts) hands over to a worker with the same plugins: what changed is the grants.
    package func upgrade(_ scenes: [SceneLink], grantsChanged: Bool = false) -> Reply.Notice {
        guard let old = worker else {
            return .init(text: "the app is stopped; '\(FrontCommand.restart.usage)' starts it with the plugins as they are now", isWarning: true)
        }
        let keeps = "; the running version keeps serving"
        let candidate: WorkerProcess
        // The candidate is told it is an upgrade's; if it is not kept, it never was one.
        history.count(.upgrade)
        var kept = false
        defer { if !kept { history.count(.upgrade, by: -1) } }
        do {
            candidate = try spawn(probe: true)
        } catch {
            return .init(text: "upgrade failed: \(error)\(keeps)", isWarning: true)
        }
        let refusals = candidate.startNotices.filter(\.isWarning).map(\.text)
        let lost = Set(old.plugins.map(\.name)).subtracting(candidate.plugins.map(\.name)).sorted()
        let changed = candidate.plugins.filter { !old.plugins.contains($0) }
        guard lost.isEmpty, !changed.isEmpty || grantsChanged else {
            candidate.stop()
            let what = lost.isEmpty
                ? "the new app process loaded no new plugin version"
                : "the new app process did not load \(lost.joined(separator: ", "))"
            let why = refusals.isEmpty ? "" : " (\(refusals.joined(separator: "; ")))"
            return .init(text: "upgrade failed: \(what)\(why)\(keeps)", isWarning: true)
        }
        var built: [SceneLink.Built] = []
        for scene in scenes {
            do {
                built.append(try scene.build(in: candidate, timeout: answerTimeout))
            } catch {
                let what = (error as? SceneLink.RestoreFailure)?.what ?? "a scene"
                let how = end(candidate)
                let fatal = candidate.fatalError.map { " — \($0)" } ?? ""
                return .init(text: "upgrade failed: the new app process crashed restoring \(what) (\(how)\(fatal))\(keeps)", isWarning: true)
            }
        }
        // The old worker ends before its scenes' connections are let go (see `terminate`).
        old.terminate()
        adopt(candidate, scenes: scenes, built: built)
        kept = true
        let was = { (plugin: PluginIdentity) in
            old.plugins.first { $0.name == plugin.name }.map { " (was \($0.version))" } ?? " (new)"
        }
        let list = changed.map { $0.description + was($0) }.joined(separator: ", ")
        let handed = scenes.count == 1 ? "the session was handed over" : "\(scenes.count) scenes were handed over"
        if grantsChanged, changed.isEmpty { return .init(text: "\(handed) to a new app process, which holds the grants as they are now", isWarning: false) }
        return .init(text: "upgraded: \(list); \(handed) to the new app process", isWarning: false, kind: .upgraded)
    }

    /// Ends the worker (the front is leaving; see `WorkerProcess.stop`).
    package func stop(reaping: Bool = true) {
        guard let worker else { return }
        worker.stop(reaping: reaping)
        self.worker = nil
    }
}
