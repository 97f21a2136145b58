import CoordProtocol

/// One connection's protocol rules, apart from how its bytes arrive: cuts them into frames,
/// holds the handshake (a `hello` with our version first), and hands every request after it to
/// the server, in order. A broken rule is answered with an error frame and the connection is
/// closed; nothing a peer sends reaches the app unparsed. The SwiftNIO handler
/// (`ClientHandler`) and a worker's own loop (`WorkerConnection`) each feed one of these.
///
/// A class: handing a request to the server can end the connection under it (a refusal's
/// last frame written, a write that failed), and that end comes back here as `ended()` while
/// `received` is still running.
final class ClientGate {
    enum State { case awaitingHello, open, closed }

    let link: ClientLink
    let hub: ServerHub
    private(set) var state = State.awaitingHello
    private var decoder = FrameDecoder()

    init(link: ClientLink, hub: ServerHub) {
        self.link = link
        self.hub = hub
    }

    /// Bytes from the peer: each whole frame is parsed and handled before the next is cut.
    func received(_ bytes: UnsafeRawBufferPointer) {
        guard state != .closed else { return }
        decoder.append(bytes)
        do {
            while state != .closed, let object = try decoder.next() {
                try handle(ClientRequest.parse(object))
            }
        } catch {
            fault(error.code, error.message)
        }
    }

    private func handle(_ request: ClientRequest) throws(ProtocolError) {
        switch (state, request) {
        case (.awaitingHello, .hello(let version, let client, let resume, let scene, let peer)):
            guard version == WireProtocol.version else {
                throw ProtocolError(
                    "version", "protocol version mismatch: server speaks \(WireProtocol.version), client \(client.isEmpty ? "" : "'\(ProtocolError.clip(client))' ")speaks \(version)")
            }
            state = .open
            hub.opened(link, resume: resume, scene: scene, peer: peer)
        case (.awaitingHello, _):
            throw ProtocolError("handshake", "the first frame must be a hello")
        case (.open, .hello):
            throw ProtocolError("handshake", "hello sent twice")
        case (.open, _):
            hub.received(request, from: link)
        case (.closed, _):
            return
        }
    }

    /// The handshake timeout passed: a peer that has not said hello is refused.
    func helloTimedOut(after seconds: Double) {
        guard state == .awaitingHello else { return }
        state = .closed
        hub.log(.notice, "client \(link.id) (pid \(link.pid)) refused: no hello within \(seconds.formatted1) s")
        link.sendAndClose(.error(id: nil, code: "handshake_timeout", message: "no hello within \(seconds.formatted1) s"))
    }

    /// Over the outbound limit: the peer stopped reading. Dropping it is what keeps it from
    /// holding the server's memory or any other client. Whether the caller closes the
    /// connection (false when it is already closing).
    func stoppedReading() -> Bool {
        guard state != .closed else { return false }
        state = .closed
        hub.log(.notice, "client \(link.id) (pid \(link.pid)) dropped: it stopped reading (outbound limit reached)")
        return true
    }

    /// The connection ended, for whatever reason: the server closes the scene.
    func ended() {
        state = .closed
        hub.closed(link)
    }

    /// A broken rule: say which, log it, close.
    private func fault(_ code: String, _ message: String) {
        state = .closed
        hub.log(.notice, "client \(link.id) (pid \(link.pid)) closed: \(message)")
        link.sendAndClose(.error(id: nil, code: code, message: message))
    }
}
