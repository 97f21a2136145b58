import CoordProtocol
import Dispatch
import Logging

/// The way from the event loops to the server on the main actor. Every call is queued on the
/// main queue in arrival order, so one client's requests run in the order it sent them.
struct ServerHub: Sendable {
    let server: Server
    let logger: Logger

    func opened(_ link: ClientLink) {
        DispatchQueue.main.async { MainActor.assumeIsolated { server.open(link) } }
    }

    func received(_ request: ClientRequest, from link: ClientLink) {
        DispatchQueue.main.async { MainActor.assumeIsolated { server.handle(request, from: link) } }
    }

    func closed(_ link: ClientLink) {
        DispatchQueue.main.async { MainActor.assumeIsolated { server.close(link) } }
    }

    func log(_ level: Logger.Level, _ message: String) {
        logger.log(level: level, "\(message)")
    }
}
