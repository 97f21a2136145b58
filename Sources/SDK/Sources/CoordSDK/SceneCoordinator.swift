/// One interactive session — the terminal is one scene, each client of `coordsh serve` another.
/// It owns the feature coordinators of that session and knows which one the user is looking at.
///
/// Features are started lazily, the first time one of their pages or messages is wanted in this
/// scene, and reused after that (the seeds' `showCart`).
///
/// A scene also holds scene-level services, laid over the app's: what belongs to one session
/// and not to the app (who is logged in, whose guest cart it is, how to ask this session's
/// person for a password). Everything below the scene sees `AppDependency` as the app's
/// services plus the scene's, so a login in one scene reaches that scene only, while a plugin
/// loaded into the app reaches every scene.
@MainActor
public final class SceneCoordinator: Coordinator {
    /// Isolated like `Responder`'s; written out for the module interface (see there).
    isolated deinit {}

    /// The coordinator whose top page the user sees.
    @exclusivity(unchecked) public private(set) weak var activeCoordinator: Coordinator?
    /// Coordinators the user came from, for `back` across features.
    @exclusivity(unchecked) private var history: [WeakCoordinator] = []
    @exclusivity(unchecked) private var byFeature: [Coordinator?] = []
    private let registry: FeatureRegistry

    /// The app's services as the app last handed them down, before this scene's are laid over.
    private var appServices: AppDependency?
    /// This scene's own services, in the order they were first provided.
    private var sceneServices: [(key: DependencyKey, service: Any, provider: String)] = []

    /// Receives the events reported from inside this scene (queued, replayed and dropped
    /// messages, notes), so that each session hears about its own. Nil lets them go on up to
    /// the app's sink.
    public var eventSink: ((DispatchEvent) -> Void)?

    init(identifier: String, registry: FeatureRegistry) {
        self.registry = registry
        super.init(identifier: identifier)
    }

    public override var chainDescription: String { "scene \(identifier)" }

    // MARK: Scene-level services

    override func inherit(_ value: AppDependency?) {
        appServices = value
        dependencies = layered()
    }

    /// Fills (or, with nil, empties) a slot for this scene only, then hands the new value to
    /// everything in the scene, which replays what waited for it here. `provider` is shown by
    /// `deps` (`account`, `host`).
    public func provide<Service>(_ key: ServiceKey<Service>, _ service: Service?, provider: String) {
        sceneServices.removeAll { $0.key == key.key }
        if let service { sceneServices.append((key.key, service, provider)) }
        dependencies = layered()
    }

    /// The scene-level service in `key`'s slot (not the app's).
    public func sceneService<Service>(_ key: ServiceKey<Service>) -> Service? {
        sceneServices.first { $0.key == key.key }?.service as? Service
    }

    /// The slots this scene fills itself, by name.
    public var sceneServiceNames: [String] { sceneServices.map(\.key.name).sorted() }

    private func layered() -> AppDependency? {
        guard !sceneServices.isEmpty else { return appServices }
        var value = appServices ?? AppDependency()
        let guarded = (parent as? AppCoordinator)?.sealedKeys ?? DependencySet()
        for entry in sceneServices {
            value.set(entry.key, entry.service, provider: "\(entry.provider), scene \(identifier)")
            // A guarded scene service (the person's prompt) is sealed like the app's.
            if guarded.contains(entry.key) { value.seal(entry.key) }
        }
        return value
    }

    public override func receive(_ event: DispatchEvent) -> Bool {
        guard let eventSink else { return false }
        eventSink(event)
        return true
    }

    /// The page view the user is on; messages typed at the prompt start here.
    public var currentView: PageView? { activeCoordinator?.top }

    /// The running coordinator of `feature` in this scene, started on first use.
    @_spi(Host) public func coordinator(for feature: Feature) -> Coordinator {
        let slot = Int(feature.prefix.id)
        if slot < byFeature.count, let existing = byFeature[slot], existing.parent === self {
            return existing
        }
        // Callers that can fail load the plugin first (`reachedTop`, `display`); a failure
        // here leaves the placeholder coordinator, which handles nothing.
        try? feature.load()
        let coordinator = feature.definition.makeCoordinator()
        coordinator.accessFeature = feature
        if byFeature.count <= slot { byFeature.append(contentsOf: repeatElement(nil, count: slot + 1 - byFeature.count)) }
        byFeature[slot] = coordinator
        startChild(coordinator)
        return coordinator
    }

