import CoordClient
import CoordSupervision
import NIOCore

/// A client of a supervised server as its front keeps it: the scene in the worker, and the
/// client's requests on their way there. One request per client is with the worker at a time
/// (a scene runs its commands in order, and its place is kept from each result); the others
/// wait here in the order they came. Many clients' requests are with the worker at once.
@MainActor
final class FrontClient {
    /// A request that needs the app.
    enum Request {
        case run(id: Int, line: String, answers: [String], document: Bool)
        case complete(id: Int, line: String, word: String)

        /// The id the client gave it.
        var id: Int {
            switch self {
            case .run(let id, _, _, _), .complete(let id, _, _): id
            }
        }
    }

    /// The request with the worker: its id there, and since when.
    struct InFlight {
        let request: Request
        let workerID: Int
        let sent: NIODeadline
        /// The client was answered already (a completion the worker was too busy for).
        var answered = false

        var isCompletion: Bool {
            if case .complete = request { true } else { false }
        }
    }

    let link: ClientLink
    let scene: SceneLink
    /// The scene's hello was sent to the worker, its answer not yet read: the client's own
    /// hello is answered with it.
    var attaching: (connection: ServerConnection, sent: NIODeadline)?
    var waiting: [Request] = []
    var inFlight: InFlight?

    init(link: ClientLink, scene: SceneLink) {
        self.link = link
        self.scene = scene
    }

    /// Since when the worker owes this client something, if it does.
    var owedSince: NIODeadline? { inFlight?.sent ?? attaching?.sent }
}
