import CoordProtocol
import CoordRuntime
import Logging

/// The server's handle on one client connection, usable from the main actor: who the peer is
/// and how to send it a frame (through a SwiftNIO channel, or a worker's own loop).
struct ClientLink: Sendable {
    let id: Int
    let connection: any PeerConnection
    let pid: Int32
    let uid: UInt32
    /// Where a push too large to send is logged.
    let logger: Logger

    /// Sends one frame. A reply that cannot be encoded — in practice one over the frame limit —
    /// is never a trap and never a broken connection: the answer to a request becomes that
    /// request's one-line `too_large` error (the connection stays open); a push that large is
    /// not sent, and logged.
    func send(_ reply: ServerReply) {
        let bytes: [UInt8]
        do {
            bytes = try FrameDecoder.encode(reply.object)
        } catch {
            guard let id = reply.requestID else {
                logger.warning("client \(id) (pid \(pid)): a \(reply.typeName) frame not sent: \(error.message)")
                return
            }
            guard let fallback = try? FrameDecoder.encode(ServerReply.error(id: id, code: error.code, message: error.message).object) else { return }
            bytes = fallback
        }
        connection.write(bytes)
    }

    /// Sends a frame as another process wrote it (a worker's answer a front passes on).
    func send(frame bytes: [UInt8]) {
        connection.write(bytes)
    }

    /// Sends a last frame, then closes once it is written.
    func sendAndClose(_ reply: ServerReply) {
        guard let bytes = try? FrameDecoder.encode(reply.object) else {
            connection.close()
            return
        }
        connection.writeThenClose(bytes)
    }

    /// Closes the connection (the client said bye).
    func close() {
        connection.close()
    }
}

extension ClientLink {
    /// Whether this client, having said hello, may have a scene: not while the server shuts
    /// down (a goodbye), not past `[serve] max_clients` (an error, logged). A refused client
    /// gets its one frame and the connection closes.
    @MainActor
    func admitted(draining: Bool, attached: Int, settings: Config.ServeSettings, logger: Logger) -> Bool {
        if draining {
            sendAndClose(.goodbye(reason: "the server is shutting down"))
            return false
        }
        guard attached < settings.maxClients else {
            logger.notice("client \(id) (pid \(pid)) refused: \(attached) clients attached, the limit is \(settings.maxClients)")
            sendAndClose(.error(id: nil, code: "server_full", message: "the server has \(settings.maxClients) clients, its limit ([serve] max_clients); try again later"))
            return false
        }
        return true
    }
}
