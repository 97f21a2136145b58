/// A level of the responder chain: a page view, a coordinator, a scene or the app.
///
/// Each level may register handlers for message names; a message sent from a level goes up
/// through `parent` until a handler says it is done. Keeping handlers, the parent link, the
/// dependency snapshot and the queue in one base class is what lets every level (not only the
/// root) queue and replay.
@MainActor
open class Responder: NeedsDependency {
    /// A stable name for this level within its parent (`cart`, `terminal`, `content/product`).
    public let identifier: String

    /// The next level up. Weak: parents own children, never the other way round.
    ///
    /// This and the other links and counts a command reads several times each (a level's
    /// `dependencies`, a coordinator's `viewStack` and `children`, a scene's active coordinator
    /// and `displayCount`, a feature store's services) skip Swift's run-time exclusivity check:
    /// each is read or set in one step on the main actor and never held across a call that
    /// could run a plugin's code, so no access can overlap another; the check cost a shop
    /// command ≈ 40 of them (BENCHMARKS.md, issue 41). A read that calls on into a service
    /// (which may load a plugin, and so set these again) copies the value first.
    @exclusivity(unchecked) public internal(set) weak var parent: Responder? {
        didSet { advanceEpoch() }
    }
    /// A page view: a leaf of the tree, whose changes only touch paths that start at it. Set by
    /// `PageView.init` (`becomePage`), not by an initializer of its own: a designated
    /// initializer clients cannot see would change the released interface of this open class.
    @exclusivity(unchecked) final private(set) var isPage = false

    var handlers: [Int32: HandlerEntry] = [:]
    var queue = MessageQueue() {
        didSet { Responder.queuedAnywhere += queue.count - oldValue.count }
    }
    /// How many messages wait at every level of every app in this process: a served scene
    /// looks for its queued messages after every command, and when this is 0 there is none.
    @_spi(Host) public private(set) static var queuedAnywhere = 0
    // Unchecked: read on every send, only from the main actor, never held across a call.
    @exclusivity(unchecked) final var dispatchCache = DispatchCache(watchesPages: false)
    /// A page view's copy of its coordinator's path for the name it sent last (see `send`).
    @exclusivity(unchecked) final var borrowed: BorrowedPath?

    /// The app-wide services as this level sees them. Setting it replays queued messages whose
    /// needs are now met; coordinators also pass it on to their children and views.
    @exclusivity(unchecked) public var dependencies: AppDependency? {
        didSet { dependenciesDidChange() }
    }

    /// A level named `identifier` within its parent, with no parent yet: adding it to a
    /// coordinator links it into the chain.
    public init(identifier: String) {
        self.identifier = identifier
    }

    /// Makes this level a page view's (`PageView.init`, before anything can send from it).
    final func becomePage() {
        isPage = true
        dispatchCache = DispatchCache(watchesPages: true)
    }

    /// Invalidates every cached path this level may be on: a page view's own (see
    /// `DispatchEpoch`), or any level's.
    @inline(__always)
    final func advanceEpoch() {
        if isPage { DispatchEpoch.advancePages() } else { DispatchEpoch.advance() }
    }

    /// Takes the value its parent hands down. A plain level adopts it; a scene lays its own
    /// scene-level services over it first, which is how a login stays in one scene.
    func inherit(_ value: AppDependency?) {
        dependencies = value
    }

    /// Every subclass in the SDK writes out an empty `isolated deinit` too: the textual
    /// interface a plugin is compiled against (library evolution) prints an inherited deinit as
    /// nonisolated, which does not compile against this one.
    isolated deinit {
        // Cached dispatch paths hold levels unowned(unsafe); make sure none survives this one,
        // and that a send running this level's handler keeps the handler until it returns.
        advanceEpoch()
        DispatchReclaimer.retire(handlers.values)
        dispatchCache.clear()
        Responder.queuedAnywhere -= queue.count
    }

    /// How this level names itself in `trace`, `where` and error messages.
    open var chainDescription: String { identifier }

    // MARK: Handlers

