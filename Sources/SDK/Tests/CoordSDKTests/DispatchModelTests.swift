@_spi(Host) import CoordSDK
import Foundation
import Testing

/// Model-based check of the dispatch executor: thousands of random worlds (several scenes,
/// coordinator trees of depth 1–8, page views, random handler tables and dispositions, handlers
/// with needs, handlers that change the tree while they run), each built twice from one seed.
/// One copy sends every message through the cache (`send(_:)`), the other walks with a trace
/// (`send(_:trace:)`). Both must handle in the same order, end the same way, report the same
/// events and leave the same tree. A failure prints the seed and the step; set
/// `COORDSH_MODEL_SEED` to replay one world.
@Suite("Cached and traced dispatch agree on random worlds")
@MainActor
struct DispatchModelTests {
    /// `COORDSH_MODEL_WORLDS` runs more (or fewer) worlds.
    static let worlds = ProcessInfo.processInfo.environment["COORDSH_MODEL_WORLDS"].flatMap(Int.init) ?? 1000
    static let sendsPerWorld = 30

    @Test("the cached send and the traced walk produce the same outcomes, handler order and tree")
    func cachedMatchesTraced() throws {
        let base = ProcessInfo.processInfo.environment["COORDSH_MODEL_SEED"].flatMap(UInt64.init)
        let seeds: [UInt64] = base.map { [$0] } ?? (0..<UInt64(Self.worlds)).map { 0x5EED_0000 &+ $0 &* 7919 }
        var mutations = 0, cachedRuns = 0
        for seed in seeds {
            let cached = try ModelWorld(seed: seed, cached: true)
            let traced = try ModelWorld(seed: seed, cached: false)
            for step in 0..<Self.sendsPerWorld {
                let a = cached.sendRandom(), b = traced.sendRandom()
                let last = step == Self.sendsPerWorld - 1
                // Per send the new entries; the whole log, events and tree at the end.
                guard a == b, cached.log.count == traced.log.count, cached.log.last == traced.log.last,
                    cached.events.count == traced.events.count, cached.events.last == traced.events.last,
                    !last || (cached.log == traced.log && cached.events == traced.events
                        && cached.treeDescription == traced.treeDescription)
                else {
                    Issue.record("""
                        seed \(seed) (COORDSH_MODEL_SEED=\(seed)), send \(step): cached and traced disagree
                        cached: \(a) \(cached.log.suffix(8)) \(cached.events.suffix(3))
                        traced: \(b) \(traced.log.suffix(8)) \(traced.events.suffix(3))
                        cached tree:
                        \(cached.treeDescription)
                        traced tree:
                        \(traced.treeDescription)
                        """)
                    return
                }
            }
            mutations += cached.mutations
            cachedRuns += cached.handlerRuns
            withExtendedLifetime((cached, traced)) {}
        }
        // The worlds must have exercised what they are for.
        #expect(mutations > seeds.count, "handlers changed the tree \(mutations) times")
        #expect(cachedRuns > seeds.count * 10)
    }
}

/// SplitMix64: small, fast, and the same sequence on every platform.
struct SplitMix64 {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
    mutating func below(_ n: Int) -> Int { n <= 0 ? 0 : Int(next() % UInt64(n)) }
    mutating func chance(_ percent: Int) -> Bool { below(100) < percent }
}

/// One random world. Every decision (the tree, the handlers, what each handler does when it
/// runs, which view sends what) comes from one generator, so two worlds built from one seed
/// stay identical for as long as their sends behave identically.
@MainActor
final class ModelWorld {
    static let names = [MessageName("globalPing"), MessageName("globalPong"), MessageName("modelBuy")]
    static let clock = ServiceKey<String>("modelClock")

    let app = AppCoordinator()
    let cached: Bool
    var rng: SplitMix64
    var log: [String] = []
    var events: [String] = []
    var mutations = 0
    var handlerRuns = 0
    private var nextID = 0
    private var nesting = 0
    private var lastSender = 0

    init(seed: UInt64, cached: Bool) throws {
        self.cached = cached
        rng = SplitMix64(state: seed)
        app.eventSink = { [unowned self] event in events.append(event.description) }
        try app.register([
            FeatureDefinition(
                name: "shop", prefix: "model", pages: ShopPage.self,
                messages: [MessageSpec("buy", [Parameter("id", .int, optional: true)])],
                coordinator: { [unowned self] in makeFeatureCoordinator() })
        ], origin: nil)
        for s in 0..<(1 + rng.below(3)) {
            let scene = app.makeScene(identifier: "s\(s)")
            var parent: Coordinator = scene
            for _ in 0..<(1 + rng.below(8)) {
                let child = Coordinator(identifier: newID("c"))
                parent.startChild(child)
                try child.show(ShopPage.item(id: rng.below(3), note: nil))
                // Sometimes a branch: the next level hangs under an earlier one.
                if rng.chance(25), let earlier = parent.parentCoordinator { parent = earlier } else { parent = child }
            }
        }
        for level in levels() where rng.chance(40) { install(on: level) }
        if rng.chance(50) { install(on: app) }
    }

