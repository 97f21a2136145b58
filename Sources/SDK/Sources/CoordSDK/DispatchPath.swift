/// Global counters that every change to the responder tree or to a handler table advances.
/// Cached dispatch paths remember the epoch they were built in and are ignored once it moves.
///
/// Changes to page views count apart (`pages`). A page view is a leaf — only coordinators are
/// ever made a level's parent — so the only paths with a page on them are those that start at
/// it, and they watch both counters; a path from a coordinator, a scene or the app watches
/// `current` alone and outlives the page swap of every command (building the shell's path from
/// the scene again after each was 6 % of a batch script).
///
/// It and the two types below are not actor-isolated although only the main actor uses them:
/// an isolated closure handed to a generic stdlib function gets a run-time executor check in
/// its prologue, which cost more than the rest of a send.
enum DispatchEpoch {
    /// Changes to coordinators, scenes and the app: their links and their handler tables.
    @exclusivity(unchecked) nonisolated(unsafe) static var current: UInt64 = 1
    /// Changes to page views: attached, detached, freed, a handler changed.
    @exclusivity(unchecked) nonisolated(unsafe) static var pages: UInt64 = 0

    @inline(__always)
    static func advance() { current &+= 1 }

    @inline(__always)
    static func advancePages() { pages &+= 1 }

    /// The epoch of a path that starts at a page view (`watchingPages`) or at any other level.
    /// Both counters only grow, so their sum moves whenever either does.
    @inline(__always)
    static func now(watchingPages: Bool) -> UInt64 { watchingPages ? current &+ pages : current }
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
    /// A path that is a single handler with no needs (the common case) and that handler,
    /// both unretained: a send runs the handler straight from here without touching any
    /// reference count. The cache or the handler table that owns either retires it rather
    /// than freeing it during a send.
    struct Fast {
        let handler: Unmanaged<HandlerEntry>
        let path: Unmanaged<DispatchPath>

        /// `path`'s entry when it is a single handler with no needs.
        @MainActor init?(_ path: DispatchPath) {
            guard let only = path.only else { return nil }
            handler = Unmanaged.passUnretained(only)
            self.path = Unmanaged.passUnretained(path)
        }

        /// Runs the handler, then goes on up the path only if it did not finish the message.
        @MainActor @inline(__always)
        func run(_ message: Message) throws -> DispatchOutcome {
            let disposition = try DispatchCache.run(handler, message)
            if disposition == .handled { return .handled }
            return try path._withUnsafeGuaranteedRef { try $0.goOn(message, afterStep: 0, disposition) }
        }
    }

    private var epoch: UInt64 = 0
    private var paths: ContiguousArray<DispatchPath?> = []
    private var fasts: ContiguousArray<Fast?> = []
    /// The cache belongs to a page view, whose paths have a page on them (see `DispatchEpoch`).
    private let watchesPages: Bool

    init(watchesPages: Bool) {
        self.watchesPages = watchesPages
    }

    /// The path for `id` if it is still valid.
    @inline(__always)
    func path(for id: Int32) -> DispatchPath? {
        guard epoch == DispatchEpoch.now(watchingPages: watchesPages), Int(id) < paths.count else { return nil }
        return paths[Int(id)]
    }

    /// The single handler cached for `id` with its path, or nil when there is none or the
    /// cache is stale.
    @inline(__always)
    func fast(for id: Int32) -> Fast? {
        guard epoch == DispatchEpoch.now(watchingPages: watchesPages), Int(id) < fasts.count else { return nil }
        return fasts[Int(id)]
    }

    /// Runs `handler` without retaining it or its closure. Not isolated, so that the closure
    /// below gets no run-time executor check; only ever called from the main actor.
    @inline(__always)
    static func run(_ handler: Unmanaged<HandlerEntry>, _ message: Message) throws -> Disposition {
        try handler._withUnsafeGuaranteedRef { try FeatureClock.run($0, message) }
    }