    /// Handles `name` at this level. `needs` are the services the handler cannot run without:
    /// when one is missing from this level's `dependencies`, the message is queued here and
    /// replayed when it arrives. Capture `self` unowned in `body`: the handler is owned by
    /// this level, so a strong capture would keep the level alive forever.
    ///
    /// `whileWaiting` runs when the message is queued and whenever what it lacks changes (see
    /// `WaitingHandler`): that is where a handler that needs a logged-in user shows the login
    /// page, or refuses at once what could never succeed.
    public func handle(
        _ name: MessageName, needs: [DependencyKey] = [], whileWaiting: WaitingHandler? = nil,
        _ body: @escaping MessageHandler
    ) {
        if let old = handlers[name.id] { DispatchReclaimer.retire(old) }
        handlers[name.id] = HandlerEntry(needs: DependencySet(needs), waiting: whileWaiting, body: body)
        advanceEpoch()
    }

    /// Removes the handler for `name`.
    public func removeHandler(_ name: MessageName) {
        if let old = handlers[name.id] { DispatchReclaimer.retire(old) }
        handlers[name.id] = nil
        advanceEpoch()
    }

    /// Whether this level itself has a handler for `name`.
    public func handles(_ name: MessageName) -> Bool { handlers[name.id] != nil }

    /// The names this level handles, for inspection.
    public var handledNames: [String] {
        handlers.keys.map { MessageName.table.string(for: $0) }.sorted()
    }

    // MARK: Queue

    /// How many messages this level holds at most before it refuses to queue more.
    public var queueCapacity: Int {
        get { queue.capacity }
        set { queue.capacity = newValue }
    }

    /// True when a message waits here: a cheap look, before `queuedMessages` works out what
    /// each waits for (a served scene looks at every level after every command).
    public var hasQueuedMessages: Bool { !queue.isEmpty }

    /// The messages waiting here, each with the dependency names it still lacks.
    public var queuedMessages: [(message: Message, waitingFor: [String])] {
        queue.waiting(given: dependencies?.keys ?? DependencySet()).map {
            ($0.message, $0.waitingFor.map(\.name))
        }
    }

    /// Parks `message` here until `needs` are met. `routed` remembers that the root delivered
    /// it here, so that its replay ends here as the delivery would have.
    func enqueue(_ message: Message, needs: DependencySet, routed: Bool, trace: DispatchTrace?) throws -> DispatchOutcome {
        guard queue.count < queue.capacity else {
            throw CoordError.queueFull(message: message.name.string, at: chainDescription, capacity: queue.capacity)
        }
        let missing = (dependencies?.keys ?? DependencySet()).missing(from: needs)
        // A guarded service this feature was not granted never comes: refuse now.
        if let denied = missing.first(where: { dependencies?.isDenied($0) == true }) {
            throw CoordError.notGranted(.service(denied.name), context: message.name.string, plugin: pluginName)
        }
        // The waiting handler may refuse (throw) before anything is queued.
        let reason = try handlers[message.name.id]?.waiting?(message, missing)
        queue.entries.append(MessageQueue.Entry(
            message: message, needs: needs, missing: missing, routed: routed, queuedAt: FeatureClock.installed == nil ? 0 : FeatureClock.now()))
        trace?.record(self, .queued(waitingFor: missing.map(\.name)))
        report(.queued(message: message.description, at: chainDescription, waitingFor: missing.map(\.name), reason: reason))
        return .queued
    }

    /// Called after `dependencies` changes. The default replays queued messages whose needs
    /// are met now; coordinators first pass the new value on to their children.
    open func dependenciesDidChange() {
        processQueuedMessages()
    }

