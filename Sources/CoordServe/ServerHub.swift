import CoordProtocol
import NIOCore
import Logging

/// The way from a connection's handler to the server. The loop runs on the main thread (see
/// `Serve` and `WorkerLoop`), so a request is handed over there and then, in arrival order. A connection's
/// end is handed over on the loop's next turn instead: it can be noticed in the middle of the
/// server's own work (a write to a peer that went away), and the server must not close a
/// scene under a command that is still running in it.
struct ServerHub: Sendable {
    let server: any ClientServing
    let logger: Logger
    let loop: any ServerLoop

    func opened(_ link: ClientLink, resume: String?, scene: String?, peer: Int?) {
        MainActor.assumeIsolated { server.open(link, resume: resume, scene: scene, peer: peer) }
    }

    func received(_ request: ClientRequest, from link: ClientLink) {
        MainActor.assumeIsolated { server.handle(request, from: link) }
    }

    func closed(_ link: ClientLink) {
        loop.execute { MainActor.assumeIsolated { server.close(link) } }
    }

    func log(_ level: Logger.Level, _ message: String) {
        logger.log(level: level, "\(message)")
    }
}

/// What the listener hands its clients to: the app in this process (`Server`), or a
/// supervised front that relays each client to its scene in a worker (`FrontServer`).
@MainActor
protocol ClientServing: AnyObject, Sendable {
    /// A client said hello (with a login to resume, and a scene name and the person's client
    /// pid, which a worker takes from its front).
    func open(_ link: ClientLink, resume: String?, scene: String?, peer: Int?)
    func handle(_ request: ClientRequest, from link: ClientLink)
    /// The connection ended.
    func close(_ link: ClientLink)
    /// Shutting down: requests that arrive from now on are refused.
    func beginDrain()
    /// A request taken is not yet answered (a supervised front relays them to its worker
    /// without waiting): a shutdown waits for it.
    var busy: Bool { get }
    /// The server stops: every client hears `reason`, and the app ends (a front stops its
    /// workers, an app in this process closes its data store).
    func goodbyeAll(_ reason: String)
    /// The socket listens: starts what the server watches from the loop, and says where the
    /// app runs (for the log's "listening on" line).
    func listening(loop: any EventLoop) -> String
    /// Clients, waiting requests, the app's state, for `serve --metrics`'s gauges.
    var metricsNow: ServeMetrics.Now { get }
}
