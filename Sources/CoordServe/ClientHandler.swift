import CoordProtocol
import Dispatch
import Logging
import NIOCore

/// One connection on a SwiftNIO event loop: feeds the bytes to the connection's `ClientGate`
/// and times the handshake out (a `hello` within `handshakeTimeout`).
final class ClientHandler: ChannelInboundHandler {
    typealias InboundIn = ByteBuffer

    private let gate: ClientGate
    private let handshakeTimeout: TimeAmount
    private var timeout: Scheduled<Void>?

    init(link: ClientLink, hub: ServerHub, handshakeTimeout: TimeAmount) {
        self.gate = ClientGate(link: link, hub: hub)
        self.handshakeTimeout = handshakeTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        let seconds = Double(handshakeTimeout.nanoseconds) / 1e9
        let bound = NIOLoopBound(self, eventLoop: context.eventLoop)
        timeout = context.eventLoop.scheduleTask(in: handshakeTimeout) {
            bound.value.gate.helloTimedOut(after: seconds)
        }
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        unwrapInboundIn(data).withUnsafeReadableBytes { gate.received($0) }
        if gate.state != .awaitingHello { timeout?.cancel() }
    }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        guard !context.channel.isWritable, gate.stoppedReading() else { return }
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        timeout?.cancel()
        gate.ended()
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        gate.hub.log(.warning, "client \(gate.link.id) (pid \(gate.link.pid)): \(error)")
        context.close(promise: nil)
    }
}

extension Double {
    var formatted1: String { self == rounded() ? String(Int(self)) : String(format: "%.1f", self) }
}