    @MainActor mutating func store(_ path: DispatchPath, for id: Int32) {
        if epoch != path.epoch {
            DispatchReclaimer.retire(paths.compactMap { $0 })
            paths.removeAll(keepingCapacity: true)
            fasts.removeAll(keepingCapacity: true)
            epoch = path.epoch
        }
        if paths.count <= Int(id) {
            paths.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - paths.count))
            fasts.append(contentsOf: repeatElement(nil, count: Int(id) + 1 - fasts.count))
        }
        if let old = paths[Int(id)] { DispatchReclaimer.retire(old) }
        paths[Int(id)] = path
        fasts[Int(id)] = Fast(path)
    }

    /// Empties the cache, retiring its paths.
    mutating func clear() {
        DispatchReclaimer.retire(paths.compactMap { $0 })
        paths = []
        fasts = []
        epoch = 0
    }
}

/// A page view's copy of its coordinator's cached path for one name (`Responder.send`),
/// trusted while the epoch of paths that start at a page stays where it was when it was
/// taken: any change to the tree, to a handler table or to a page — this view's link to its
/// coordinator among them — moves it. Unretained, like the cache's fast entries: while that
/// epoch holds, so does the coordinator's (it is part of the sum), and the coordinator's cache
/// keeps the path — a cache lets go of a path only for a new epoch's, or when it is cleared
/// after its level's link moved, and then through `DispatchReclaimer` — so the view retains
/// nothing (a retain, and retiring the last path, cost a batch ≈ 1,400 instructions a
/// command).
struct BorrowedPath {
    let id: Int32
    let epoch: UInt64
    let path: Unmanaged<DispatchPath>
    /// The path's fast entry when it is a single handler with no needs, run as the cache's.
    let fast: DispatchCache.Fast?

    /// `path`, current when it is handed over.
    @MainActor init(id: Int32, path: DispatchPath) {
        self.id = id
        epoch = DispatchEpoch.now(watchingPages: true)
        self.path = Unmanaged.passUnretained(path)
        fast = DispatchCache.Fast(path)
    }

    @MainActor @inline(__always)
    func run(_ message: Message) throws -> DispatchOutcome {
        if let fast { return try fast.run(message) }
        return try path._withUnsafeGuaranteedRef { try $0.run(message) }
    }
}

/// The chain from one level for one message name, resolved once: only the levels that handle
/// the name, then the top of the chain (which may route the message to a feature).
///
/// This is what makes dispatch cheap at any depth: levels without a handler cost nothing, and
/// nothing is looked up by string, walked through weak references or retained on the hot path.
/// It is trusted only while `DispatchEpoch` stays where it was when the path was built; after a
/// handler moved it, the send goes on by walking (`DispatchExecutor`).
@MainActor
final class DispatchPath {
    // Levels and handler entries are held unowned(unsafe): retaining them per hop was most of
    // the cost of a send. They are read only while the epoch is the path's own: any change of a
    // parent link, handler table or registry advances it, and so does a responder's deinit, so
    // an unchanged epoch means nothing on the path was freed or moved. Once it has moved, only
    // the weak `survivor` of the step that just ran is read.
    struct Step {
        unowned(unsafe) let level: Responder
        unowned(unsafe) let handler: HandlerEntry
        /// The same level, weakly: what the send reads after a handler changed the tree.
        weak var survivor: Responder?
        /// Whether the level had a parent when the path was built (the top has none).
        let hadParent: Bool
        /// How many levels of `chain` the send has passed once it is at this level.
        let passed: Int
    }

    /// The epoch the path was built in: `DispatchEpoch.now(watchingPages:)` for its start.
    let epoch: UInt64
    /// The path starts at a page view, so a change to a page may touch it (`DispatchEpoch`).
    let watchesPages: Bool
    let steps: ContiguousArray<Step>
    /// The one handler when the path has a single step with no needs (the cache keeps its
    /// body inline for the fast path).
    unowned(unsafe) let only: HandlerEntry?
    unowned(unsafe) let top: Responder
    unowned(unsafe) let scene: SceneCoordinator?
    /// The scene again, weakly, and how many levels lie up to it, for a send that goes on
    /// walking after the tree changed.
    weak var survivingScene: SceneCoordinator?
    let scenePassed: Int
    let chain: [ObjectIdentifier]

