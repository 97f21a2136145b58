import CSocketPass
import Foundation
import Synchronization

/// A worker's event loop, run by its main thread: one `poll` over the front's control channel,
/// its scene connections and a wake-up pipe, with the hand-overs from other threads (a plugin
/// folder's change) run between. Each descriptor the control channel brings is a scene
/// attached here; the channel's end is the worker's.
///
/// A worker serves one front over a few local socketpairs. SwiftNIO's machinery for that cost
/// its start ≈ 3 M instructions of first-use runtime work (type metadata, conformance
/// look-ups) before the front's first answer, on the critical path of every supervised start
/// (BENCHMARKS.md, "Issue 41, eighteenth pass"). `coordsh serve` keeps SwiftNIO: it listens,
/// admits strangers by their credentials and serves many clients.
final class WorkerLoop: ServerLoop, @unchecked Sendable {
    /// The wake-up pipe: read end polled, write end written by `execute`.
    private let wake: Int32
    private let waker: Int32
    private let thread: pthread_t
    private let tasks = Mutex<[@Sendable () -> Void]>([])
    /// The loop thread's alone, as is everything below.
    private var connections: [WorkerConnection] = []
    private var readBuffer = [UInt8](repeating: 0, count: 1 << 16)
    private var lastID = 0

    /// A loop run by the calling thread; nil when no pipe can be made (errno says why).
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = Self.makeNonBlocking(end)
        }
        self.wake = ends[0]
        self.waker = ends[1]
        self.thread = pthread_self()
    }

    /// Whether the caller is the loop's thread.
    var isCurrent: Bool { pthread_equal(pthread_self(), thread) != 0 }

    /// Runs `task` on the loop's thread at its next turn, from any thread.
    func execute(_ task: @escaping @Sendable () -> Void) {
        tasks.withLock { $0.append(task) }
        // A full pipe already holds a wake-up: the byte not written is not missed.
        var one: UInt8 = 1
        _ = Foundation.write(waker, &one, 1)
    }

    /// What the loop serves: the front's control channel, and what each scene it brings is
    /// attached with.
    struct Front {
        /// The control channel's descriptor (made non-blocking here).
        let control: Int32
        let hub: ServerHub
        let handshakeSeconds: Double
        let outboundLimit: Int
        /// The control channel ended (nil) or failed (why): the worker's last act, on the loop.
        let ended: (_ failure: String?) -> Never
    }

    /// Turns until the control channel ends, and `front.ended` with it.
    func run(_ front: Front) -> Never {
        _ = Self.makeNonBlocking(front.control)
        while true { turn(front) }
    }

    private func turn(_ front: Front) {
        let watched = connections
        var polled = [pollfd(fd: wake, events: Int16(POLLIN), revents: 0), pollfd(fd: front.control, events: Int16(POLLIN), revents: 0)]
        polled.reserveCapacity(watched.count + 2)
        for connection in watched {
            polled.append(pollfd(fd: connection.descriptor, events: Int16(POLLIN) | (connection.hasPending ? Int16(POLLOUT) : 0), revents: 0))
        }
        let ready = poll(&polled, nfds_t(polled.count), timeoutMilliseconds(watched))
        if ready > 0 {
            for (index, connection) in watched.enumerated() {
                let events = polled[index + 2].revents
                guard events != 0, !connection.isClosed else { continue }
                if events & Int16(POLLOUT) != 0 { connection.writable() }
                if !connection.isClosed, events & (Int16(POLLIN) | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)) != 0 {
                    connection.readable(into: &readBuffer)
                }
            }
            if polled[0].revents != 0 { runTasks() }
            if polled[1].revents != 0 { receiveScene(front) }
        }
        let now = Self.now()
        for connection in watched where !connection.isClosed {
            if let deadline = connection.helloDeadline, deadline <= now { connection.helloTimedOut() }
        }
        connections.removeAll { $0.isClosed }
    }

    /// The control channel is readable: a scene's socket from the front, or its end.
    private func receiveScene(_ front: Front) {
        let received = coordsh_recv_fd(front.control)
        if received == -1 { front.ended(nil) }
        guard received >= 0 else {
            // Nothing whole yet (a byte without a descriptor is skipped), or the channel failed.
            guard errno != EAGAIN, errno != EWOULDBLOCK, errno != EINTR else { return }
            front.ended("control channel: \(String(cString: strerror(errno)))")
        }
        guard Self.makeNonBlocking(received) else {
            front.hub.log(.error, "cannot use the scene connection \(received) from the front: \(String(cString: strerror(errno)))")
            Foundation.close(received)
            return
        }
        lastID += 1
        let connection = WorkerConnection(descriptor: received, loop: self, outboundLimit: front.outboundLimit, handshakeSeconds: front.handshakeSeconds)
        let link = ClientLink(id: lastID, connection: connection, pid: getppid(), uid: getuid(), logger: front.hub.logger)
        connection.gate = ClientGate(link: link, hub: front.hub)
        connections.append(connection)
    }

    private func runTasks() {
        var drained = [UInt8](repeating: 0, count: 64)
        while drained.withUnsafeMutableBytes({ read(wake, $0.baseAddress, $0.count) }) > 0 {}
        let due = tasks.withLock { tasks in
            defer { tasks = [] }
            return tasks
        }
        for task in due { task() }
    }

    /// Until the nearest handshake deadline, or for ever (-1) when none is pending.
    private func timeoutMilliseconds(_ watched: [WorkerConnection]) -> Int32 {
        guard let nearest = watched.compactMap(\.helloDeadline).min() else { return -1 }
        let now = Self.now()
        guard nearest > now else { return 0 }
        return Int32(clamping: (nearest - now + 999_999) / 1_000_000)
    }

    /// Sets `O_NONBLOCK` on `descriptor`, keeping its other status flags; false (errno set)
    /// when it cannot.
    private static func makeNonBlocking(_ descriptor: Int32) -> Bool {
        let flags = fcntl(descriptor, F_GETFL)
        return flags >= 0 && fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) == 0
    }

    /// Monotonic nanoseconds.
    static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }
}
