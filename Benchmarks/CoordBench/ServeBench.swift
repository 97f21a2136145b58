import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import CoordClient
import Foundation
import Histogram
import Synchronization

/// `run` through `coordsh serve --single-process`'s socket with 1, 4 and 16 clients, against
/// the same commands run in-process on one scene of an app built as the server builds its own
/// (the same plugins, config and database); then through a supervised `coordsh serve` (the
/// default: a front relaying to a worker) against the single-process server, and the time from
/// a worker's crash to every scene restored, with 1 and 16 scenes.
///
/// The in-process figure is `Session.run` alone: what the shell pays per line before it prints.
/// Through the socket a command also pays the request's frame and JSON both ways, the hop from
/// NIO's thread to the main queue, the reply's JSON document and frame, and two wake-ups. Each
/// client runs its own scene (its own guest cart) and waits for each answer before sending the
/// next, as `coordsh connect -f` does. Rounds alternate in-process and socket, medians taken.
enum ServeBench {
    static let rounds = 3
    /// Commands per measured run: per client for the socket runs, in all in-process.
    static let inProcessCommands = 4000
    static let clientCommands = [1: 4000, 4: 1000, 16: 400]
    static let warmUp = 40

    /// The same cycle as the batch benchmark: show a product, add it, show the cart, remove it.
    @Sendable static func line(_ index: Int, client: Int) -> String {
        let id = (index / 4 + client * 7) % 60 + 1
        switch index % 4 {
        case 0: return "content show \(id)"
        case 1: return "cart add \(id)"
        case 2: return "cart show"
        default: return "cart remove \(id)"
        }
    }

    /// One measured run: commands per second over the run, and each command's latency.
    struct Sample {
        let rate: Double
        let latencies: Histogram<UInt64>
    }

