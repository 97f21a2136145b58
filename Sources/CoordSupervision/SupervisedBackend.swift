import CWatchSet
import CoordAccounting
import CoordClient
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The shell's session on an app in a worker process it watches (`coordsh --supervised`).
///
/// A plugin that traps takes only the worker with it: the command that was running gets one
/// error line naming the plugin, the line, the signal and Swift's "Fatal error" message; a new
/// worker is started and the session is put back on the page it was on, logged in, with what
/// waited waiting again (see `Supervisor` for the bounds on restarts). A new version of a
/// loaded plugin dropped into a folder, or `plugins upgrade`, moves the session to a new
/// worker that has it.
@MainActor
package final class SupervisedBackend: ShellBackend {
    private let supervisor: Supervisor
    private let scene: SceneLink
    package private(set) var startPage: [String]?
    /// The person's grants: written here, in the front, which runs no plugin code; each
    /// worker reads them when it starts.
    private let grants: GrantStore?
    /// What the config's `[plugins.grants]` gives, by plugin (a revoke cannot take it back).
    private let configuredGrants: [String: [Capability]]

    /// `first`: a worker already started (the shell starts it before reading its config).
    package init(
        secrets: any SecretPrompting, answerTimeout: Double, quarantine: Quarantine?, grants: GrantStore? = nil,
        configuredGrants: [String: [Capability]] = [:], first: WorkerProcess? = nil, documents: Bool = true,
        launch: @escaping (WorkerHistory) throws -> WorkerProcess
    ) throws {
        self.grants = grants
        self.configuredGrants = configuredGrants
        supervisor = Supervisor(answerTimeout: answerTimeout, quarantine: quarantine, launch: launch)
        supervisor.prelaunched = first
        scene = SceneLink(name: "terminal", secrets: secrets)
        scene.documents = documents
        try supervisor.start([scene])
        startPage = scene.remote?.startPage
    }

    package var route: String? { scene.route }

    package func run(_ line: String) -> Reply {
        // `restart` and `plugins upgrade` are the front's (as in a supervised `serve`).
        if let command = FrontCommand(line: line) {
            switch supervisor.answer(command, scenes: [scene]) {
            case .done(let text) where command == .restart:
                // At the terminal a restart is a note: the page it comes back on is the output.
                return Reply(notices: [.init(text: text, isWarning: false)] + scene.pending.drain())
            case .done(let text):
                return Reply(result: CommandResult(lines: [text]), notices: scene.pending.drain())
            case .failed(let code, let message):
                return Reply(notices: scene.pending.drain(), error: ShellError(message, code: code, status: .failure))
            }
        }
        guard let remote = scene.remote else { return Reply(error: ShellError(supervisor.stoppedLine, code: "stopped", status: .failure)) }
        if let verb = (try? Words.split(line)).flatMap({ $0.first == "plugins" && $0.count > 1 ? GrantCommand.Verb(rawValue: $0[1]) : nil }) {
            return changeGrants(verb, line, remote)
        }
        let reply = remote.run(line)
        if reply.error?.code == "connection" || scene.isBroken {
            let message = crashed()
            return Reply(notices: scene.pending.drain(), error: ShellError(message, code: "crashed", status: .failure))
        }
        scene.note()
        return reply
    }

    /// The worker died: what it was running and how, then where the session is now (the
    /// shell's one scene is the one whose command ran, if any did).
    private func crashed() -> String {
        supervisor.workerDied(scenes: [scene]).line(for: scene, ownCommand: true)
    }

    package func completions(line: String, word: String) -> [String] {
        scene.remote?.completions(line: line, word: word) ?? []
    }

    package func isSecret(_ line: String) -> Bool {
        scene.remote?.isSecret(line) ?? false
    }

    package var watchDescriptor: Int32? { supervisor.watchSet }

    package func takePushed() -> [Reply.Notice] {
        var notices = scene.pending.drain()
        guard let remote = scene.remote, let worker = supervisor.worker else { return notices }
        // The set's readiness is cleared; the connections themselves say what arrived.
        coordsh_watchset_drain(supervisor.watchSet)
        notices += remote.takePushed().filter { $0.kind != .server }
        if scene.isBroken || worker.hasEnded {
            notices.append(.init(text: crashed(), isWarning: true))
            return notices + scene.pending.drain()
        }
        // A new version of a loaded plugin arrived: a new worker takes the session over.
        if !remote.connection.upgradeOffers.isEmpty {
            notices += remote.connection.upgradeOffers.map { .init(text: $0, isWarning: false) }
            remote.connection.upgradeOffers.removeAll()
            notices.append(supervisor.upgrade([scene]))
            notices += scene.pending.drain()
        }
        return notices
    }

    // MARK: Grants

    package func grantRequests() -> [GrantRequest] { scene.remote?.workerGrantRequests() ?? [] }
    package var remembersGrants: Bool { grants?.isWritable == true }

    package func answer(_ request: GrantRequest, granted: Bool) -> Reply {
        do {
            try grants?.record(request, granted: granted)
        } catch {
            return Reply(error: ShellError("\(error)", code: "grants", status: .failure))
        }
        let said = CommandResult(lines: [GrantRequest.answered(request, granted: granted)])
        // A refusal changes nothing in force: the worker keeps serving.
        return granted ? handOver(said) : Reply(result: said)
    }

    /// `plugins grant|revoke NAME [WHAT…]`: checked against what the worker says the plugin
    /// declares, written here, then in force in a new worker.
    private func changeGrants(_ verb: GrantCommand.Verb, _ line: String, _ remote: RemoteBackend) -> Reply {
        do {
            let words = try Words.split(line)
            let args = Array(words.dropFirst(2))
            let plugin = args.first.map { name in
                let reply = remote.run("plugins \(Words.quote(name))", document: true)
                return reply.error == nil ? GrantCommand.Plugin(json: reply.result.json) : nil
            } ?? nil
            let (found, capabilities) = try GrantCommand.resolve(verb, args, plugin: plugin)
            let result = try GrantCommand.apply(verb, found, capabilities, store: grants, configured: configuredGrants[found.name] ?? [])
            return handOver(result)
        } catch let error as ShellError {
            return Reply(error: error)
        } catch {
            return Reply(error: ShellError("\(error)", code: "usage", status: .usage))
        }
    }

    /// The grants changed: a worker reads them when it starts, so the session moves to a new
    /// one (as an upgrade does), and says so.
    private func handOver(_ result: CommandResult) -> Reply {
        let notice = supervisor.upgrade([scene], grantsChanged: true)
        if notice.isWarning {
            let what = result.lines.first ?? "the grants changed"
            return Reply(notices: scene.pending.drain(), error: ShellError("\(what), kept for the next start, but \(notice.text)", code: "upgrade", status: .failure))
        }
        return Reply(result: result, notices: [notice] + scene.pending.drain())
    }

    /// Ends the worker with the shell (`reaping`: see `WorkerProcess.stop`).
    package func stop(reaping: Bool = true) {
        supervisor.stop(reaping: reaping)
    }
}

extension Array where Element == Reply.Notice {
    /// The notices, emptying the list.
    package mutating func drain() -> [Reply.Notice] {
        defer { removeAll() }
        return self
    }
}
