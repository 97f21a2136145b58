import CSpawn
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A child process whose stdout and stderr arrive on one pipe, line by line.
///
/// Plugins are vetted and checked in children so that a crash or a hang in a plugin is a
/// result the parent reports, not the end of the shell. This is posix_spawn and poll, no more:
/// the parent must be able to pass one open descriptor down (the plugin file it will load),
/// to give up on a child that stops talking, and to tell an exit from a signal.
final class ChildProcess {
    enum Termination: Equatable {
        case exited(Int32)
        case signaled(Int32)
        /// It said nothing for longer than the idle timeout and was killed.
        case timedOut
    }

    let pid: pid_t
    private var output: Int32
    private var pending: [UInt8] = []
    private var deadline: Double = 0
    private var timedOut = false

    /// Starts `executable` with `arguments` and the parent's environment plus `environment`.
    /// `descriptor`, if given, is available in the child as `as`.
    init(_ executable: String, _ arguments: [String], environment: [String: String] = [:],
         passing descriptor: (fd: Int32, as: Int32)? = nil) throws {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw ChildError("pipe: \(String(cString: strerror(errno)))") }
        // Close-on-exec: no other child (vetting runs several at once) may inherit this pipe.
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 2)
        if let descriptor { posix_spawn_file_actions_adddup2(&actions, descriptor.fd, descriptor.as) }
        // Only what is given crosses: not the other children's pipes, not a server's sockets or
        // a worker's control socket that were opened without close-on-exec.
        coordsh_spawn_close_from(&actions, max(3, (descriptor?.as ?? 2) + 1))

        var env = ProcessInfo.processInfo.environment
        for (key, value) in environment { env[key] = value }
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = env.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for p in argv + envp { free(p) } }
        var child: pid_t = 0
        let status = posix_spawn(&child, executable, &actions, nil, argv, envp)
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            throw ChildError("cannot start \(executable): \(String(cString: strerror(status)))")
        }
        pid = child
        output = pipeEnds[0]
    }

    deinit { if output >= 0 { close(output) } }

    /// Reads every child's output until each has closed it, calling `onLine` with the child's
    /// index and each complete line. A child that is silent for `idleTimeout` seconds is
    /// killed. Then waits for each and returns how it ended.
    static func collect(_ children: [ChildProcess], idleTimeout: Double, onLine: (Int, String) -> Void) -> [Termination] {
        let start = now()
        for child in children { child.deadline = start + idleTimeout }
        while true {
            let open = children.indices.filter { children[$0].output >= 0 }
            if open.isEmpty { break }
            let earliest = open.map { children[$0].deadline }.min()!
            var fds = open.map { pollfd(fd: children[$0].output, events: Int16(POLLIN), revents: 0) }
            let wait = max(0, Int32((earliest - now()) * 1000))
            let ready = poll(&fds, nfds_t(fds.count), wait)
            if ready < 0, errno == EINTR { continue }
            let moment = now()
            for (slot, index) in open.enumerated() {
                let child = children[index]
                if fds[slot].revents != 0 {
                    child.read(moment: moment, idleTimeout: idleTimeout) { onLine(index, $0) }
                } else if moment >= child.deadline {
                    kill(child.pid, SIGKILL)
                    child.timedOut = true
                    child.finish { onLine(index, $0) }
                }
            }
        }
        return children.map { $0.wait() }
    }

    private func read(moment: Double, idleTimeout: Double, _ onLine: (String) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let got = buffer.withUnsafeMutableBytes { Glibc.read(output, $0.baseAddress, $0.count) }
        if got <= 0 {
            if got < 0, errno == EINTR { return }
            finish(onLine)
            return
        }
        deadline = moment + idleTimeout
        pending += buffer.prefix(got)
        while let newline = pending.firstIndex(of: 10) {
            onLine(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
    }

    private func finish(_ onLine: (String) -> Void) {
        if !pending.isEmpty { onLine(String(decoding: pending, as: UTF8.self)) }
        pending = []
        close(output)
        output = -1
    }

    private func wait() -> Termination {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        if timedOut { return .timedOut }
        // WIFEXITED / WTERMSIG are macros Swift cannot import.
        let signal = status & 0x7F
        return signal == 0 ? .exited((status >> 8) & 0xFF) : .signaled(signal)
    }

    private static func now() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return Double(time.tv_sec) + Double(time.tv_nsec) / 1e9
    }

    /// `SIGSEGV (Segmentation fault)`.
    static func describe(signal: Int32) -> String {
        let names: [Int32: String] = [
            SIGILL: "SIGILL", SIGTRAP: "SIGTRAP", SIGABRT: "SIGABRT", SIGBUS: "SIGBUS", SIGFPE: "SIGFPE",
            SIGKILL: "SIGKILL", SIGSEGV: "SIGSEGV", SIGPIPE: "SIGPIPE", SIGTERM: "SIGTERM", SIGSYS: "SIGSYS",
        ]
        let text = strsignal(signal).map { String(cString: $0) } ?? "signal \(signal)"
        return "\(names[signal] ?? "signal \(signal)") (\(text))"
    }
}

struct ChildError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// A signal as a person reads it, e.g. `SIGILL (Illegal instruction)`: how a crashed child
/// (a vetting process, a supervised shell's worker) is reported.
public func describeSignal(_ signal: Int32) -> String {
    ChildProcess.describe(signal: signal)
}
