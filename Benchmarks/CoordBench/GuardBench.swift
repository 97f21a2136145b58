import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// What scoping each feature's data and services costs (issue 34): the shop's cart cycle —
/// `content show`, `cart add`, `cart show`, `cart remove`, every statement of the plugins
/// checked as theirs — run in this process on two apps started alike from copies of one
/// database, one with the scoping (as coordsh always runs) and one without, back to back in
/// each round (which goes first alternates). The figure is the median of the rounds' ratios —
/// on this shared machine a whole round drifts by ±15 %, a ratio within a round much less —
/// and the goal is within 1.05× of the app without it.
@MainActor
enum GuardBench {
    static let cycles = 500
    static let rounds = 21

    static func run(_ env: BenchEnvironment) throws -> [ResultRow] {
        let base = env.scratch + "/guard-base.sqlite"
        precondition(env.run(["--config", env.shippedConfig, "--db", base, "-c", "cart show"]).status == 0)
        func host(_ name: String, scoped: Bool) throws -> (AppHost, Session) {
            // In memory (/dev/shm when there is one): the scoping costs CPU, not I/O, and the
            // disk's jitter would drown it.
            let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : env.scratch
            let path = folder + "/coordsh-bench-\(getpid())-guard-\(name).sqlite"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: base, toPath: path)
            let config = try ConfigDiscovery.load(option: env.shippedConfig)
            let host = AppHost(config: config, databaseOverride: path)
            host.vettingExecutable = env.coordsh
            host.scopesFeatures = scoped
            _ = host.start(extraPluginDirectories: [], secrets: NoTerminalSecrets())
            return (host, host.openSession(identifier: "bench", visitor: SceneVisitor(key: "bench-\(name)", endsWithScene: true)))
        }
        defer {
            for name in ["scoped", "plain", "control"] {
                for suffix in ["", "-wal", "-shm"] { unlink("/dev/shm/coordsh-bench-\(getpid())-guard-\(name).sqlite\(suffix)") }
            }
        }
        let (scopedHost, scoped) = try host("scoped", scoped: true)
        let (plainHost, plain) = try host("plain", scoped: false)
        // A second unscoped app: the ratio of the two unscoped ones is the noise floor.
        let (controlHost, control) = try host("control", scoped: false)
        func cycle(_ session: Session) -> Double { Self.cartCycle(session, cycles: cycles) }
        // One cycle each first: plugins loaded, statements prepared, verdicts made.
        for session in [scoped, plain, control] { _ = cycle(session) }
        var scopedSamples: [Double] = [], plainSamples: [Double] = [], ratios: [Double] = [], controlRatios: [Double] = []
        for round in 0..<rounds {
            // Which app goes first, second and third rotates from round to round.
            var times: [Int: Double] = [:]
            for slot in 0..<3 {
                let which = (slot + round) % 3
                times[which] = cycle([scoped, plain, control][which])
            }
            scopedSamples.append(times[0] ?? 0)
            plainSamples.append(times[1] ?? 0)
            ratios.append((times[0] ?? 0) / (times[1] ?? 1))
            controlRatios.append((times[2] ?? 0) / (times[1] ?? 1))
        }
        let withScope = median(scopedSamples), without = median(plainSamples), ratio = median(ratios)
        let compiled = scopedHost.access.statementsCompiled
        _ = (plainHost, controlHost)
        return [
            ResultRow(
                measurement: "cart cycle per command, data scoped", figure: String(format: "%.1f µs", withScope),
                baseline: String(format: "same app unscoped %.1f µs", without),
                ratio: String(format: "%.3f× unscoped (rounds %.2f–%.2f); %d compiled", ratio, ratios.min() ?? 0, ratios.max() ?? 0, compiled),
                goal: "≤ 1.05×", verdict: met(ratio <= 1.05)),
            ResultRow(
                measurement: "the same, unscoped against unscoped", figure: String(format: "%.3f×", median(controlRatios)),
                baseline: "the noise floor of the ratio above",
                ratio: String(format: "rounds %.2f–%.2f", controlRatios.min() ?? 0, controlRatios.max() ?? 0),
                goal: "", verdict: nil),
        ]
    }
}

extension GuardBench {
    /// µs per command of `cycles` rounds of the shop's cart cycle — `content show`, `cart add`,
    /// `cart show`, `cart remove` — in `session`.
    static func cartCycle(_ session: Session, cycles: Int) -> Double {
        let start = now()
        for index in 0..<cycles {
            let id = index % 60 + 1
            for line in ["content show \(id)", "cart add \(id)", "cart show", "cart remove \(id)"] {
                let reply = session.run(line)
                precondition(reply.error == nil, "\(line): \(reply.error?.message ?? "")")
            }
        }
        return Double(now() - start) / 1e3 / Double(cycles * 4)
    }
}
