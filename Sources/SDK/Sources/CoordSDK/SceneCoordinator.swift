/// One interactive session — the terminal is one scene. It owns the feature coordinators of
/// that session and knows which one the user is looking at.
///
/// Features are started lazily, the first time one of their pages or messages is wanted in this
/// scene, and reused after that (the seeds' `showCart`).
@MainActor
public final class SceneCoordinator: Coordinator {
    /// The coordinator whose top page the user sees.
    public private(set) weak var activeCoordinator: Coordinator?
    /// Coordinators the user came from, for `back` across features.
    private var history: [WeakCoordinator] = []
    private var byFeature: [Coordinator?] = []
    private let registry: FeatureRegistry

    init(identifier: String, registry: FeatureRegistry) {
        self.registry = registry
        super.init(identifier: identifier)
    }

    public override var chainDescription: String { "scene \(identifier)" }

    /// The page view the user is on; messages typed at the prompt start here.
    public var currentView: PageView? { activeCoordinator?.top }

    /// The running coordinator of `feature` in this scene, started on first use.
    public func coordinator(for feature: Feature) -> Coordinator {
        let slot = Int(feature.prefix.id)
        if slot < byFeature.count, let existing = byFeature[slot], existing.parent === self {
            return existing
        }
        let coordinator = feature.definition.makeCoordinator()
        if byFeature.count <= slot { byFeature.append(contentsOf: repeatElement(nil, count: slot + 1 - byFeature.count)) }
        byFeature[slot] = coordinator
        startChild(coordinator)
        return coordinator
    }

    /// The running coordinator of `feature`, or nil when it has not been started.
    public func runningCoordinator(for feature: Feature) -> Coordinator? {
        let slot = Int(feature.prefix.id)
        guard slot < byFeature.count, let c = byFeature[slot], c.parent === self else { return nil }
        return c
    }

    /// Shows `page` in its feature's coordinator, starting that coordinator if needed.
    @discardableResult
    public func display(_ page: any Page) throws -> PageView {
        guard let feature = registry.feature(named: type(of: page).feature) else {
            throw CoordError.unknownFeature(type(of: page).feature, suggestion: nil)
        }
        return try coordinator(for: feature).show(page)
    }

    /// Advances every time a page is shown (even the same one again), so the shell knows when
    /// to print the page after a command.
    public private(set) var displayCount = 0

    func makeActive(_ coordinator: Coordinator) {
        displayCount += 1
        guard coordinator !== activeCoordinator else { return }
        if let previous = activeCoordinator { history.append(WeakCoordinator(previous)) }
        activeCoordinator = coordinator
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