    @MainActor
    static func run(_ env: BenchEnvironment) throws -> [ResultRow] {
        let base = env.scratch + "/serve-base.sqlite"
        // Seeds the catalog. The in-process app vets the plugins again (with coordsh): a
        // verdict is cached per vetting host, and this process is another.
        precondition(env.run(["--config", env.shippedConfig, "--db", base, "-c", "cart show"]).status == 0)
        // The in-process app reads its folders from this process's environment; the sections
        // after this one get theirs back (`plugin-build` looks for `swift` on the PATH).
        let saved = env.environment.keys.map { key in (key, getenv(key).map { String(cString: $0) }) }
        for (key, value) in env.environment { setenv(key, value, 1) }
        defer {
            for (key, value) in saved {
                if let value { setenv(key, value, 1) } else { unsetenv(key) }
            }
        }

        let (host, session) = try inProcessHost(env, database: BatchBench.copy(base, to: env.scratch + "/serve-inprocess.sqlite"))
        defer { withExtendedLifetime(host) {} }  // a session does not keep its host alive
        let server = try ServerProcess(env, database: BatchBench.copy(base, to: env.scratch + "/serve-socket.sqlite"), arguments: ["--single-process"])
        defer { server.stop() }
        let front = try ServerProcess(env, database: BatchBench.copy(base, to: env.scratch + "/serve-front.sqlite"), name: "front")
        defer { front.stop() }

        var inProcess: [Sample] = [], echoInProcess: [Sample] = [], echoSocket: [Sample] = []
        var socket: [Int: [Sample]] = [:], supervised: [Int: [Sample]] = [:], echoFront: [Sample] = []
        let echo: @Sendable (Int, Int) -> String = { _, _ in "echo ok" }
        for round in 0..<rounds {
            echoInProcess.append(try measureInProcess(session, round: round, lines: echo))
            echoSocket.append(try measureSocket(server.socket, clients: 1, lines: echo))
            echoFront.append(try measureSocket(front.socket, clients: 1, lines: echo))
            inProcess.append(try measureInProcess(session, round: round))
            for clients in clientCommands.keys.sorted() {
                socket[clients, default: []].append(try measureSocket(server.socket, clients: clients))
            }
            for clients in [1, 16] {
                supervised[clients, default: []].append(try measureSocket(front.socket, clients: clients))
            }
        }

        let echoLocal = summary(echoInProcess), echoRemote = summary(echoSocket)
        let local = summary(inProcess)
        var rows = [ResultRow(
            measurement: "transport alone: 'echo ok', 1 client", figure: String(format: "p50 %.1f µs", echoRemote.p50),
            baseline: String(format: "in-process p50 %.1f µs", echoLocal.p50),
            ratio: String(format: "+%.1f µs per command, p99 %.1f µs", echoRemote.p50 - echoLocal.p50, echoRemote.p99),
            goal: "", verdict: ""), ResultRow(
            measurement: "in-process run, 1 scene", figure: String(format: "%.0f cmd/s", local.rate),
            baseline: "", ratio: String(format: "p50 %.1f µs, p99 %.1f µs", local.p50, local.p99), goal: "", verdict: "")]
        for clients in clientCommands.keys.sorted() {
            let remote = summary(socket[clients] ?? [])
            let added = remote.p50 - local.p50
            let rateRatio = remote.rate / local.rate
            rows.append(ResultRow(
                measurement: "socket run, \(clients) client\(clients == 1 ? "" : "s")", figure: String(format: "%.0f cmd/s", remote.rate),
                baseline: String(format: "in-process %.0f cmd/s", local.rate),
                ratio: String(format: "%.2f× rate, p50 %.1f µs (+%.1f), p99 %.1f µs", rateRatio, remote.p50, added, remote.p99),
                goal: clients == 1 ? "≤ +50 µs p50" : clients == 16 ? "≥ 0.8× rate" : "",
                verdict: clients == 1 ? met(added <= 50) : clients == 16 ? met(rateRatio >= 0.8) : ""))
        }
        // The supervised server: each command also crosses the front↔worker socketpair.
        let echoRelay = summary(echoFront)
        rows.append(ResultRow(
            measurement: "supervised serve: 'echo ok', 1 client", figure: String(format: "p50 %.1f µs", echoRelay.p50),
            baseline: String(format: "single-process p50 %.1f µs", echoRemote.p50),
            ratio: String(format: "hop +%.1f µs p50, p99 %.1f µs", echoRelay.p50 - echoRemote.p50, echoRelay.p99),
            goal: "hop ≤ +50 µs p50", verdict: met(echoRelay.p50 - echoRemote.p50 <= 50)))
        for clients in [1, 16] {
            let relayed = summary(supervised[clients] ?? []), direct = summary(socket[clients] ?? [])
            rows.append(ResultRow(
                measurement: "supervised serve, \(clients) client\(clients == 1 ? "" : "s")", figure: String(format: "%.0f cmd/s", relayed.rate),
                baseline: String(format: "single-process %.0f cmd/s", direct.rate),
                ratio: String(format: "%.2f× rate, p50 %.1f µs (+%.1f), p99 %.1f µs", relayed.rate / direct.rate, relayed.p50, relayed.p50 - direct.p50, relayed.p99),
                goal: "", verdict: ""))
        }
        rows += try restoreRows(env, base: base)
        return rows
    }

    // MARK: Restore after a crash

    /// A supervised server with `scenes` clients, each on the cart page with a line in its own
    /// guest cart; its worker is SIGKILLed and the time taken until every client has been told
    /// its scene is restored (a new worker started, every scene's page and cart back). A fresh
    /// server per round: the second and third crash in five minutes wait 0.2 s and 0.4 s
    /// before the restart (the backoff), which is not what is measured here.
    static func restoreRows(_ env: BenchEnvironment, base: String) throws -> [ResultRow] {
        var rows: [ResultRow] = []
        for scenes in [1, 16] {
            var times: [Double] = []
            for round in 0..<5 {
                let server = try ServerProcess(
                    env, database: BatchBench.copy(base, to: env.scratch + "/serve-restore\(scenes)-\(round).sqlite"), name: "restore\(scenes)-\(round)")
                defer { server.stop() }
                times.append(try timeRestore(server, scenes: scenes))
            }
            let restore = median(times)
            rows.append(ResultRow(
                measurement: "restore after a crash, \(scenes) scene\(scenes == 1 ? "" : "s")", figure: ms(restore),
                baseline: "SIGKILL → every client told", ratio: String(format: "%.1f ms per scene", restore * 1000 / Double(scenes)),
                goal: scenes == 16 ? "≤ 200 ms" : "", verdict: scenes == 16 ? met(restore <= 0.2) : ""))
        }
        return rows
    }

