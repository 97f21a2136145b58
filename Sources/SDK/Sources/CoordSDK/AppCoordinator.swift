/// The root of the tree, one per process — the seeds' ApplicationCoordinator.
///
/// It owns the feature registry and the app-wide services, builds `AppDependency` from them and
/// pushes it to every scene, handles `global…` messages itself and routes every feature prefix
/// to that feature's coordinator in the scene the message came from.
@MainActor
public final class AppCoordinator: Coordinator {
    /// Isolated like `Responder`'s; written out for the module interface (see there).
    isolated deinit {}

    /// The registered features.
    @_spi(Host) public let features = FeatureRegistry()
    /// Services the host itself provides, by key.
    private var hostServices: [(key: DependencyKey, service: Any)] = []
    /// What each feature's code may reach; nil (a test, a tool) hands every feature the
    /// app's services as they are.
    /// Not readable: the object is what unseals services (`unsealed(_:by:)`), so only the host
    /// that installed it holds it.
    private(set) var access: (any FeatureAccess)? {
        didSet { rebuildDependencies() }
    }

    /// Installs what each feature may reach (see `FeatureAccess`) and rebuilds.
    @_spi(Host) public func install(access: any FeatureAccess) { self.access = access }
    /// The host's services that touch a person or a secret: only features granted them (or,
    /// for a feature's own, providing them) find them.
    public static let hostGuardedKeys = [Services.secrets.key, Services.passwords.key]
    /// The guarded slots, as of the last rebuild: the host's and every feature's guarded
    /// provisions. Empty without `access`.
    @_spi(Host) public private(set) var sealedKeys = DependencySet()
    var guardedKeys: [DependencyKey] { Array(sealedKeys) }
    /// The store the host provides in `Services.data`, before any feature's handle.
    var dataStore: (any DataManaging)? {
        hostServices.first { $0.key == Services.data.key }?.service as? any DataManaging
    }
    /// Receives queued, replayed and undeliverable messages reported from anywhere below.
    public var eventSink: (DispatchEvent) -> Void = { _ in }

    /// `globalDisplay(page:)`: show any page of any feature.
    public static let globalDisplay = MessageName("globalDisplay")

    /// An app with no feature registered yet: the host (or a contract test) registers
    /// plugins into it, then opens scenes.
    public init() {
        super.init(identifier: "app")
        handle(Self.globalDisplay) { [unowned self] message in
            guard let request = message.arguments["page"]?.routeValue else {
                throw CoordError.missingParameter(Parameter("page", .route), context: "globalDisplay")
            }
            let page = try features.page(for: request)
            guard let scene = sceneOf(message) else {
                throw CoordError.failed("globalDisplay: the message came from no scene")
            }
            try scene.display(page)
            return .handled
        }
        dependencies = AppDependency()
        start()
    }

    public override var chainDescription: String { "app" }

    /// The scenes, in creation order.
    public var scenes: [SceneCoordinator] { children.compactMap { $0 as? SceneCoordinator } }

    /// Opens a new scene (an interactive session) with the current dependencies. Identifiers
    /// are unique among open scenes: opening one whose identifier is taken closes the old one.
    public func makeScene(identifier: String) -> SceneCoordinator {
        if let existing = scenes.first(where: { $0.identifier == identifier }) { closeScene(existing) }
        let scene = SceneCoordinator(identifier: identifier, registry: features)
        startChild(scene)
        return scene
    }

    /// Closes a scene whose session ended: every coordinator in it hears `sceneWillClose`
    /// (deepest first), then the scene is stopped. Its queued messages are reported as
    /// dropped, to the scene's sink while it still has one; the other scenes are untouched.
    public func closeScene(_ scene: SceneCoordinator) {
        guard scene.parent === self else { return }
        var coordinators: [Coordinator] = []
        scene.walk { coordinator, _ in coordinators.append(coordinator) }
        for coordinator in coordinators.reversed() { coordinator.sceneWillClose() }
        // Said here rather than by each stop, so the report names why: the session ended.
        for coordinator in coordinators.reversed() {
            for view in coordinator.viewStack { view.dropQueuedMessages(reason: "scene \(scene.identifier) closed") }
            coordinator.dropQueuedMessages(reason: "scene \(scene.identifier) closed")
        }
        stopChild(scene)
    }

    /// The scene a message belongs to: the one its sender is in, else the only open scene.
    private func sceneOf(_ message: Message) -> SceneCoordinator? {
        message.sender?.scene ?? onlyScene
    }

    /// With one scene open there is no doubt which one a sender outside every scene means;
    /// with several, guessing would run a feature in somebody else's session.
    private var onlyScene: SceneCoordinator? {
        let open = scenes
        return open.count == 1 ? open[0] : nil
    }

    // MARK: Features

