import CoordClient
import CoordProtocol
@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// One scene of a supervised front, as the front keeps it: its connection to the current
/// worker, and what it takes to build the scene again in another worker — the page it is on
/// (a route), who is logged in (a session token, never a password) and the messages waiting
/// in its queues (command lines, each with the page that sent it). Kept from every result, so
/// that a crash loses at most the command that was running.
@MainActor
package final class SceneLink {
    /// The worker died while this scene was being built in it.
    struct RestoreFailure: Error {
        /// What was being put back ("the page content/product id=9", "'cart add 3'").
        let what: String
    }

    /// A scene built in a worker and not yet in use: a hand-over adopts every scene's or none.
    struct Built {
        let remote: RemoteBackend
        let notices: [Reply.Notice]
    }

    /// The scene's name in every worker (and the key of its guest cart there).
    package let name: String
    let secrets: any SecretPrompting
    package private(set) var remote: RemoteBackend?
    package private(set) var route: String?
    /// The routes `back` goes through, ending with `route` (see `SceneCoordinator.pageTrail`).
    private(set) var trail: [String] = []
    package private(set) var resumeToken: String?
    private(set) var queued: [(line: String, from: String?)] = []
    /// Whether its results come with their `--json` documents (see `RemoteBackend.documents`),
    /// in every worker it is built in.
    package var documents = true
    /// Notes for the scene's person that arrived outside a command's answer.
    package var pending: [Reply.Notice] = []

    /// The pid of the person's client, told to every worker this scene is built in (`scenes`
    /// shows it); nil for a terminal's scene, whose client is the front itself.
    private let peer: Int32?

    package init(name: String, secrets: any SecretPrompting, resume: String? = nil, peer: Int32? = nil) {
        self.name = name
        self.peer = peer
        self.secrets = secrets
        resumeToken = resume
    }

    /// Builds the scene in `worker`: hello with the login to resume, the queued messages sent
    /// again from the pages that sent them (they wait again), then the page it was on. Throws
    /// `RestoreFailure` when the worker dies on the way, naming what killed it.
    func build(in worker: WorkerProcess, timeout: Double?) throws -> Built {
        let connection: ServerConnection
        do {
            connection = try worker.openScene()
        } catch {
            throw RestoreFailure(what: "the scene")  // the worker is gone
        }
        connection.answerTimeout = timeout
        let remote: RemoteBackend
        do {
            remote = try RemoteBackend(connection: connection, secrets: secrets, resume: resumeToken, scene: name, peer: peer)
        } catch {
            throw RestoreFailure(what: resumeToken == nil ? "the scene" : "the login")
        }
        var notices: [Reply.Notice] = []
        for entry in queued {
            if let from = entry.from, from != remote.route { _ = try exchange(remote, "open \(from)", what: "the page \(from)") }
            switch try exchange(remote, entry.line, what: "'\(entry.line)'") {
            case .result(let result) where result.error == nil:
                notices.append(.init(text: "'\(entry.line)' waits again", isWarning: false))
            case .result(let result):
                notices.append(.init(text: "'\(entry.line)' no longer waits: \(result.error?.message ?? "")", isWarning: true))
            case .secret:
                notices.append(.init(text: "'\(entry.line)' no longer waits: it asks for a password; run it again", isWarning: true))
            default:
                notices.append(.init(text: "'\(entry.line)' no longer waits", isWarning: true))
            }
        }
        // The pages in the order they were reached, so that `back` goes where it went; one
        // that cannot be shown again (its plugin gone, or refusing) is left out with a note,
        // which leaves the scene on the page before it.
        let pages = trail.isEmpty ? route.map { [$0] } ?? [] : trail
        for page in pages where page != remote.route || pages.count > 1 {
            if case .result(let result) = try exchange(remote, "open \(page)", what: "the page \(page)"), let error = result.error {
                let now = remote.route.map { "; back at \($0)" } ?? ""
                notices.append(.init(text: "could not go back to \(page): \(error.message)\(now)", isWarning: true))
            }
        }
        return Built(remote: remote, notices: notices)
    }

    /// A new scene's first step in `worker`, not waiting for the answer: its connection,
    /// with the hello (and the login to resume) sent.
    func beginBuild(in worker: WorkerProcess) throws -> ServerConnection {
        let connection = try worker.openScene()
        try RemoteBackend.sendHello(on: connection, resume: resumeToken, scene: name, peer: peer)
        return connection
    }

    private func exchange(_ remote: RemoteBackend, _ line: String, what: String) throws -> ServerReply {
        do {
            return try remote.exchange(line, answers: [])
        } catch {
            throw RestoreFailure(what: what)
        }
    }

    /// Uses a scene built by `build`: the route, login and queue are now the new worker's.
    func adopt(_ built: Built) {
        built.remote.documents = documents
        remote = built.remote
        pending += built.notices
        note()
    }

    /// Keeps the scene's place from its connection after a command.
    package func note() {
        guard let remote else { return }
        route = remote.route
        resumeToken = remote.resumeToken
        queued = remote.queuedCommands
        trail = remote.trail
    }

    /// What could not be restored is let go: the next build starts on the start page with the
    /// login only.
    func forgetPlace() {
        route = nil
        trail = []
        queued = []
    }

    /// The worker this scene was on is gone or replaced.
    func drop() {
        remote = nil
    }

    /// The scene ends: the worker closes it (its queued messages are reported dropped there).
    package func close() {
        remote?.connection.shutdown()
        remote = nil
    }

    /// True when the connection to the worker broke (it crashed, or stopped answering).
    package var isBroken: Bool { remote?.connection.closedReason != nil }
}