    static func timeRestore(_ server: ServerProcess, scenes: Int) throws -> Double {
        let clients = try (0..<scenes).map { index -> ServerConnection in
            let connection = try ServerConnection(path: server.socket)
            try connection.write(.hello(version: WireProtocol.version, client: "CoordBench"))
            guard case .hello = try connection.receive() else { throw BenchFailure("no hello") }
            for line in ["content show \(index + 1)", "cart add \(index + 1)", "cart show"] { try run(connection, line) }
            return connection
        }
        guard let worker = server.workerPID() else { throw BenchFailure("no worker under the supervised server") }
        let start = now()
        kill(worker, SIGKILL)
        for client in clients {
            let deadline = Date().addingTimeInterval(30)
            while !client.takePushed().contains(where: { $0.text.contains("your scene was restored, back at cart/cart") }) {
                guard Date() < deadline else { throw BenchFailure("a scene was not restored within 30 s") }
                usleep(50)
            }
        }
        let elapsed = Double(now() - start) / 1e9
        // Each scene is where it was, with its own cart.
        for (index, client) in clients.enumerated() {
            let id = client.newID()
            try client.write(.run(id: id, line: "cart show", secrets: []))
            guard case .result(let result) = try client.answer(to: id), result.route == "cart/cart",
                result.lines.contains(where: { $0.contains("#\(index + 1) ") })
            else { throw BenchFailure("scene \(index) was not restored with its cart") }
        }
        return elapsed
    }

    /// Medians over the rounds of the rate and of each round's p50 and p99 (µs).
    static func summary(_ samples: [Sample]) -> (rate: Double, p50: Double, p99: Double) {
        (median(samples.map(\.rate)),
         median(samples.map { Double($0.latencies.valueAtPercentile(50)) / 1000 }),
         median(samples.map { Double($0.latencies.valueAtPercentile(99)) / 1000 }))
    }

    static func newHistogram() -> Histogram<UInt64> {
        Histogram<UInt64>(highestTrackableValue: 60_000_000_000, numberOfSignificantValueDigits: .three)
    }

    // MARK: In-process

    @MainActor
    static func inProcessHost(_ env: BenchEnvironment, database: String) throws -> (AppHost, Session) {
        let config = try ConfigDiscovery.load(option: env.shippedConfig)
        let host = AppHost(config: config, databaseOverride: database)
        host.vettingExecutable = env.coordsh
        let report = host.start(extraPluginDirectories: [], secrets: NoTerminalSecrets())
        // (Refusals are not fatal: a release build leaves other libraries, such as GRDB's
        // dynamic product, beside the plugins, and coordsh refuses them the same way.)
        guard report.databaseWarning == nil, host.app.features.features.count == 4 else {
            throw BenchFailure("the in-process app did not start as coordsh does: \(report.databaseWarning ?? "") \(report.refusals) \(host.app.features.features.map(\.definition.name))")
        }
        return (host, host.openSession(identifier: "bench", visitor: SceneVisitor(key: "bench", endsWithScene: true)))
    }

    @MainActor
    static func measureInProcess(_ session: Session, round: Int, lines line: (Int, Int) -> String = line) throws -> Sample {
        for index in 0..<warmUp { _ = session.run(line(index, round)) }
        var latencies = newHistogram()
        let start = now()
        for index in 0..<inProcessCommands {
            let began = now()
            let reply = session.run(line(index, round))
            precondition(reply.error == nil, "in-process: \(reply.error.map { "\($0)" } ?? "")")
            latencies.record(now() - began)
        }
        return Sample(rate: Double(inProcessCommands) / (Double(now() - start) / 1e9), latencies: latencies)
    }