    /// Registers a plugin's features and rebuilds the dependencies, so that services it
    /// provides reach everyone and messages waiting for them replay.
    @_spi(Host) public func register(_ definitions: [FeatureDefinition], origin: PluginOrigin?) throws(CoordError) {
        try features.register(definitions, origin: origin)
        rebuildDependencies()
    }

    /// Registers a plugin's features from their manifests, without loading it (see
    /// `FeatureRegistry.register(manifests:origin:load:)`); the services they provide fill
    /// their slots with placeholders that load the plugin when read.
    /// `rebuild: false` leaves `rebuildDependencies` to the caller, once for a whole folder of
    /// plugins instead of once per plugin.
    @_spi(Host) public func register(
        manifests: [FeatureManifest], origin: PluginOrigin?, rebuild: Bool = true,
        load: @escaping @MainActor () throws(CoordError) -> Void
    ) throws(CoordError) {
        try features.register(manifests: manifests, origin: origin, load: load)
        if rebuild { rebuildDependencies() }
    }

    /// Puts a just-loaded plugin's live definitions in place of its manifests, and rebuilds
    /// the dependencies so that its real services replace the placeholders.
    @_spi(Host) public func fulfil(_ definitions: [FeatureDefinition], origin: PluginOrigin?) throws(CoordError) {
        try features.fulfil(definitions, origin: origin)
        rebuildDependencies()
    }

    /// The dependency keys some registered feature needs but neither the host nor any feature
    /// provides.
    public func unmetNeeds(of definitions: [FeatureDefinition]) -> [DependencyKey] {
        unmetNeeds(definitions.flatMap(\.needs), provided: definitions.flatMap { $0.provides.map(\.key) })
    }

    /// The same for features registered from manifests.
    @_spi(Host) public func unmetNeeds(of manifests: [FeatureManifest]) -> [DependencyKey] {
        unmetNeeds(manifests.flatMap(\.needs).map(DependencyKey.init), provided: manifests.flatMap(\.provides).map(DependencyKey.init))
    }

    private func unmetNeeds(_ needs: [DependencyKey], provided: [DependencyKey]) -> [DependencyKey] {
        // Most plugins need nothing: then there is no set of every provided service to build
        // (which made registering N plugins quadratic).
        guard !needs.isEmpty else { return [] }
        var available = DependencySet(hostServices.map(\.key) + provided)
        for feature in features.features { for key in feature.providedKeys { available.insert(key) } }
        return needs.filter { !available.contains($0) }
    }

    // MARK: Dependencies

    /// Adds or replaces a service the host provides, then rebuilds.
    public func provide<Service>(_ key: ServiceKey<Service>, _ service: Service) {
        hostServices.removeAll { $0.key == key.key }
        hostServices.append((key.key, service))
        rebuildDependencies()
    }

    /// Builds a new `AppDependency` from the host's services and every feature's provisions,
    /// and pushes it to every scene — the seeds' `rebuildDependencies` and
    /// `updateSceneDependencies`. A provision's `make` runs twice per rebuild and must be
    /// cheap and idempotent.
    public func rebuildDependencies() {
        var value = AppDependency()
        for (key, service) in hostServices { value.set(key, service, provider: "host") }
        var sealed = DependencySet()
        if access != nil {
            for key in Self.hostGuardedKeys { sealed.insert(key) }
            for feature in features.features { for key in feature.guardedKeys { sealed.insert(key) } }
        }
        sealedKeys = sealed
        // Two passes: the first fills every slot, the second hands each provider the complete
        // value, so that a feature registered before another still sees its services.
        for _ in 0..<2 {
            for feature in features.features {
                guard feature.isLoaded else {
                    for key in feature.providedKeys { value.set(key, deferredService(key, of: feature), provider: feature.name) }
                    continue
                }
                guard !feature.definition.provides.isEmpty else { continue }
                // Each provider makes its service from its own view: its data handle, the
                // guarded services it was granted.
                let view = access == nil ? value : dependencies(for: feature, from: Self.sealing(value, sealed))
                for provision in feature.definition.provides {
                    value.set(provision.key, provision.make(view ?? value), provider: feature.name)
                }
            }
        }
        if let access {
            value = Self.sealing(value, sealed)
            if let store = dataStore { value.set(Services.data.key, access.data(for: nil, store: store), provider: "host") }
        }
        dependencies = value
    }

    private static func sealing(_ value: AppDependency, _ keys: DependencySet) -> AppDependency {
        var value = value
        for key in keys { value.seal(key) }
        return value
    }

    /// A slot of a feature that is only registered: reading it loads the plugin, then reads the
    /// slot the rebuilt dependencies hold. A plugin that cannot be loaded leaves the slot
    /// empty (the reader fails in its own words) and says why in one line.
    private func deferredService(_ key: DependencyKey, of feature: Feature) -> DeferredService {
        DeferredService { [weak self, weak feature] in
            guard let self, let feature else { return nil }
            do throws(CoordError) {
                try feature.load()
            } catch {
                eventSink(.note("plugin \(feature.origin?.name ?? feature.name) could not be loaded: \(error.message)"))
                return nil
            }
            var service = dependencies?.stored(key)
            // Only a view that was granted the slot holds this placeholder unsealed.
            if let sealed = exactly(service, SealedService.self) { service = sealed.service }
            return exactly(service, DeferredService.self) != nil ? nil : service
        }
    }

