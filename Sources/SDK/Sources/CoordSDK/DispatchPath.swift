/// A global counter that every change to the responder tree or to a handler table advances.
/// Cached dispatch paths remember the epoch they were built in and are ignored once it moves.
///
/// It and the two types below are not actor-isolated although only the main actor uses them:
/// an isolated closure handed to a generic stdlib function gets a run-time executor check in
/// its prologue, which cost more than the rest of a send.
enum DispatchEpoch {
    @exclusivity(unchecked) nonisolated(unsafe) static var current: UInt64 = 1

    @inline(__always)
    static func advance() { current &+= 1 }
}

/// Keeps what a running send may still be using alive until the outermost send returns.
///
/// The hot path reads cached paths, the levels in them and their handler entries without
/// retaining anything (a retain and release per hop cost more than the rest of a send). That
/// is only sound if nothing it reads is freed while a send runs — yet a handler may change the
/// tree, replace its own handler or stop its own coordinator. So whatever a cache or a handler
/// table lets go of is retired here instead of released, and released when no send is running.
enum DispatchReclaimer {
    @exclusivity(unchecked) nonisolated(unsafe) static var depth = 0
    /// Whether `retired` holds anything: a plain flag, because every send checks it and the
    /// array, a lazily initialised global, costs a once-check and an access check to read.
    @exclusivity(unchecked) nonisolated(unsafe) static var hasRetired = false
    nonisolated(unsafe) static var retired: [AnyObject] = []

    /// Releases `objects` now if no send is running, else when the outermost one returns.
    @inline(__always)
    static func retire<S: Sequence>(_ objects: S) where S.Element: AnyObject {
        guard depth > 0 else { return }
        for object in objects { retired.append(object) }
        hasRetired = !retired.isEmpty
    }

    @inline(__always)
    static func retire(_ object: AnyObject) {
        guard depth > 0 else { return }
        retired.append(object)
        hasRetired = true
    }

    /// Called when the outermost send returns.
    @inline(never)
    static func drain() {
        hasRetired = false
        retired.removeAll()
    }
}

/// Per-level cache of resolved paths, indexed by interned message id.
struct DispatchCache {
    private var epoch: UInt64 = 0
    private var paths: ContiguousArray<DispatchPath?> = []
    /// For each path that is a single handler with no needs (the common case), that handler,
    /// unretained: a send runs it straight from here without touching any reference count.
    /// The handler table that owns it retires it rather than freeing it during a send.
    private var singles: ContiguousArray<Unmanaged<HandlerEntry>?> = []

    /// The path for `id` if it is still valid.
    @inline(__always)
    func path(for id: Int32) -> DispatchPath? {
        guard epoch == DispatchEpoch.current, Int(id) < paths.count else { return nil }
        return paths[Int(id)]
    }

    /// The single handler cached for `id`, or nil when there is none or the cache is stale.
    @inline(__always)
    func single(for id: Int32) -> Unmanaged<HandlerEntry>? {
        guard epoch == DispatchEpoch.current, Int(id) < singles.count else { return nil }
        return singles[Int(id)]
    }

    /// Runs `handler` without retaining it or its closure. Not isolated, so that the closure
    /// below gets no run-time executor check; only ever called from the main actor.
    @inline(__always)
    static func run(_ handler: Unmanaged<HandlerEntry>, _ message: Message) throws -> Disposition {
        try handler._withUnsafeGuaranteedRef { try $0.unisolatedBody(message) }
    }

    @MainActor mutating func store(_ path: DispatchPath, for id: Int32) {
        if epoch != DispatchEpoch.current {
            DispatchReclaimer.retire(paths.compactMap { $0 })
            paths.removeAll(keepingCapacity: true)
            singles.removeAll(keepingCapacity: true)
            epoch = DispatchEpoch.current
        }
        if paths.count <= Int(id) {
            paths.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - paths.count))
            singles.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - singles.count))
        }
        if let old = paths[Int(id)] { DispatchReclaimer.retire(old) }
        paths[Int(id)] = path
        singles[Int(id)] = path.only.map { Unmanaged.passUnretained($0) }
    }

    /// Empties the cache, retiring its paths.
    mutating func clear() {
        DispatchReclaimer.retire(paths.compactMap { $0 })
        paths = []
        singles = []
        epoch = 0
    }
}

/// The chain from one level for one message name, resolved once: only the levels that handle
/// the name, then the top of the chain (which may route the message to a feature).
///
/// This is what makes dispatch cheap at any depth: levels without a handler cost nothing, and
/// nothing is looked up by string, walked through weak references or retained on the hot path.
@MainActor
final class DispatchPath {
    // Levels and handler entries are held unowned(unsafe): retaining them per hop was most of
    // the cost of a send. It is safe because a path never outlives the tree it was built from:
    // any change of a parent link, handler table or registry advances the epoch, a level that
    // leaves the tree clears its cache, a responder's deinit advances the epoch too, and what
    // is let go of while a send runs is retired until it returns (`DispatchReclaimer`).
    struct Step {
        unowned(unsafe) let level: Responder
        unowned(unsafe) let handler: HandlerEntry
    }

    let steps: ContiguousArray<Step>
    /// The one handler when the path has a single step with no needs (the cache keeps its
    /// body inline for the fast path).
    unowned(unsafe) let only: HandlerEntry?
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
        self.only = steps.count == 1 && !steps[0].handler.hasNeeds ? steps[0].handler : nil
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
        return try finish(message, handledBelow: handledBelow)
    }

    /// No level finished the message: the top of the chain routes it or reports it.
    func finish(_ message: Message, handledBelow: Bool) throws -> DispatchOutcome {
        try top.reachedTop(message, scene: scene, chain: chain, handledBelow: handledBelow, trace: nil)
    }
}