    // MARK: Through the socket

    /// `clients` threads, each its own connection and scene, started together after a warm-up;
    /// the rate is every command over the time from the first start to the last finish.
    static func measureSocket(_ socket: String, clients: Int, lines line: @escaping @Sendable (Int, Int) -> String = line) throws -> Sample {
        let commands = clientCommands[clients] ?? 1000
        let results = Mutex<[(start: UInt64, end: UInt64, latencies: [UInt64])]>([])
        let failures = Mutex<[String]>([])
        let ready = DispatchSemaphore(value: 0), go = DispatchSemaphore(value: 0), done = DispatchGroup()
        for client in 0..<clients {
            done.enter()
            Thread.detachNewThread {
                defer { done.leave() }
                do {
                    let connection = try ServerConnection(path: socket)
                    try connection.write(.hello(version: WireProtocol.version, client: "CoordBench"))
                    guard case .hello = try connection.receive() else { throw BenchFailure("no hello") }
                    for index in 0..<warmUp { try run(connection, line(index, client)) }
                    ready.signal()
                    go.wait()
                    var latencies: [UInt64] = []
                    latencies.reserveCapacity(commands)
                    let start = now()
                    for index in 0..<commands {
                        let began = now()
                        try run(connection, line(index, client))
                        latencies.append(now() - began)
                    }
                    let end = now()
                    results.withLock { $0.append((start, end, latencies)) }
                } catch {
                    ready.signal()
                    failures.withLock { $0.append("client \(client): \(error)") }
                }
            }
        }
        for _ in 0..<clients { ready.wait() }
        for _ in 0..<clients { go.signal() }
        done.wait()
        let problems = failures.withLock { $0 }
        guard problems.isEmpty else { throw BenchFailure(problems.joined(separator: "; ")) }
        let runs = results.withLock { $0 }
        var latencies = newHistogram()
        for value in runs.flatMap(\.latencies) { latencies.record(value) }
        let span = (runs.map(\.end).max() ?? 0) - (runs.map(\.start).min() ?? 0)
        return Sample(rate: Double(clients * commands) / (Double(span) / 1e9), latencies: latencies)
    }

    static func run(_ connection: ServerConnection, _ line: String) throws {
        let id = connection.newID()
        // As `coordsh connect` printing text asks: the lines, no --json document.
        try connection.write(.run(id: id, line: line, secrets: [], document: false))
        guard case .result(let result) = try connection.answer(to: id), result.error == nil else {
            throw BenchFailure("'\(line)' failed through the socket")
        }
    }

    /// `coordsh serve` on a private socket, stopped with SIGTERM.
    final class ServerProcess {
        let process = Process()
        let socket: String

        init(_ env: BenchEnvironment, database: String, name: String = "bench", arguments: [String] = []) throws {
            let folder = env.scratch + "/run"
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            socket = folder + "/\(name).sock"
            process.executableURL = URL(fileURLWithPath: env.coordsh)
            process.arguments = ["serve", "--socket", socket, "--config", env.shippedConfig, "--db", database] + arguments
            process.environment = env.environment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: socket) {
                guard process.isRunning, Date() < deadline else { throw BenchFailure("coordsh serve did not start") }
                usleep(10_000)
            }
        }

        func stop() {
            process.terminate()
            process.waitUntilExit()
        }

        /// The supervised server's worker: its child process, found in /proc.
        func workerPID() -> pid_t? {
            let front = process.processIdentifier
            let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
            return entries.compactMap(Int32.init).first { pid in
                guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                    let close = stat.range(of: ")", options: .backwards)
                else { return false }
                let fields = stat[close.upperBound...].split(separator: " ")
                return fields.count > 1 && Int32(fields[1]) == front
            }
        }
    }
}
