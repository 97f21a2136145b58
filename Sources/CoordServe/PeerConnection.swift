import NIOCore

/// Where a client's frames are written: a SwiftNIO channel (`coordsh serve`, a supervised
/// front) or a connection of a worker's own loop (`WorkerLoop`). The server speaks the same
/// protocol through either; only the bytes' way out differs.
protocol PeerConnection: Sendable {
    /// Queues `bytes` and writes what the socket takes now.
    func write(_ bytes: [UInt8])
    /// Queues `bytes`, then closes once they are written (a refusal's or a goodbye's last frame).
    func writeThenClose(_ bytes: [UInt8])
    /// Closes now; what is still queued is dropped.
    func close()
}

/// A SwiftNIO channel as a peer: writes hop to the channel's event loop by themselves.
struct ChannelPeer: PeerConnection {
    let channel: any Channel

    func write(_ bytes: [UInt8]) {
        channel.writeAndFlush(ByteBuffer(bytes: bytes), promise: nil)
    }

    func writeThenClose(_ bytes: [UInt8]) {
        let channel = self.channel
        channel.writeAndFlush(ByteBuffer(bytes: bytes)).whenComplete { _ in channel.close(promise: nil) }
    }

    func close() {
        channel.close(promise: nil)
    }
}

/// Runs work on the server's thread at its next turn: the SwiftNIO event loop's, or a worker's
/// own loop's. A connection's end is handed over this way (see `ServerHub.closed`).
protocol ServerLoop: Sendable {
    func execute(_ task: @escaping @Sendable () -> Void)
}

/// A SwiftNIO event loop as the server's loop.
struct ChannelLoop: ServerLoop {
    let loop: any EventLoop

    func execute(_ task: @escaping @Sendable () -> Void) {
        loop.execute(task)
    }
}
