import CoordRuntime
import CoordShell
import CoordShop
import Foundation

/// What scoping each feature's data and services costs (issue 34): the shop's cart cycle —
/// `content show`, `cart add`, `cart show`, `cart remove`, every statement of the plugins
/// checked as theirs — run in this process on two apps started alike from copies of one
/// database, one with the scoping (as coordsh always runs) and one without, interleaved
/// round by round. The ratio is the figure; the goal is within 1.05× of the app without it.
@MainActor
enum GuardBench {
    static let cycles = 2_000
    static let rounds = 7

    static func run(_ env: BenchEnvironment) throws -> [ResultRow] {
        let base = env.scratch + "/guard-base.sqlite"
        precondition(env.run(["--config", env.shippedConfig, "--db", base, "-c", "cart show"]).status == 0)
        func host(_ name: String, scoped: Bool) throws -> (AppHost, Session) {
            let path = env.scratch + "/guard-\(name).sqlite"
            try? FileManager.default.removeItem(atPath: path)
            try FileManager.default.copyItem(atPath: base, toPath: path)
            let config = try ConfigDiscovery.load(option: env.shippedConfig)
            let host = AppHost(config: config, databaseOverride: path)
            host.vettingExecutable = env.coordsh
            host.scopesFeatures = scoped
            _ = host.start(extraPluginDirectories: [], secrets: NoTerminalSecrets())
            return (host, host.openSession(identifier: "bench", guestCart: GuestCart(owner: .guest("bench-\(name)"), endsWithScene: true)))
        }
        let (scopedHost, scoped) = try host("scoped", scoped: true)
        let (plainHost, plain) = try host("plain", scoped: false)
        func cycle(_ session: Session) -> Double {
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
        // One cycle each first: plugins loaded, statements prepared, verdicts made.
        _ = cycle(scoped)
        _ = cycle(plain)
        var scopedSamples: [Double] = [], plainSamples: [Double] = []
        for round in 0..<rounds {
            if round % 2 == 0 {
                scopedSamples.append(cycle(scoped))
                plainSamples.append(cycle(plain))
            } else {
                plainSamples.append(cycle(plain))
                scopedSamples.append(cycle(scoped))
            }
        }
        let withScope = median(scopedSamples), without = median(plainSamples), ratio = withScope / without
        let compiled = scopedHost.access.statementsCompiled
        _ = plainHost
        return [
            ResultRow(
                measurement: "cart cycle per command, data scoped", figure: String(format: "%.1f µs", withScope),
                baseline: String(format: "same app unscoped %.1f µs", without),
                ratio: String(format: "%.3f× unscoped; %d statements compiled to decide", ratio, compiled),
                goal: "≤ 1.05×", verdict: met(ratio <= 1.05)),
        ]
    }
}