    /// Loads `feature`'s plugin if it is only registered, for a message or page of it.
    @_spi(Host) public func load(_ feature: Feature) throws(CoordError) {
        try feature.load()
    }

    // MARK: Routing

    @_spi(Host) public override func reachedTop(
        _ message: Message, scene: SceneCoordinator?, chain: [ObjectIdentifier], handledBelow: Bool,
        trace: DispatchTrace?
    ) throws -> DispatchOutcome {
        let prefix = message.name.prefix
        guard prefix != .global, let feature = features.feature(for: prefix) else {
            if handledBelow { return .handled }
            trace?.record(self, .unhandled)
            throw CoordError.unknownMessage(message.name.string, suggestion: suggestion(for: message.name))
        }
        guard let scene = scene ?? onlyScene else {
            let open = scenes.count
            throw CoordError.failed(open == 0
                ? "\(message.name): no scene is open to run feature '\(feature.name)'"
                : "\(message.name): sent from outside every scene while \(open) are open; send it from a page or coordinator of the scene it is for")
        }
        guard scene.parent === self else {
            throw CoordError.failed("\(message.name): scene \(scene.identifier) closed while the message was on its way")
        }
        if let running = scene.runningCoordinator(for: feature), chain.contains(ObjectIdentifier(running)) {
            // It was on the way up and did not finish the message; delivering it again would
            // run its handler twice.
            if handledBelow { return .handled }
            trace?.record(self, .unhandled)
            throw CoordError.unknownVerb(prefix: feature.definition.prefix, verb: message.name.verb, suggestion: nil)
        }
        // The feature's door: whoever sent it (the prompt, another plugin, a replay), the
        // handler only ever sees arguments that match what the feature declared.
        do {
            try feature.check(message)
        } catch {
            trace?.record(self, .unhandled)
            throw error
        }
        try feature.load()
        let target = scene.coordinator(for: feature)
        trace?.record(self, .routed(to: target.chainDescription))
        return try target.deliver(message, handledBelow: handledBelow, trace: trace)
    }

    private func suggestion(for name: MessageName) -> String? {
        let all = features.features.flatMap { f in f.definition.messages.map { f.definition.messageName($0.verb).string } }
            + [Self.globalDisplay.string]
        return Suggest.closest(to: name.string, in: all)
    }

    public override func receive(_ event: DispatchEvent) -> Bool {
        eventSink(event)
        return true
    }
}

extension Coordinator {
    /// Runs a message routed down to this coordinator by the app. It is not passed up again:
    /// it already came from there.
    func deliver(_ message: Message, handledBelow: Bool, trace: DispatchTrace?) throws -> DispatchOutcome {
        guard let handler = handlers[message.name.id] else {
            trace?.record(self, .unhandled)
            throw CoordError.unknownVerb(prefix: message.name.prefix.string, verb: message.name.verb, suggestion: nil)
        }
        // A feature's handler stays its feature's: resolved on the first counted delivery, not
        // on each (the walk up, a cast and a weak load cost a counted send 40 %).
        if handler.feature < 0, FeatureClock.installed != nil { handler.feature = FeatureClock.number(of: self) }
        var handledBelow = handledBelow
        // Routed, the executor always ends the send here (handled, queued or an error).
        return try DispatchExecutor.visit(
            self, handler, message, trace: trace, routed: true, handledBelow: &handledBelow) ?? .handled
    }
}

extension Responder {
    /// Fills (or, with nil, empties) a slot of the scene this level belongs to: what a login
    /// does with the user. Only that scene and what is under it see the change, and messages
    /// waiting for it there replay; other scenes keep their own value.
    public func provideInScene<Service>(_ key: ServiceKey<Service>, _ service: Service?) throws(CoordError) {
        var level: Responder? = self
        var feature: Responder = self
        while let current = level {
            if let scene = current as? SceneCoordinator {
                scene.provide(key, service, provider: feature.identifier)
                return
            }
            feature = current
            level = current.parent
        }
        throw .failed("\(chainDescription) is in no scene, so it cannot set the scene's '\(key.key.name)'")
    }

    /// Asks the app to rebuild `AppDependency` from its providers and push it down the tree.
    ///
    /// A feature calls this after something it provides changed (Account after a login): the
    /// new value reaches every coordinator, and messages waiting for it replay.
    public func requestDependencyRebuild() {
        var level: Responder? = self
        while let current = level {
            if let app = current as? AppCoordinator {
                app.rebuildDependencies()
                return
            }
            level = current.parent
        }
    }
}