    /// Replays, in arrival order, every queued message whose needs are now met, by running this
    /// level's handler again and, if it passes the message on, continuing up the chain.
    public func processQueuedMessages() {
        guard !queue.isEmpty else { return }
        let available = dependencies?.keys ?? DependencySet()
        var remaining: [MessageQueue.Entry] = []
        var changed: [MessageQueue.Entry] = []
        var refused: [(MessageQueue.Entry, CoordError)] = []
        let ready = queue.entries.filter { entry in
            if available.isSuperset(of: entry.needs) { return true }
            var entry = entry
            let missing = available.missing(from: entry.needs)
            // What it waits for came, and this feature was not granted it: it never will be.
            if let denied = missing.first(where: { dependencies?.isDenied($0) == true }) {
                refused.append((entry, .notGranted(.service(denied.name), context: entry.message.name.string, plugin: pluginName)))
                return false
            }
            if missing != entry.missing {
                entry.missing = missing
                changed.append(entry)
            }
            remaining.append(entry)
            return false
        }
        queue.entries = remaining
        for (entry, error) in refused {
            report(.dropped(message: entry.message.description, at: chainDescription, reason: "\(error)"))
        }
        for entry in changed {
            // Still waiting, for something else now: let the handler react (show a page, say why).
            guard let waiting = handlers[entry.message.name.id]?.waiting else { continue }
            do {
                let reason = try waiting(entry.message, entry.missing)
                report(.queued(
                    message: entry.message.description, at: chainDescription,
                    waitingFor: entry.missing.map(\.name), reason: reason))
            } catch {
                queue.entries.removeAll { $0.message.name == entry.message.name && $0.missing == entry.missing }
                report(.dropped(message: entry.message.description, at: chainDescription, reason: "\(error)"))
            }
        }
        if let accounting = FeatureClock.installed, case let feature = FeatureClock.number(of: self), feature >= 0 {
            let now = FeatureClock.now()
            for entry in ready where entry.queuedAt != 0 {
                accounting.waited(entry.message.name, at: feature, nanoseconds: now &- entry.queuedAt)
            }
        }
        for entry in ready {
            do {
                _ = try replay(entry)
                report(.replayed(message: entry.message.description, at: chainDescription))
            } catch {
                report(.replayFailed(
                    message: entry.message.description, at: chainDescription, error: "\(error)"))
            }
        }
    }

    /// Runs a queued message again from this level, through the same executor as a send: this
    /// level's handler, then (unless the root had delivered it here) on up the chain.
    func replay(_ entry: MessageQueue.Entry) throws -> DispatchOutcome {
        DispatchReclaimer.depth &+= 1
        defer {
            DispatchReclaimer.depth &-= 1
            if DispatchReclaimer.depth == 0, DispatchReclaimer.hasRetired { DispatchReclaimer.drain() }
        }
        let message = entry.message
        guard let handler = handlers[message.name.id] else {
            throw CoordError.unhandledMessage(message.name.string, path: [chainDescription])
        }
        handler.feature = FeatureClock.number(of: self)
        var executor = DispatchExecutor(message, trace: nil)
        executor.pass(self)
        let hadParent = parent != nil
        if let outcome = try DispatchExecutor.visit(
            self, handler, message, trace: nil, routed: entry.routed, handledBelow: &executor.handledBelow)
        {
            return outcome
        }
        return try executor.goOn(after: self, hadParent: hadParent)
    }

    /// Drops every queued message, reporting each with `reason`.
    public func dropQueuedMessages(reason: String) {
        let dropped = queue.entries
        queue.entries.removeAll()
        for entry in dropped {
            report(.dropped(message: entry.message.description, at: chainDescription, reason: reason))
        }
    }

    /// Sends an event up to the app, which hands it to whoever listens (the shell prints it).
    public func report(_ event: DispatchEvent) {
        var level: Responder? = self
        while let current = level {
            if current.receive(event) { return }
            level = current.parent
        }
    }

    /// Override to consume events reported from below; return true to stop them going up.
    open func receive(_ event: DispatchEvent) -> Bool { false }

    // MARK: Sending

