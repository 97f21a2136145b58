import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// How a supervised server's front gets its worker's metrics: a socketpair of its own (the
/// worker's end is its descriptor 4), on which the front asks with one byte and the worker
/// answers with its registry's text, four bytes of length first.
///
/// The worker answers from a thread of its own, not its main one: a scrape is answered while
/// a plugin's command runs (or hangs — then the figures say where the time goes). The channel
/// is not the control channel, which the front reads only for the worker's end.
package final class MetricsChannel: @unchecked Sendable {
    /// A reply larger than this is taken for a broken worker (a registry of every plugin's
    /// every message is some hundred kilobytes).
    static let largest = 64 << 20

    /// The front's end.
    private let descriptor: Int32
    /// The worker's end, until it is handed over (see `handedOver`).
    package private(set) var workerEnd: Int32
    private let lock = NSLock()
    /// A question that went unanswered leaves its answer to come at any time: the channel is
    /// not asked again (the next worker has a new one).
    private var broken = false

    package init() throws {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw MetricsFailure("cannot make the metrics channel: \(String(cString: strerror(errno)))")
        }
        descriptor = pair[0]
        workerEnd = pair[1]
    }

    deinit {
        close(descriptor)
        if workerEnd >= 0 { close(workerEnd) }
    }

    /// The worker has its end (the spawn duplicated it): this process's copy is closed, so
    /// that the worker's end reads as closed once the worker is gone.
    package func handedOver() {
        lock.withLock {
            if workerEnd >= 0 { close(workerEnd) }
            workerEnd = -1
        }
    }

    /// The worker's metrics text, or nil when it does not answer within `timeout` seconds
    /// (or is gone). Blocks: ask from a thread that may wait, not the event loop.
    package func ask(timeout: Double) -> [UInt8]? {
        lock.withLock {
            guard !broken else { return nil }
            let deadline = Date().addingTimeInterval(timeout)
            var question: UInt8 = 1
            guard send(descriptor, &question, 1, Int32(MSG_NOSIGNAL)) == 1,
                  let header = read(4, until: deadline)
            else {
                broken = true
                return nil
            }
            let length = header.reduce(0) { $0 << 8 | Int($1) }
            guard length <= Self.largest, let text = read(length, until: deadline) else {
                broken = true
                return nil
            }
            return text
        }
    }

    /// Exactly `count` bytes, or nil at the deadline, an error or the end.
    private func read(_ count: Int, until deadline: Date) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return nil }
            var watch = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            let ready = poll(&watch, 1, Int32(left * 1000) + 1)
            if ready < 0, errno == EINTR { continue }
            guard ready > 0 else { return nil }
            let got = bytes.withUnsafeMutableBytes { buffer in
                buffer.baseAddress.map { recv(descriptor, $0 + filled, count - filled, 0) } ?? -1
            }
            if got < 0, errno == EINTR { continue }
            guard got > 0 else { return nil }
            filled += got
        }
        return bytes
    }

    /// The worker's side: answers each question on `descriptor` with `text()`, from a thread
    /// of its own, until the front's end closes.
    package static func answer(on descriptor: Int32, with text: @escaping @Sendable () -> [UInt8]) {
        Thread.detachNewThread {
            var question: UInt8 = 0
            while true {
                let got = recv(descriptor, &question, 1, 0)
                if got < 0, errno == EINTR { continue }
                guard got == 1 else { break }
                let body = text()
                let length = UInt32(clamping: body.count)
                let reply = [UInt8(length >> 24), UInt8(length >> 16 & 0xff), UInt8(length >> 8 & 0xff), UInt8(length & 0xff)] + body
                guard writeAll(descriptor, reply) else { break }
            }
            close(descriptor)
        }
    }

    private static func writeAll(_ descriptor: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let wrote = bytes.withUnsafeBytes { buffer in
                buffer.baseAddress.map { send(descriptor, $0 + sent, bytes.count - sent, Int32(MSG_NOSIGNAL)) } ?? -1
            }
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { return false }
            sent += wrote
        }
        return true
    }
}

/// Why the metrics cannot be served: one line for the person or the log.
package struct MetricsFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