    /// The running coordinator of `feature`, or nil when it has not been started.
    @_spi(Host) public func runningCoordinator(for feature: Feature) -> Coordinator? {
        let slot = Int(feature.prefix.id)
        guard slot < byFeature.count, let c = byFeature[slot], c.parent === self else { return nil }
        return c
    }

    /// Shows `page` in its feature's coordinator, starting that coordinator if needed.
    @discardableResult
    public func display(_ page: any Page) throws -> PageView {
        guard let feature = registry.feature(named: page.pageFeature) else {
            throw CoordError.unknownFeature(page.pageFeature, suggestion: nil)
        }
        try feature.load()
        return try coordinator(for: feature).show(page)
    }

    /// Advances every time a page is shown (even the same one again), so the shell knows when
    /// to print the page after a command. Unchecked, as `Responder.parent` says why.
    @exclusivity(unchecked) public private(set) var displayCount = 0

    func makeActive(_ coordinator: Coordinator) {
        displayCount += 1
        guard coordinator !== activeCoordinator else { return }
        if let previous = activeCoordinator { history.append(WeakCoordinator(previous)) }
        activeCoordinator = coordinator
    }

    /// The pages `back` would go through, oldest first, ending with the one shown: each flow the
    /// user came from (most recent visit of each), then the active flow's stack. A supervised
    /// front replays it as routes to rebuild the scene in a new app process, so that the page
    /// and `back` are where they were; a page that cannot be shown again is skipped, which
    /// leaves the scene on the page before it.
    public var pageTrail: [any Page] {
        var seen: Set<ObjectIdentifier> = []
        var flows: [Coordinator] = []
        for entry in history.reversed() {
            guard let flow = entry.value, flow.parent != nil, flow !== activeCoordinator,
                seen.insert(ObjectIdentifier(flow)).inserted
            else { continue }
            flows.append(flow)
        }
        flows.reverse()
        if let activeCoordinator { flows.append(activeCoordinator) }
        return flows.flatMap { $0.viewStack.map(\.page) }
    }

    /// Equal for two looks at the scene between which its page trail cannot have changed (no
    /// page shown, no page stack changed, no move between flows): a served scene reports its
    /// trail after every command and works it out again only when this moved.
    @_spi(Host) public var trailStamp: [Int] {
        [Coordinator.stackEpoch, displayCount, history.count, activeCoordinator.map { ObjectIdentifier($0).hashValue } ?? 0]
    }

    /// The last `limit` pages of `pageTrail`, found from the newest end: a served scene asks
    /// for its trail after every command, and the whole trail grows with the scene's history
    /// (a scene that ran for a day walked thousands of entries per command).
    public func pageTrail(last limit: Int) -> [any Page] {
        var newestFirst: [any Page] = []
        if let activeCoordinator { newestFirst += activeCoordinator.viewStack.reversed().lazy.prefix(limit).map(\.page) }
        // The history grows with the scene (an entry per change of flow), the flows do not:
        // the walk stops at the limit, or once every flow of the scene was taken.
        var seen: Set<ObjectIdentifier> = activeCoordinator.map { [ObjectIdentifier($0)] } ?? []
        let flows = children.count
        for entry in history.reversed() {
            guard newestFirst.count < limit, seen.count < flows else { break }
            guard let flow = entry.value, flow.parent != nil, seen.insert(ObjectIdentifier(flow)).inserted else { continue }
            newestFirst += flow.viewStack.reversed().lazy.prefix(limit - newestFirst.count).map(\.page)
        }
        return Array(newestFirst.prefix(limit).reversed())
    }

    /// Goes back one page: within the active flow if it has more than one page, else to the
    /// flow the user came from. Returns false when there is nowhere to go back to.
    @discardableResult
    public func back() -> Bool {
        if let active = activeCoordinator, active.viewStack.count > 1 {
            active.pop()
            return true
        }
        while let previous = history.popLast() {
            if let coordinator = previous.value, coordinator.parent != nil, coordinator.top != nil {
                activeCoordinator = coordinator
                coordinator.activate()
                return true
            }
        }
        return false
    }

    public override func childDidStop(_ child: Coordinator) {
        if activeCoordinator === child { activeCoordinator = nil }
        history.removeAll { $0.value === child }
        // The slot must not keep a stopped coordinator alive (the contract suite checks that
        // nothing does); the next message or page of its feature starts a fresh one.
        if let slot = byFeature.firstIndex(where: { $0 === child }) { byFeature[slot] = nil }
    }
}

struct WeakCoordinator {
    weak var value: Coordinator?
    init(_ value: Coordinator) { self.value = value }
}
