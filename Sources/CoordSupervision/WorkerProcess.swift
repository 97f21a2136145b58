import CMemoryFile
import CSocketPass
import CSpawn
import CStackReport
import CoordAccounting
import CoordClient
import CoordProtocol
import CoordRuntime
import CoordSession
import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A `coordsh-server worker` child of a supervised front: started with one end of a control
/// socketpair as its descriptor 3, over which the front hands it one end of a new socketpair
/// per scene (`openScene`); in a process group of its own (Ctrl-C at the prompt is the front's, not
/// the worker's), its stderr kept for the crash report, and `SWIFT_BACKTRACE` off so that a
/// trap ends it at once with its one "Fatal error" line instead of a backtrace.
@MainActor
package final class WorkerProcess {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        package init(description: String) { self.description = description }
    }

    package let pid: pid_t
    /// The front's end of the control socketpair: scene connections are sent over it, and it
    /// reads as closed once the worker is gone.
    let control: Int32
    /// The plugins it loaded ("NAME VERSION"), from its first hello (see `probe`, `learn`).
    package private(set) var plugins: [PluginIdentity] = []
    /// What it said at start-up (refused plugins, a database warning).
    private(set) var startNotices: [ServerReply.Notice] = []
    /// The memory file the worker notes the command it is running in (see `RunningMarker`):
    /// this front's own, shared with this worker only, read after a crash; closed with it.
    private let marker: Int32
    private let output: OutputTail

    /// `echo`: what the worker writes to stderr (its log) is also written to this process's
    /// stderr — a supervised server's log holds its worker's. `database`: the `--db` the
    /// worker opens (see `WireProtocol.workerDatabaseVariable`). `handing`: descriptors the
    /// worker gets as 4, 5, … (the end of `serve --metrics`'s channel); nothing else crosses.
    /// `history`: its front's workers so far (see `WorkerHistory`). Its marker follows what
    /// it is handed (`WireProtocol.workerRunningVariable` names the descriptor).
    package init(
        executable: String, arguments: [String], database: String? = nil, echo: Bool = false, handing: [Int32] = [],
        history: WorkerHistory = WorkerHistory()
    ) throws {
        let marker = try Self.makeMarker()
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            close(marker)
            throw Failure(description: "cannot make a socketpair: \(String(cString: strerror(errno)))")
        }
        var errPipe: [Int32] = [-1, -1]
        guard pipe(&errPipe) == 0 else {
            close(pair[0]); close(pair[1]); close(marker)
            throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))")
        }
        // Close-on-exec for the front's ends; the child gets its own through dup2.
        for fd in [errPipe[0], errPipe[1]] { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
        posix_spawn_file_actions_adddup2(&actions, pair[1], 3)
        // Nothing else crosses: not a server's listening or accepted sockets (SwiftNIO opens
        // them without close-on-exec), which would outlive a killed front in its worker.
        for (offset, descriptor) in handing.enumerated() {
            posix_spawn_file_actions_adddup2(&actions, descriptor, Int32(4 + offset))
        }
        let markerTarget = Int32(4 + handing.count)
        posix_spawn_file_actions_adddup2(&actions, marker, markerTarget)
        coordsh_spawn_close_from(&actions, markerTarget + 1)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP))
        posix_spawnattr_setpgroup(&attributes, 0)
        var environment = ProcessInfo.processInfo.environment
        for name in Self.startVariables { environment[name] = nil }
        for (name, value) in Self.startEnvironment(database: database, marker: markerTarget, history: history) { environment[name] = value }
        environment["SWIFT_BACKTRACE"] = ChildBacktrace.setting
        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(pair[1])
        close(errPipe[1])
        guard spawned == 0 else {
            close(pair[0]); close(errPipe[0]); close(marker)
            throw Failure(description: "\(executable): \(String(cString: strerror(spawned)))")
        }
        pid = child
        self.marker = marker
        output = OutputTail(descriptor: errPipe[0], echo: echo)
        control = pair[0]
    }

    /// Takes the app process the launcher started (`EarlyWorker`) as this front's first worker:
    /// tells it, as the first thing on its control channel, the environment and `arguments` it
    /// would have been started with (`EarlyWorkerStart`). Throws when it is gone.
    package init(adopting early: EarlyWorker.Started, arguments: [String], database: String? = nil, history: WorkerHistory = WorkerHistory()) throws {
        let marker: Int32
        do {
            marker = try Self.makeMarker()
        } catch {
            early.end()
            throw error
        }
        // The marker's descriptor is the worker's to name: it comes with the message's first
        // bytes, and the worker sets the variable to the number it received it as.
        let start = EarlyWorkerStart(
            environment: Self.startEnvironment(database: database, marker: nil, history: history).map { (name: $0.0, value: $0.1) },
            arguments: Array(arguments.drop { $0 == "worker" }))
        guard let message = start.encoded() else {
            close(marker)
            early.end()
            throw Failure(description: "the app process's options hold a NUL byte or are longer than \(EarlyWorkerStart.maxBytes) bytes")
        }
        var sent = 0
        while sent < message.count {
            let count = message[sent...].withUnsafeBytes { bytes in
                sent == 0
                    ? coordsh_send_bytes_fd(early.control, bytes.baseAddress, UInt(bytes.count), marker)
                    : send(early.control, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL))
            }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let reason = String(cString: strerror(errno))
                close(marker)
                early.end()
                throw Failure(description: "the app process the launcher started (pid \(early.pid)) is gone: \(reason)")
            }
            sent += count
        }
        pid = early.pid
        self.marker = marker
        output = OutputTail(descriptor: early.stderr, echo: false)
        control = early.control
    }

    /// A new marker: a sealed memory file of `RunningMarker`'s size, in no folder — nothing
    /// to plant, read or leave behind in a shared temporary folder — and shared with one
    /// worker, so that a crash reports that worker's command only.
    private nonisolated static func makeMarker() throws -> Int32 {
        let descriptor = coordsh_memory_file("coordsh-running", WireProtocol.workerRunningBytes)
        guard descriptor >= 0 else {
            throw Failure(description: "cannot make the running marker: \(String(cString: strerror(errno)))")
        }
        return descriptor
    }

    /// The variables a worker is started with beyond its front's environment: a spawned
    /// worker's are removed from what it inherits, an early worker removes them before it
    /// sets the front's (`Worker.awaitEarlyStart`), so none is ever inherited stale.
    package nonisolated static let startVariables = [WireProtocol.workerRunningVariable, WireProtocol.workerDatabaseVariable, WorkerHistory.variable]

    /// Their values for one start: the descriptor it notes its running command in (an early
    /// worker's is set by itself), the front's `--db` (see `WireProtocol.workerDatabaseVariable`),
    /// the front's history of workers.
    static func startEnvironment(database: String?, marker: Int32?, history: WorkerHistory) -> [(String, String)] {
        var environment = marker.map { [(WireProtocol.workerRunningVariable, "\($0)")] } ?? []
        if let database { environment.append((WireProtocol.workerDatabaseVariable, database)) }
        if !history.isEmpty { environment.append((WorkerHistory.variable, history.encoded)) }
        return environment
    }

    deinit {
        close(control)
        close(marker)
    }

    /// A new connection to the worker for one scene: a socketpair whose other end is handed to
    /// the worker, which says hello on it like a server to a client.
    func openScene() throws -> ServerConnection {
        var pair: [Int32] = [-1, -1]
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pair) == 0 else {
            throw Failure(description: "cannot make a socketpair: \(String(cString: strerror(errno)))")
        }
        defer { close(pair[1]) }
        guard coordsh_send_fd(control, pair[1]) == 0 else {
            close(pair[0])
            throw Failure(description: "the app process (pid \(pid)) is gone: \(String(cString: strerror(errno)))")
        }
        return ServerConnection(descriptor: pair[0], path: "the app process (pid \(pid))")
    }

    /// Says hello on a scene of its own and waits for the answer: what plugins it loaded and
    /// what it said at start-up, then closes that scene. It is also the proof that the worker
    /// started (a crash while loading shows here).
    func probe(timeout: Double?) throws {
        let connection = try openScene()
        connection.answerTimeout = timeout
        try connection.write(.hello(version: WireProtocol.version, client: "coordsh front", scene: "probe"))
        guard case .hello(let hello) = try connection.answer(to: 0) else {
            throw Failure(description: "the app process (pid \(pid)) did not answer hello")
        }
        plugins = hello.plugins
        startNotices = hello.notices
        connection.shutdown()
    }

    /// What its first scene's hello said it loaded (when it was not probed).
    func learn(plugins: [PluginIdentity]) {
        self.plugins = plugins
    }

    /// True once the worker is gone (its end of the control socketpair closed). It never
    /// writes there, so anything readable is the end.
    package var hasEnded: Bool {
        var byte: UInt8 = 0
        let count = recv(control, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// How it ended, waiting up to `seconds` for it (a worker whose connection broke is on its
    /// way out), then killing it.
    func reap(seconds: Double = 2) -> String {
        guard !reaped else { return endedBy }
        reaped = true
        endedBy = waitForExit(seconds: seconds)
        return endedBy
    }

    private var reaped = false
    private var endedBy = ""
    /// The signal that ended it, once reaped (0 for an exit).
    private(set) var signal: Int32 = 0

    /// True when it ended by its own fault: a trap (Swift's are SIGILL or SIGTRAP), a memory
    /// error, an abort, or an exit with a failure status — not a signal sent from outside
    /// (SIGKILL from the OOM killer or a person, SIGTERM), which says nothing of the plugin.
    var endedByItself: Bool {
        ![SIGKILL, SIGTERM, SIGINT, SIGHUP].contains(signal)
    }

    private func waitForExit(seconds: Double) -> String {
        var status: Int32 = 0
        let deadline = Date().addingTimeInterval(seconds)
        // A pidfd is readable when the process ends: no polling interval added to the wait
        // (a shell's exit waits for its worker's).
        let pidfd = coordsh_pidfd_open(pid)
        defer { if pidfd >= 0 { close(pidfd) } }
        while waitpid(pid, &status, WNOHANG) == 0 {
            if pidfd >= 0 {
                var entry = pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)
                _ = poll(&entry, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
            }
            if Date() > deadline {
                Glibc.kill(pid, SIGKILL)
                waitpid(pid, &status, 0)
                return "it stopped answering and was killed"
            }
            if pidfd < 0 { usleep(1_000) }
        }
        signal = status & 0x7f
        if signal != 0 { return describeSignal(signal) }
        return "exit status \((status >> 8) & 0xff)"
    }

    /// The "Fatal error" line the Swift runtime printed before the trap, if any. Asked once
    /// the worker has ended: its last words may still be in the pipe, so the reader is given
    /// a moment to reach the end (on a loaded machine the report once went out without them).
    /// The reason a worker gave for refusing to start ("coordsh worker: …" on its stderr: it
    /// may not run plugin code unconfined), once it has ended.
    var startRefusal: String? {
        output.waitForEnd(seconds: 1)
        return output.text().split(separator: "\n").last { $0.hasPrefix("coordsh worker: ") }.map { String($0.dropFirst("coordsh worker: ".count)) }
    }

    var fatalError: String? {
        output.waitForEnd(seconds: 1)
        return output.text().split(separator: "\n").last { $0.contains("Fatal error") }.map { line in
            let text = String(line)
            return text.range(of: "Fatal error").map { String(text[$0.lowerBound...]) } ?? text
        }
    }

    /// The plugin, the scene and the line that were running when it died (the plugin empty
    /// for a built-in).
    package var running: (plugin: String, scene: String, line: String)? {
        // The worker's marker: the text up to its NUL.
        var bytes = [UInt8](repeating: 0, count: WireProtocol.workerRunningBytes)
        let count = bytes.withUnsafeMutableBytes { pread(marker, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[..<count].prefix { $0 != 0 }, as: UTF8.self)
        guard !text.isEmpty else { return nil }
        let parts = text.split(separator: "\t", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        return (String(parts[0]), String(parts[1]), String(parts[2]))
    }

    /// Where its main thread is stuck (`HungStack.culprit`), asked of the worker itself (its
    /// stack report, on SIGUSR2 to that thread) before it is killed as hung; nil when it does
    /// not answer within two seconds (it ends as soon as the report does).
    func stuckIn() -> String? {
        guard !hasEnded, coordsh_signal_main_thread(pid, SIGUSR2) == 0 else { return nil }
        output.waitFor(line: "coordsh worker: end of stack", seconds: 2)
        return HungStack(report: output.text(), pid: pid)?.culprit
    }

    /// Kills it at once (it stopped answering).
    func killNow() {
        Glibc.kill(pid, SIGKILL)
    }

    /// Ends it at once, before its scenes' connections close: a worker whose scenes were
    /// handed over must not close them (closing a scene discards its guest cart, which the
    /// new worker now holds). SIGTERM ends a worker without running anything of its own.
    func terminate() {
        Glibc.kill(pid, SIGTERM)
        _ = reap()
    }

    /// Ends it: with the control channel closed the worker exits by itself. `reaping`: wait
    /// for the process to be gone; without it (a shell that is leaving too), wait only until
    /// the worker has closed its stderr, the last thing it does before it exits — its exit and
    /// the kernel's unmapping of it (≈ 5 ms of every supervised `-c`, BENCHMARKS.md) then
    /// overlap this process's own, and whoever adopts it reaps it. A worker that does not close
    /// it within two seconds is waited for (and killed) as before.
    package func stop(reaping: Bool = true) {
        Glibc.shutdown(control, Int32(SHUT_RDWR))
        if !reaping, output.waitForEnd(seconds: 2) { return }
        _ = reap()
    }
}

/// The last 16 KiB a child wrote to a pipe, read by a thread of its own until the pipe closes,
/// and passed on to this process's stderr when `echo`.
final class OutputTail: @unchecked Sendable {
    private let lock = NSCondition()
    private var bytes: [UInt8] = []
    private var ended = false

    init(descriptor: Int32, echo: Bool) {
        Thread.detachNewThread { [self] in
            var buffer = [UInt8](repeating: 0, count: 4096)
            while true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { break }
                if echo { _ = buffer.withUnsafeBytes { write(STDERR_FILENO, $0.baseAddress, count) } }
                lock.withLock {
                    bytes.append(contentsOf: buffer[0..<count])
                    if bytes.count > 16_384 { bytes.removeFirst(bytes.count - 16_384) }
                    lock.broadcast()
                }
            }
            close(descriptor)
            lock.withLock {
                ended = true
                lock.broadcast()
            }
        }
    }

    func text() -> String {
        lock.withLock { String(decoding: bytes, as: UTF8.self) }
    }

    /// Waits until `line` has been written (or the pipe closed), at most `seconds`.
    func waitFor(line: String, seconds: Double) {
        let deadline = Date(timeIntervalSinceNow: seconds)
        let wanted = Array((line + "\n").utf8)
        lock.withLock {
            while !ended, !bytes.contains(wanted), lock.wait(until: deadline) {}
        }
    }

    /// Waits until the pipe has closed (everything written is read), at most `seconds`; true
    /// when it has.
    @discardableResult
    func waitForEnd(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        return lock.withLock {
            while !ended, lock.wait(until: deadline) {}
            return ended
        }
    }
}
