import CoordProtocol
import Dispatch
import Logging
import NIOCore

/// One connection on its event loop: cuts the bytes into frames, holds the handshake (a
/// `hello` with our version within the timeout), and hands every request after it to the
/// server on the main actor, in order. Protocol faults are answered with an error frame and
/// the connection is closed; nothing a peer sends can reach the app unparsed.
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private enum State { case awaitingHello, open, closed }

    private let link: ClientLink
    private let hub: ServerHub
    private let handshakeTimeout: TimeAmount
    private var decoder = FrameDecoder()
    private var state = State.awaitingHello
    private var timeout: Scheduled<Void>?

    init(link: ClientLink, hub: ServerHub, handshakeTimeout: TimeAmount) {
        self.link = link
        self.hub = hub
        self.handshakeTimeout = handshakeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let link = self.link, hub = self.hub
        let seconds = Double(handshakeTimeout.nanoseconds) / 1e9
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: handshakeTimeout) {
            guard bound.value.state == .awaitingHello else { return }
            bound.value.state = .closed
            hub.log(.notice, "client \(link.id) (pid \(link.pid)) refused: no hello within \(seconds.formatted1) s")
            link.sendAndClose(.error(id: nil, code: "handshake_timeout", message: "no hello within \(seconds.formatted1) s"))
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        guard state != .closed else { return }
        let buffer = unwrapInboundIn(data)
        decoder.append(buffer.readableBytesView)
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
            timeout?.cancel()
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

    /// A broken rule: say which, log it, close.
    private func fault(_ code: String, _ message: String) {
        state = .closed
        timeout?.cancel()
        hub.log(.notice, "client \(link.id) (pid \(link.pid)) closed: \(message)")
        link.sendAndClose(.error(id: nil, code: code, message: message))
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        // Over the outbound limit: the client stopped reading. Dropping it is what keeps it
        // from holding the server's memory or any other client.
        guard !context.channel.isWritable, state != .closed else { return }
        state = .closed
        hub.log(.notice, "client \(link.id) (pid \(link.pid)) dropped: it stopped reading (outbound limit reached)")
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        state = .closed
        hub.closed(link)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        hub.log(.warning, "client \(link.id) (pid \(link.pid)): \(error)")
        context.close(promise: nil)
    }
}

extension Double {
    var formatted1: String { self == rounded() ? String(Int(self)) : String(format: "%.1f", self) }
}