    init(from start: Responder, name: MessageName) {
        var steps = ContiguousArray<Step>()
        var chain: [ObjectIdentifier] = []
        var scene: SceneCoordinator?
        var scenePassed = Int.max
        var level: Responder? = start
        var top = start
        while let current = level {
            top = current
            chain.append(ObjectIdentifier(current))
            if scene == nil, let s = current as? SceneCoordinator {
                scene = s
                scenePassed = chain.count
            }
            if let handler = current.handlers[name.id] {
                handler.feature = FeatureClock.number(of: current)
                steps.append(Step(
                    level: current, handler: handler, survivor: current, hadParent: current.parent != nil,
                    passed: chain.count))
            }
            level = current.parent
        }
        self.watchesPages = start.isPage
        self.epoch = DispatchEpoch.now(watchingPages: start.isPage)
        self.steps = steps
        self.only = steps.count == 1 && !steps[0].handler.hasNeeds ? steps[0].handler : nil
        self.top = top
        self.scene = scene
        self.survivingScene = scene
        self.scenePassed = scenePassed
        self.chain = chain
    }

    /// Whether nothing on the path moved since it was built.
    @inline(__always)
    var isCurrent: Bool { DispatchEpoch.now(watchingPages: watchesPages) == epoch }

    /// Runs the path from its first step; the epoch was checked by the cache lookup.
    @inline(__always)
    func run(_ message: Message) throws -> DispatchOutcome {
        try run(message, from: 0, handledBelow: false)
    }

    /// Runs the steps from `first` on, re-checking the epoch after every handler.
    func run(_ message: Message, from first: Int, handledBelow: Bool) throws -> DispatchOutcome {
        var handledBelow = handledBelow
        var index = first
        while index < steps.count {
            // A handler before this step may have changed the tree; the path is only trusted
            // while the epoch is its own. (Step 0 of a fresh send was checked by the lookup.)
            if index > 0, !isCurrent {
                return try goOnWalking(message, afterStep: index - 1, handledBelow: handledBelow)
            }
            let step = steps[index]
            if let outcome = try DispatchExecutor.visit(
                step.level, step.handler, message, trace: nil, routed: false, handledBelow: &handledBelow)
            {
                return outcome
            }
            index += 1
        }
        if !isCurrent, !steps.isEmpty {
            return try goOnWalking(message, afterStep: steps.count - 1, handledBelow: handledBelow)
        }
        return try finish(message, handledBelow: handledBelow)
    }

    /// The handler of step `index` (the fast path ran it) let the message go on.
    func goOn(_ message: Message, afterStep index: Int, _ disposition: Disposition) throws -> DispatchOutcome {
        var handledBelow = false
        if isCurrent {
            _ = try DispatchExecutor.settle(
                disposition, at: steps[index].level, message, trace: nil, routed: false, handledBelow: &handledBelow)
            return try run(message, from: index + 1, handledBelow: handledBelow)
        }
        // Nothing of the path may be read now but the step's weak survivor.
        handledBelow = disposition == .handledAndPassOn
        return try goOnWalking(message, afterStep: index, handledBelow: handledBelow)
    }

    /// The tree changed while the handler of step `index` ran: walk on from its level's parent.
    private func goOnWalking(_ message: Message, afterStep index: Int, handledBelow: Bool) throws -> DispatchOutcome {
        let step = steps[index]
        let passed = step.passed
        let scene = scenePassed <= passed ? survivingScene : nil
        var executor = DispatchExecutor(
            message, trace: nil, handledBelow: handledBelow, chain: Array(chain.prefix(passed)), scene: scene)
        return try executor.goOn(after: step.survivor, hadParent: step.hadParent)
    }

    /// No level finished the message: the top of the chain routes it or reports it.
    func finish(_ message: Message, handledBelow: Bool) throws -> DispatchOutcome {
        try top.reachedTop(message, scene: scene, chain: chain, handledBelow: handledBelow, trace: nil)
    }
}
