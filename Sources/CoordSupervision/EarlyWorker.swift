import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The app process the launcher (`coordsh`, Sources/coordsh/launcher.c) started beside this
/// front when its command line looked supervised, so that the two starts overlap. It waits,
/// loaded but doing nothing, for its options on its control channel (`EarlyWorkerStart`).
///
/// The launcher names it in `COORDSH_EARLY_WORKER` ("PID CONTROL STDERR"); the first use of
/// this type takes the variable out of the environment (no child of this process inherits it)
/// and marks the two descriptors close-on-exec. A supervised shell `claim`s it as its first
/// worker; every other path `discard`s it. A variable that does not name a child of this
/// process with two open descriptors is ignored: the front then starts its worker itself.
@MainActor
package enum EarlyWorker {
    package static let variable = "COORDSH_EARLY_WORKER"

    package struct Started: Sendable {
        package let pid: pid_t
        package let control: Int32
        package let stderr: Int32

        /// Ends it: its channel closed (it exits by itself then), killed at once anyway, reaped.
        package func end() {
            close(control)
            close(stderr)
            kill(pid, SIGKILL)
            var status: Int32 = 0
            while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        }
    }

    private static var waiting: Started? = takeFromEnvironment()

    /// The early worker for this front's first worker, once; nil when there is none.
    package static func claim() -> Started? {
        defer { waiting = nil }
        return waiting
    }

    /// Ends the early worker, if there is one (this front does not run supervised).
    package static func discard() {
        claim()?.end()
    }

    private static func takeFromEnvironment() -> Started? {
        guard let value = getenv(variable).map({ String(cString: $0) }) else { return nil }
        unsetenv(variable)
        let numbers = value.split(separator: " ").compactMap { Int32($0) }
        guard numbers.count == 3, numbers[0] > 0, numbers[1] > 2, numbers[2] > 2, numbers[1] != numbers[2] else { return nil }
        let started = Started(pid: numbers[0], control: numbers[1], stderr: numbers[2])
        // Still running, and this process's child (the launcher became this process).
        var status: Int32 = 0
        guard waitpid(started.pid, &status, WNOHANG) == 0 else {
            close(started.control)
            close(started.stderr)
            return nil
        }
        for descriptor in [started.control, started.stderr] {
            guard fcntl(descriptor, F_SETFD, FD_CLOEXEC) == 0 else { return nil }
        }
        return started
    }
}
