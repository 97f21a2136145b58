/// A global counter that every change to the responder tree or to a handler table advances.
/// Cached dispatch paths remember the epoch they were built in and are ignored once it moves.
@MainActor
enum DispatchEpoch {
    static var current: UInt64 = 1

    @inline(__always)
    static func advance() { current &+= 1 }
}

/// Per-level cache of resolved paths, indexed by interned message id.
@MainActor
struct DispatchCache {
    private var epoch: UInt64 = 0
    private var paths: ContiguousArray<DispatchPath?> = []

    @inline(__always)
    func path(for id: Int32) -> DispatchPath? {
        guard epoch == DispatchEpoch.current, Int(id) < paths.count else { return nil }
        return paths[Int(id)]
    }

    mutating func store(_ path: DispatchPath, for id: Int32) {
        if epoch != DispatchEpoch.current {
            paths.removeAll(keepingCapacity: true)
            epoch = DispatchEpoch.current
        }
        if paths.count <= Int(id) { paths.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - paths.count)) }
        paths[Int(id)] = path
    }
}

/// The chain from one level for one message name, resolved once: only the levels that handle
/// the name, then the top of the chain (which may route the message to a feature).
///
/// This is what makes dispatch cheap at any depth: levels without a handler cost nothing, and
/// nothing is looked up by string or walked through weak references on the hot path.
@MainActor
final class DispatchPath {
    // The levels are held unowned(unsafe): responders are weakly referenced (parent links), so
    // their reference counts live in side tables and every retain would take the slow path —
    // measured at ~60 ns per send. It is safe because a path never outlives the tree it was
    // built from: any change of a parent link, handler table or registry advances the epoch,
    // a level that leaves the tree clears its cache, and a responder's deinit advances the
    // epoch too, so a stale path is never run.
    struct Step {
        unowned(unsafe) let level: Responder
        let handler: HandlerEntry
    }

    let steps: ContiguousArray<Step>
    unowned(unsafe) let top: Responder
    unowned(unsafe) let scene: SceneCoordinator?
    let chain: [ObjectIdentifier]

    init(from start: Responder, name: MessageName) {
        var steps = ContiguousArray<Step>()
        var chain: [ObjectIdentifier] = []
        var scene: SceneCoordinator?
        var level: Responder? = start
        var top = start
        while let current = level {
            top = current
            chain.append(ObjectIdentifier(current))
            if scene == nil, let s = current as? SceneCoordinator { scene = s }
            if let handler = current.handlers[name.id] { steps.append(Step(level: current, handler: handler)) }
            level = current.parent
        }
        self.steps = steps
        self.top = top
        self.scene = scene
        self.chain = chain
    }

    @inline(__always)
    func run(_ message: Message) throws -> DispatchOutcome {
        var handledBelow = false
        for index in steps.indices {
            let step = steps[index]
            if step.handler.hasNeeds, !(step.level.dependencies?.keys.isSuperset(of: step.handler.needs) ?? false) {
                return try step.level.enqueue(message, needs: step.handler.needs, trace: nil)
            }
            switch try step.handler.body(message) {
            case .handled: return .handled
            case .passOn: continue
            case .handledAndPassOn: handledBelow = true
            }
        }
        return try top.reachedTop(message, scene: scene, chain: chain, handledBelow: handledBelow, trace: nil)
    }
}