    /// Sends `message` up the chain starting at this level.
    ///
    /// The first send of a name from a level resolves the chain once into a cached path (the
    /// levels that handle that name, and where the top routes it); later sends run the path
    /// without walking or looking anything up by string. Any change to the tree or to a
    /// handler table advances a global epoch and invalidates every cached path it may be on
    /// (`DispatchEpoch`: a page view's change, only the paths that start at a page).
    @discardableResult
    public final func send(_ message: Message) throws -> DispatchOutcome {
        DispatchReclaimer.depth &+= 1
        defer {
            DispatchReclaimer.depth &-= 1
            if DispatchReclaimer.depth == 0, DispatchReclaimer.hasRetired { DispatchReclaimer.drain() }
        }
        let id = message.name.id
        if isPage, let borrowed, borrowed.id == id, borrowed.epoch == DispatchEpoch.now(watchingPages: true) {
            return try borrowed.run(message)
        }
        if let fast = dispatchCache.fast(for: id) {
            // The common case, run from the cache: one handler, no needs.
            return try fast.run(message)
        }
        if let path = dispatchCache.path(for: id) {
            return try path.run(message)
        }
        // A page view with no handler for the name adds nothing to its path: the path is its
        // coordinator's, cached there, where it outlives the page swap of every command (the
        // shell sends each command's message from a new view). The root's routing never needs
        // the page among the levels passed: it only looks there for a coordinator. The view
        // keeps that path for its next send of the same name, under the epoch of paths that
        // start at a page (any change to a page, this one's parent link among them, moves
        // it): its parent is held weakly, and loading a weak reference takes the runtime's
        // slow path, ≈ 20 ns of a 28 ns send from the same view. One slot, not a cache of its
        // own: a command's view is new, and arrays for it cost a batch ≈ 4,000 instructions a
        // command (BENCHMARKS.md, issue 41).
        if isPage, handlers.isEmpty || handlers[id] == nil, let parent {
            let path = parent.cachedPath(for: message.name)
            borrowed = BorrowedPath(id: id, path: path)
            return try path.run(message)
        }
        return try cachedPath(for: message.name).run(message)
    }

    /// The path cached at this level for `name`, built and cached first if need be.
    private final func cachedPath(for name: MessageName) -> DispatchPath {
        if let path = dispatchCache.path(for: name.id) { return path }
        let path = DispatchPath(from: self, name: name)
        dispatchCache.store(path, for: name.id)
        return path
    }

    /// Sends `message` the slow way, walking the parent links and recording every level it
    /// visits in `trace`. Runs the same executor as `send`, so it has the same outcome.
    @discardableResult
    @_spi(Host) public func send(_ message: Message, trace: DispatchTrace) throws -> DispatchOutcome {
        DispatchReclaimer.depth &+= 1
        defer {
            DispatchReclaimer.depth &-= 1
            if DispatchReclaimer.depth == 0, DispatchReclaimer.hasRetired { DispatchReclaimer.drain() }
        }
        var executor = DispatchExecutor(message, trace: trace)
        return try executor.walk(from: self)
    }

    /// Called on the topmost level when no handler finished the message. The app overrides
    /// this to route feature prefixes; any other top level means the message went nowhere.
    @_spi(Host) open func reachedTop(
        _ message: Message, scene: SceneCoordinator?, chain: [ObjectIdentifier], handledBelow: Bool,
        trace: DispatchTrace?
    ) throws -> DispatchOutcome {
        if handledBelow { return .handled }
        trace?.record(self, .unhandled)
        throw CoordError.unhandledMessage(message.name.string, path: pathDescription(from: message.sender))
    }

    func pathDescription(from sender: Responder?) -> [String] {
        var names: [String] = []
        var level: Responder? = sender ?? self
        while let current = level {
            names.append(current.chainDescription)
            level = current.parent
        }
        return names
    }

    /// The scene this level belongs to (itself, for a scene), or nil outside every scene.
    public var scene: SceneCoordinator? {
        var level: Responder? = self
        while let current = level {
            if let scene = current as? SceneCoordinator { return scene }
            level = current.parent
        }
        return nil
    }

    /// The chain from this level to the top, for `where`.
    public var chain: [Responder] {
        var result: [Responder] = []
        var level: Responder? = self
        while let current = level {
            result.append(current)
            level = current.parent
        }
        return result
    }

    /// Forgets cached dispatch paths; called when this level leaves the tree so that no path
    /// keeps former ancestors alive.
    func clearDispatchCache() { dispatchCache.clear() }
}
