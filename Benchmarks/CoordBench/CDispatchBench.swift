import CoordLoading
@_spi(Host) import CoordSDK
import Foundation

/// A message handled by a C plugin's handler (ABI 2, called through libffi with a typed
/// argument) against the same message handled by a Swift handler, both at chain depth 5: a
/// page view, three coordinators, the scene, the app, which routes it to the feature's
/// coordinator. The C plugin is built with the system's `cc` and loaded as coordsh loads one.
@MainActor
enum CDispatchBench {
    /// Many short rounds, each a Swift batch then a C batch, the ratio taken per round: on a
    /// shared machine a slow spell then hits both sides of one ratio instead of one side of it.
    static let iterations = 50_000
    static let rounds = 101

    final class Total { var value = 0 }

    /// The Swift feature: `sbench ping N` adds N to a total, as the C handler does.
    final class SwiftBenchCoordinator: Coordinator {
        let total: Total
        init(total: Total) {
            self.total = total
            super.init(identifier: "sbench")
            handle(MessageName("sbenchPing")) { [unowned self] message in
                self.total.value &+= message.arguments.int("n") ?? 0
                return .handled
            }
        }
    }

    enum SwiftBenchPage: Page {
        case home
        static let feature = "sbench"
        static let cases: [PageCase] = [PageCase("home") { _ in SwiftBenchPage.home }]
        var name: String { "home" }
        var arguments: Arguments { Arguments() }
    }

    /// A page view under three coordinators under `scene`: a message sent from it passes five
    /// levels before the app routes it.
    static func pageThreeDown(in scene: SceneCoordinator) throws -> PageView {
        var parent: Coordinator = scene
        for level in 0..<3 {
            let child = Coordinator(identifier: "c\(level)")
            parent.startChild(child)
            parent = child
        }
        return try parent.show(DispatchBench.BenchPage.home)
    }

    @inline(never) static func send(_ view: PageView, _ message: Message, count: Int) throws {
        for _ in 0..<count { try view.send(message) }
    }

    static func run(_ environment: BenchEnvironment) throws -> [ResultRow] {
        let folder = try environment.folder("c-dispatch")
        let library = folder + "/libcbench.so"
        let compiler = Process()
        compiler.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
        compiler.arguments = [
            "-O2", "-shared", "-fPIC", "-I", environment.packageRoot + "/Sources/SDK/Sources/CCoordABI/include", "-o", library,
            environment.packageRoot + "/Benchmarks/CoordBench/fixtures/bench_c.c",
        ]
        try compiler.run()
        compiler.waitUntilExit()
        guard compiler.terminationStatus == 0 else { throw BenchFailure("cc could not build the C benchmark plugin") }

        let app = AppCoordinator()
        let (image, _, _) = try PluginImage.load(PluginFile(path: library))
        try app.register(try image.register(), origin: nil)
        let total = Total()
        try app.register([FeatureDefinition(
            name: "sbench", prefix: "sbench", pages: SwiftBenchPage.self, messages: [MessageSpec("ping", [Parameter("n", .int)])],
            coordinator: { SwiftBenchCoordinator(total: total) })], origin: nil)
        let view = try Self.pageThreeDown(in: app.makeScene(identifier: "bench"))
        let cMessage = Message(MessageName("cbenchPing"), Arguments([("n", .int(1))]), from: view)
        let swiftMessage = Message(MessageName("sbenchPing"), Arguments([("n", .int(1))]), from: view)
        // Both coordinators started (first use) before anything is timed.
        try view.send(cMessage)
        try view.send(swiftMessage)

        var cNs: [Double] = [], swiftNs: [Double] = [], ratios: [Double] = []
        for _ in 0..<rounds {
            let swift = try DispatchBench.once(count: iterations) { try send(view, swiftMessage, count: iterations) }
            let c = try DispatchBench.once(count: iterations) { try send(view, cMessage, count: iterations) }
            swiftNs.append(swift)
            cNs.append(c)
            ratios.append(c / swift)
        }
        precondition(total.value > 0)
        let ratio = median(ratios)
        return [ResultRow(
            measurement: "C handler via libffi, depth 5", figure: ns(median(cNs)), baseline: "Swift handler \(ns(median(swiftNs)))",
            ratio: times(ratio), goal: "≤ 1.5×", verdict: met(ratio <= 1.5))]
    }
}
