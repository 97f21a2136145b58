import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// The server's life as a swift-service-lifecycle service: it runs until the group's graceful
/// shutdown (SIGTERM or SIGINT), then stops accepting, lets the commands in flight finish
/// (for at most the drain timeout), says goodbye to every client, removes the socket and the
/// lock, and returns, after which the process exits 0.
struct ServeLifecycle: Service {
    let listener: any Channel
    let server: any ClientServing
    let place: SocketPlace
    let lock: SocketPlace.Lock
    let loop: any EventLoop
    let logger: Logger
    let drainTimeout: Double

    func run() async throws {
        try? await gracefulShutdown()
        logger.info("shutting down: no new clients, waiting for commands in flight")
        try? await listener.close()
        unlink(place.socketPath)
        let drained = await Self.within(seconds: drainTimeout) {
            // Runs after every request the loop took before it: the ones in flight have finished,
            // or (a supervised front) are on their way to the worker, waited for here.
            try? await loop.submit { MainActor.assumeIsolated { server.beginDrain() } }.get()
            while (try? await loop.submit({ MainActor.assumeIsolated { server.busy } }).get()) == true {
                try? await Task.sleep(for: .milliseconds(10))
            }
        }
        if !drained { logger.warning("commands still running after \(drainTimeout) s; closing anyway") }
        _ = await Self.within(seconds: 2) {
            try? await loop.submit { MainActor.assumeIsolated { server.goodbyeAll("the server is shutting down") } }.get()
        }
        // Give the goodbyes a moment to be written before the process goes.
        try? await Task.sleep(for: .milliseconds(100))
        lock.release()
        logger.info("stopped")
    }

    /// Runs `body`, giving up on it after `seconds`; true when it finished in time. A body
    /// that never finishes (a command stuck on the main actor) is left behind, not awaited.
    static func within(seconds: Double, _ body: @escaping @Sendable () async -> Void) async -> Bool {
        let once = ResumeOnce()
        return await withCheckedContinuation { continuation in
            once.hold(continuation)
            Task {
                await body()
                once.resume(true)
            }
            Task {
                try? await Task.sleep(for: .seconds(seconds))
                once.resume(false)
            }
        }
    }
}

/// A continuation resumed by whichever of two racers comes first.
final class ResumeOnce: @unchecked Sendable {
    private let lock = NSLock()
    private var continuation: CheckedContinuation<Bool, Never>?

    func hold(_ continuation: CheckedContinuation<Bool, Never>) {
        lock.withLock { self.continuation = continuation }
    }

    func resume(_ value: Bool) {
        let waiting = lock.withLock { () -> CheckedContinuation<Bool, Never>? in
            defer { continuation = nil }
            return continuation
        }
        waiting?.resume(returning: value)
    }
}
