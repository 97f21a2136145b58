/// A coordinator owns one flow of pages and decides what is shown next; page views never
/// navigate by themselves.
///
/// Coordinators form a tree: the app at the root, a scene per interactive session, one
/// coordinator per feature plugin below each scene, and whatever child coordinators a feature
/// starts. Each keeps its children by identifier, its own navigation stack of page views, and
/// the app-wide dependencies, which it hands to every child and view.
@MainActor
open class Coordinator: Responder {
    /// Isolated like `Responder`'s; written out for the module interface (see there).
    isolated deinit {}

    /// Children in start order, keyed by identifier; the order makes `tree` output stable.
    @exclusivity(unchecked) public private(set) var children: [Coordinator] = []
    /// This coordinator's pages, bottom to top. The top one is what the user sees.
    @exclusivity(unchecked) public private(set) var viewStack: [PageView] = [] {
        didSet { Coordinator.stackEpoch &+= 1 }
    }
    /// Moves whenever any coordinator's pages change: with the scene's own counts, what tells
    /// a served scene that its page trail is the one it reported last.
    @_spi(Host) public private(set) static var stackEpoch = 0
    /// True between `start` and `stop`.
    public private(set) var isStarted = false

    public override init(identifier: String) {
        super.init(identifier: identifier)
    }

    /// The parent as a coordinator (nil for the app).
    public var parentCoordinator: Coordinator? { parent as? Coordinator }

    open override var chainDescription: String { "coordinator \(identifier)" }

    // MARK: Lifecycle

    /// Starts the flow. Subclasses call super, then usually `root(_:)` their first page.
    open func start() {
        isStarted = true
    }

    /// Stops the flow: children first, then this coordinator's own pages. Queued messages that
    /// can now never be delivered are reported, not silently dropped.
    open func stop() {
        for child in children.reversed() { stopChild(child) }
        dropQueuedMessages(reason: "\(chainDescription) stopped")
        for view in viewStack.reversed() { detach(view) }
        viewStack.removeAll()
        isStarted = false
        DispatchEpoch.advance()
    }

    /// Adds `child` under this coordinator, hands it the current dependencies and starts it.
    /// Starting a child whose identifier is taken stops the old one first.
    public func startChild(_ child: Coordinator) {
        if let existing = self.child(identifier: child.identifier), existing !== child { stopChild(existing) }
        if !children.contains(where: { $0 === child }) { children.append(child) }
        child.parent = self
        child.inherit(dependencies)
        if !child.isStarted { child.start() }
    }

    /// Stops `child` and removes it from the tree.
    public func stopChild(_ child: Coordinator) {
        guard let index = children.firstIndex(where: { $0 === child }) else { return }
        // A send may still be running the child's handler (it may have stopped itself): the
        // child lives until the outermost send returns, and that send reads nothing of it
        // after the epoch moved.
        DispatchReclaimer.retire(child)
        if child.isStarted { child.stop() }
        children.remove(at: index)
        child.parent = nil
        child.clearDispatchCache()
        childDidStop(child)
    }

    /// Hook: a child was stopped and removed.
    open func childDidStop(_ child: Coordinator) {}

    /// A child says its flow is complete. The default stops it; override to decide what the
    /// user sees next.
    open func coordinatorDidFinish(_ child: Coordinator) {
        stopChild(child)
    }

    /// The child with this identifier, if running.
    public func child(identifier: String) -> Coordinator? {
        children.first { $0.identifier == identifier }
    }

    /// Called when this coordinator's flow becomes the one the user sees again (the user went
    /// back to it). Override to refresh.
    open func activate() {}

    /// Called on every coordinator of a scene, deepest first, just before the app closes that
    /// scene (its terminal or client went away) and stops them. `stop` alone cannot tell a
    /// closing scene from a flow that merely finished; override this to discard what belonged
    /// to the scene only (the Cart feature deletes a client's guest cart here).
    open func sceneWillClose() {}

    /// Makes this coordinator's top page the one the scene shows, taking over from whichever
    /// coordinator showed its page before.
    public func takeover() {
        scene?.makeActive(self)
    }

    // MARK: Dependencies

    /// Set by the scene on a feature's root coordinator: the feature whose view of the
    /// services (`FeatureAccess`) it and everything under it get.
    weak var accessFeature: Feature?

    override func inherit(_ value: AppDependency?) {
        dependencies = featureView(of: value)
    }

    open override func dependenciesDidChange() {
        updateChildCoordinatorDependencies()
        super.dependenciesDidChange()
    }

    /// Pushes this coordinator's dependencies to every child coordinator and page view (which
    /// push them further down), as the seeds' method of the same name does.
    public func updateChildCoordinatorDependencies() {
        for view in viewStack { view.inherit(dependencies) }
        for child in children { child.inherit(dependencies) }
    }

    // MARK: Navigation

    /// Builds the page view for `page`. Features override this to return their own views; the
    /// default shows the route and nothing else.
    open func makeView(for page: any Page) throws -> PageView {
        PageView(page: page)
    }

    /// Pushes a view for `page` on top of this coordinator's stack and shows it.
    @discardableResult
    public func show(_ page: any Page) throws -> PageView {
        if let top, top.pageRoute == page.route {
            // Showing the page that is already on top refreshes it instead of stacking a copy.
            takeover()
            return top
        }
        let view = try makeView(for: page)
        attach(view)
        viewStack.append(view)
        takeover()
        return view
    }

    /// Replaces the whole stack with a view for `page`.
    @discardableResult
    public func root(_ page: any Page) throws -> PageView {
        let view = try makeView(for: page)
        for old in viewStack { detach(old) }
        attach(view)
        viewStack = [view]
        takeover()
        return view
    }

    /// The page view on top of the stack: what the user sees of this flow.
    public var top: PageView? { viewStack.last }

    /// Removes the top page view. Returns it, or nil when the stack was already empty.
    @discardableResult
    public func pop() -> PageView? {
        guard let view = viewStack.popLast() else { return nil }
        detach(view)
        return view
    }

    private func attach(_ view: PageView) {
        view.parent = self
        view.inherit(dependencies)
    }

    private func detach(_ view: PageView) {
        DispatchReclaimer.retire(view)  // a send may be running its handler
        if !view.queue.isEmpty { view.dropQueuedMessages(reason: "page \(view.pageRoute) closed") }
        view.parent = nil
        view.clearDispatchCache()
    }

    // MARK: Inspection

    /// Every coordinator in this subtree, depth-first, with its depth.
    public func walk(_ depth: Int = 0, _ visit: (Coordinator, Int) -> Void) {
        visit(self, depth)
        for child in children { child.walk(depth + 1, visit) }
    }
}
