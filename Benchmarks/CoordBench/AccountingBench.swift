import CoordAccounting
import CoordMetrics
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// What counting each plugin's code costs (issue 40, `[plugins] accounting`): the shop's cart
/// cycle (`content show`, `cart add`, `cart show`, `cart remove`) and a Swift feature handler at
/// chain depth 5, each with the clock counting and without, in one app, alternating within
/// every round (which goes first alternates too); the figure is the median of the rounds'
/// ratios. A third side, off against off, is the noise floor.
@MainActor
enum AccountingBench {
    // Many short rounds rather than few long ones: the machine's speed drifts between rounds
    // (off against off spans ±3 % in one round), and the median of the rounds' ratios is what
    // the goal reads.
    static let cycles = 250
    static let rounds = 61
    static let sends = 50_000
    static let dispatchRounds = 101

    static func run(_ env: BenchEnvironment) throws -> [ResultRow] {
        let base = env.scratch + "/accounting-base.sqlite"
        precondition(env.run(["--config", env.shippedConfig, "--db", base, "-c", "cart show"]).status == 0)
        let folder = FileManager.default.fileExists(atPath: "/dev/shm") ? "/dev/shm" : env.scratch
        let path = folder + "/coordsh-bench-\(getpid())-accounting.sqlite"
        try? FileManager.default.removeItem(atPath: path)
        try FileManager.default.copyItem(atPath: base, toPath: path)
        defer { for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) } }
        let host = AppHost(config: try ConfigDiscovery.load(option: env.shippedConfig), databaseOverride: path)
        host.vettingExecutable = env.coordsh
        _ = host.start(extraPluginDirectories: [], secrets: NoTerminalSecrets())
        let session = host.openSession(identifier: "bench", visitor: SceneVisitor(key: "bench-accounting", endsWithScene: true))
        guard let stats = host.stats else { throw BenchFailure("the shipped config counts nothing: [plugins] accounting is off") }
        // Never named slow, whatever the machine does meanwhile.
        stats.slowThreshold = 0

        let shop = compare(rounds: rounds, stats: stats) { GuardBench.cartCycle(session, cycles: cycles) }
        precondition(stats.rows.values.contains { $0.count > 0 }, "nothing was counted")

        // A feature's Swift handler at depth 5: view, three coordinators, the scene, the app,
        // which routes it to the feature's coordinator.
        let total = CDispatchBench.Total()
        try host.app.register([FeatureDefinition(
            name: "sbench", prefix: "sbench", pages: CDispatchBench.SwiftBenchPage.self, messages: [MessageSpec("ping", [Parameter("n", .int)])],
            coordinator: { CDispatchBench.SwiftBenchCoordinator(total: total) })], origin: nil)
        let view = try CDispatchBench.pageThreeDown(in: session.scene)
        let message = Message(MessageName("sbenchPing"), Arguments([("n", .int(1))]), from: view)
        try view.send(message)
        // The clock keeps samples and hands them over in batches: the last batch's report is
        // timed with the calls it counts (a no-op when nothing counts).
        let dispatch = try compare(rounds: dispatchRounds, stats: stats) {
            try DispatchBench.once(count: sends) {
                try CDispatchBench.send(view, message, count: sends)
                stats.settle()
            }
        }
        precondition(total.value > 0)
        // `serve --metrics`: the same handler counted and exported to the Prometheus registry,
        // against counted only (the "off" side here is counting without the sink).
        let metrics = PluginMetrics()
        let exported = try compareExport(rounds: dispatchRounds, stats: stats, sink: metrics) {
            try DispatchBench.once(count: sends) {
                try CDispatchBench.send(view, message, count: sends)
                stats.settle()
            }
        }
        FeatureClock.accounting = stats

        return [
            ResultRow(
                measurement: "cart cycle per command, counted", figure: String(format: "%.1f µs", shop.on),
                baseline: String(format: "not counted %.1f µs", shop.off),
                ratio: String(format: "%.3f× (rounds %.2f–%.2f; off/off %.3f×)", shop.ratio, shop.low, shop.high, shop.floor),
                goal: "≤ 1.03×", verdict: met(shop.ratio <= 1.03)),
            ResultRow(
                measurement: "feature handler, depth 5, counted", figure: ns(dispatch.on), baseline: "not counted \(ns(dispatch.off))",
                ratio: String(format: "%.3f× (rounds %.2f–%.2f; off/off %.3f×)", dispatch.ratio, dispatch.low, dispatch.high, dispatch.floor),
                goal: "≤ 1.1×", verdict: met(dispatch.ratio <= 1.1)),
            ResultRow(
                measurement: "same, also exported (--metrics)", figure: ns(exported.on), baseline: "counted only \(ns(exported.off))",
                ratio: String(format: "%.3f× (rounds %.2f–%.2f; off/off %.3f×)", exported.ratio, exported.low, exported.high, exported.floor),
                goal: "—", verdict: "(serve --metrics only)"),
        ]
    }

    /// As `compare`, with counting on throughout: `sink` set against not set.
    static func compareExport(rounds: Int, stats: PluginStats, sink: PluginMetrics, _ measure: () throws -> Double) rethrows -> (on: Double, off: Double, ratio: Double, low: Double, high: Double, floor: Double) {
        FeatureClock.accounting = stats
        defer { stats.sink = nil }
        return try compare(rounds: rounds, switch: { stats.sink = $0 ? sink : nil }, measure)
    }

    /// `measure` run with the clock counting, without, and without again, in an order that
    /// rotates per round: the medians, the median ratio on/off with its range, and off/off.
    static func compare(rounds: Int, stats: PluginStats, _ measure: () throws -> Double) rethrows -> (on: Double, off: Double, ratio: Double, low: Double, high: Double, floor: Double) {
        try compare(rounds: rounds, switch: { FeatureClock.accounting = $0 ? stats : nil }, measure)
    }

    /// `measure` with `turn(true)` and twice with `turn(false)`, in a rotating order.
    static func compare(rounds: Int, switch turn: (Bool) -> Void, _ measure: () throws -> Double) rethrows -> (on: Double, off: Double, ratio: Double, low: Double, high: Double, floor: Double) {
        var on: [Double] = [], off: [Double] = [], ratios: [Double] = [], floors: [Double] = []
        for round in 0..<rounds {
            var times = [Double](repeating: 0, count: 3)
            for slot in 0..<3 {
                let which = (slot + round) % 3
                turn(which == 0)
                times[which] = try measure()
            }
            on.append(times[0])
            off.append(times[1])
            ratios.append(times[0] / times[1])
            floors.append(times[2] / times[1])
        }
        return (median(on), median(off), median(ratios), ratios.min() ?? 0, ratios.max() ?? 0, median(floors))
    }
}
