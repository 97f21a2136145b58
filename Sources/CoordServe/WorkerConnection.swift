import Foundation

/// One scene's connection from the front, on the worker's own loop (`WorkerLoop`): a
/// non-blocking socket, the frames still to be written to it, and its `ClientGate`.
///
/// Touched only on the loop's thread: a write from any other thread is handed to the loop.
/// Writes go out at once as far as the socket takes them; the rest waits for the loop to see
/// the socket writable. More than `outboundLimit` bytes waiting means the front stopped
/// reading, and the connection is dropped, as `coordsh serve` drops such a client.
final class WorkerConnection: PeerConnection, @unchecked Sendable {
    let descriptor: Int32
    private let loop: WorkerLoop
    private let outboundLimit: Int
    /// Set once, right after init: the gate needs the link, which needs this connection.
    var gate: ClientGate?
    /// When the handshake times out (monotonic nanoseconds), while the peer has not said hello.
    private(set) var helloDeadline: UInt64?
    let handshakeSeconds: Double
    private var outbound: [UInt8] = []
    private var written = 0
    private var closeWhenWritten = false
    private(set) var isClosed = false

    init(descriptor: Int32, loop: WorkerLoop, outboundLimit: Int, handshakeSeconds: Double) {
        self.descriptor = descriptor
        self.loop = loop
        self.outboundLimit = outboundLimit
        self.handshakeSeconds = handshakeSeconds
        self.helloDeadline = WorkerLoop.now() &+ UInt64(max(0, handshakeSeconds) * 1e9)
    }

    /// Bytes still to be written: the loop asks the socket for writability while there are.
    var hasPending: Bool { written < outbound.count }

    // MARK: PeerConnection

    func write(_ bytes: [UInt8]) {
        guard loop.isCurrent else {
            loop.execute { self.write(bytes) }
            return
        }
        guard !isClosed else { return }
        outbound.append(contentsOf: bytes)
        guard flush() else { return }
        if outbound.count - written > outboundLimit, gate?.stoppedReading() ?? true {
            close()
        }
    }

    func writeThenClose(_ bytes: [UInt8]) {
        guard loop.isCurrent else {
            loop.execute { self.writeThenClose(bytes) }
            return
        }
        write(bytes)
        if hasPending { closeWhenWritten = true } else { close() }
    }

    func close() {
        guard loop.isCurrent else {
            loop.execute { self.close() }
            return
        }
        guard !isClosed else { return }
        isClosed = true
        helloDeadline = nil
        outbound = []
        written = 0
        Glibc.close(descriptor)
        gate?.ended()
    }

    // MARK: The loop's calls

    /// The socket is readable (or hung up): what arrived goes to the gate; the end of the
    /// stream or an error closes the connection.
    func readable(into buffer: inout [UInt8]) {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count > 0 {
            buffer.withUnsafeBytes { gate?.received(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
            if gate?.state != .awaitingHello { helloDeadline = nil }
        } else if count == 0 {
            close()
        } else if errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR {
            failed("read")
        }
    }

    /// The socket takes more: write what waits, and close if that was a last frame.
    func writable() {
        guard flush(), !hasPending, closeWhenWritten else { return }
        close()
    }

    /// The handshake timeout passed without a hello.
    func helloTimedOut() {
        helloDeadline = nil
        gate?.helloTimedOut(after: handshakeSeconds)
    }

    /// Writes what waits until the socket would block. False when the connection failed (and
    /// is closed).
    private func flush() -> Bool {
        while written < outbound.count {
            let sent = outbound.withUnsafeBytes { bytes -> Int in
                guard let base = bytes.baseAddress else { return 0 }
                return send(descriptor, base + written, bytes.count - written, Int32(MSG_NOSIGNAL))
            }
            if sent > 0 {
                written += sent
            } else if sent < 0, errno == EINTR {
                continue
            } else if sent < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                break
            } else {
                failed("write")
                return false
            }
        }
        if written == outbound.count {
            outbound.removeAll(keepingCapacity: outbound.count <= 1 << 16)
            written = 0
        } else if written >= 1 << 16, written >= outbound.count / 2 {
            outbound.removeFirst(written)
            written = 0
        }
        return true
    }

    /// A read or write failed: the front went away (quietly), or something else did (logged).
    private func failed(_ what: String) {
        let code = errno
        if code != EPIPE, code != ECONNRESET, let gate {
            gate.hub.log(.warning, "client \(gate.link.id) (pid \(gate.link.pid)): \(what): \(String(cString: strerror(code)))")
        }
        close()
    }
}