    private func newID(_ prefix: String) -> String {
        nextID += 1
        return "\(prefix)\(nextID)"
    }

    private func makeFeatureCoordinator() -> Coordinator {
        let coordinator = Coordinator(identifier: "model")
        installHandler(on: coordinator, name: Self.names[2])
        return coordinator
    }

    /// Every level in a fixed order: the app, then each coordinator depth-first with its views.
    func levels() -> [Responder] {
        var result: [Responder] = []
        app.walk { coordinator, _ in
            result.append(coordinator)
            result.append(contentsOf: coordinator.viewStack)
        }
        return result
    }

    func coordinators() -> [Coordinator] {
        var result: [Coordinator] = []
        app.walk { coordinator, _ in if coordinator !== app { result.append(coordinator) } }
        return result
    }

    func views() -> [PageView] { levels().compactMap { $0 as? PageView } }

    private func install(on level: Responder) {
        installHandler(on: level, name: Self.names[rng.below(Self.names.count)])
    }

    private func installHandler(on level: Responder, name: MessageName) {
        let id = newID("h")
        let needs = rng.chance(15) ? [Self.clock.key] : []
        level.handle(name, needs: needs) { [unowned self, weak level] message in
            try act(id, level, message)
        }
    }

    /// What a handler does when it runs: log, maybe change the world, then a disposition.
    private func act(_ id: String, _ level: Responder?, _ message: Message) throws -> Disposition {
        handlerRuns += 1
        log.append("\(id)@\(level?.chainDescription ?? "gone") \(message.name)")
        if rng.chance(20) { try mutate() }
        if rng.chance(5) { throw CoordError.failed("\(id) failed") }
        switch rng.below(3) {
        case 0: return .handled
        case 1: return .passOn
        default: return .handledAndPassOn
        }
    }

    private func mutate() throws {
        mutations += 1
        let all = coordinators()
        switch rng.below(9) {
        case 0:  // stop a coordinator (a scene, a feature, anything but the app)
            guard !all.isEmpty else { return }
            let victim = all[rng.below(all.count)]
            victim.parentCoordinator?.stopChild(victim)
        case 1:  // start a child somewhere
            guard !all.isEmpty else { return }
            let parent = all[rng.below(all.count)]
            let child = Coordinator(identifier: newID("c"))
            parent.startChild(child)
            try child.show(ShopPage.item(id: rng.below(3), note: nil))
        case 2:  // navigate
            guard !all.isEmpty else { return }
            try all[rng.below(all.count)].show(ShopPage.item(id: rng.below(4), note: "n"))
        case 3:  // go back a page
            guard !all.isEmpty else { return }
            all[rng.below(all.count)].pop()
        case 4:  // a new or replaced handler
            let levels = levels()
            install(on: levels[rng.below(levels.count)])
        case 5:  // a removed handler
            let levels = levels()
            levels[rng.below(levels.count)].removeHandler(Self.names[rng.below(Self.names.count)])
        case 6:  // the service handlers wait for arrives (queued messages replay)
            app.provide(Self.clock, "tick \(mutations)")
        case 7:  // a re-entrant send
            guard nesting < 2 else { return }
            _ = sendRandom()
        default:  // a new scene
            let scene = app.makeScene(identifier: newID("s"))
            try scene.display(ShopPage.home)
        }
    }

    /// Sends a random message from a random view (often the same one as last time, so that the
    /// cache is used) and describes how it ended.
    @discardableResult
    func sendRandom() -> String {
        let views = views()
        guard !views.isEmpty else { return "no view" }
        let index = rng.chance(60) ? lastSender % views.count : rng.below(views.count)
        lastSender = index
        let view = views[index]
        let name = Self.names[rng.below(Self.names.count)]
        let arguments = name == Self.names[2] && rng.chance(30) ? Arguments([("id", .string("x"))]) : Arguments()
        let message = Message(name, arguments, from: view)
        nesting += 1
        defer { nesting -= 1 }
        do {
            let outcome = cached ? try view.send(message) : try view.send(message, trace: DispatchTrace(message: ""))
            return "\(outcome)"
        } catch {
            return "error \(error)"
        }
    }

    /// The tree with every level's handlers and queue.
    var treeDescription: String {
        var lines: [String] = []
        app.walk { coordinator, depth in
            let pad = String(repeating: "  ", count: depth)
            lines.append("\(pad)\(coordinator.chainDescription) [\(coordinator.handledNames.joined(separator: ","))] q\(coordinator.queuedMessages.count)")
            for view in coordinator.viewStack {
                lines.append("\(pad)  \(view.chainDescription) [\(view.handledNames.joined(separator: ","))] q\(view.queuedMessages.count)")
            }
        }
        return lines.joined(separator: "\n")
    }
}
