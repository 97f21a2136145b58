/// What each feature's code may reach, decided by the host (from what the feature declared in
/// `FeatureDefinition(uses:)` and what the person granted) and applied by the app wherever it
/// hands a feature its `AppDependency`: to the feature's coordinators, to its service
/// provisions and to its completions.
///
/// The app's own value (what scenes hold, what `deps` shows) has every guarded service sealed
/// and the data store replaced by a handle that reaches no feature's tables, so code that
/// climbs the tree to a scene finds nothing it was not given. A feature's view has the data
/// store replaced by its own handle (its statements run as that feature) and the guarded
/// services it was granted unsealed; those it was not granted are absent and marked denied,
/// so that `require` names the missing grant instead of a missing plugin.
@MainActor
@_spi(Host) public protocol FeatureAccess: AnyObject {
    /// The data handle the code of `feature` uses in place of the app's store, or, for nil,
    /// the handle the app's own value holds (one that reaches no feature's tables).
    func data(for feature: Feature?, store: any DataManaging) -> any DataManaging
    /// Whether `feature` may use the guarded service in `key`'s slot.
    func mayUse(_ key: DependencyKey, feature: Feature) -> Bool
}

/// A guarded service as the app's value holds it: not of the service's type, so that reading
/// the slot gives nil to anyone who was not handed the feature's view (`AppDependency`'s
/// subscript casts).
final class SealedService {
    let service: Any
    init(_ service: Any) { self.service = service }
}

extension AppDependency {
    /// Replaces the service in `key`'s slot by its sealed form (keeping who provided it).
    mutating func seal(_ key: DependencyKey) {
        guard let stored = stored(key), exactly(stored, SealedService.self) == nil else { return }
        set(key, SealedService(stored), provider: provider(of: key))
    }

    /// The service sealed in `key`'s slot, unsealed; an empty slot marked denied when
    /// `granted` is false.
    mutating func unseal(_ key: DependencyKey, granted: Bool) {
        guard let sealed = exactly(stored(key), SealedService.self) else { return }
        if granted {
            set(key, sealed.service, provider: provider(of: key))
        } else {
            set(key, nil, provider: nil)
            markDenied(key)
        }
    }
}

extension AppCoordinator {
    /// The services as `feature`'s code sees them, built from `value` (the app's, or a
    /// scene's): its own data handle, the guarded services it was granted.
    func dependencies(for feature: Feature, from value: AppDependency?) -> AppDependency? {
        guard let access, var view = value else { return value }
        if let store = dataStore { view.set(Services.data.key, access.data(for: feature, store: store), provider: view.provider(of: Services.data.key)) }
        for key in guardedKeys where view.contains(key) {
            // A feature always reaches the services it provides itself.
            let own = feature.providedKeys.contains(key)
            view.unseal(key, granted: own || access.mayUse(key, feature: feature))
        }
        return view
    }
}

extension AppCoordinator {
    /// For the host, which holds the `FeatureAccess` it installed: `value` (a scene's) as
    /// `feature`'s code sees it — what the host hands a feature's completions.
    @_spi(Host) public func dependencies(for feature: Feature, from value: AppDependency?, by holder: any FeatureAccess) -> AppDependency? {
        guard let access, access === holder else { return nil }
        return dependencies(for: feature, from: value)
    }

    /// For the host: `value` with every guarded service unsealed (the host's own uses, such
    /// as putting a person back after a restart). Nil for anyone but the installed holder.
    @_spi(Host) public func unsealed(_ value: AppDependency?, by holder: any FeatureAccess) -> AppDependency? {
        guard let access else { return value }
        guard access === holder, var value else { return nil }
        for key in sealedKeys { value.unseal(key, granted: true) }
        if let store = dataStore { value.set(Services.data.key, store, provider: "host") }
        return value
    }

    /// For the host: one guarded service of `value`, unsealed — what `unsealed(_:by:)` gives
    /// for one slot, without unsealing the rest (the host asks for a scene's login token after
    /// every command). `loading` false: nil while the provider's plugin is not loaded yet,
    /// rather than loading it (a question that must not cost a plugin's start). Nil for anyone
    /// but the installed holder.
    @_spi(Host) public func unsealed<Service>(
        _ key: ServiceKey<Service>, in value: AppDependency?, by holder: any FeatureAccess, loading: Bool = true
    ) -> Service? {
        guard let value, access == nil || access === holder else { return nil }
        var stored = value.stored(key.key)
        if let sealed = exactly(stored, SealedService.self) { stored = sealed.service }
        // A provider not loaded yet is known by its class before any cast to the service's
        // protocol: that cast, failing, searched every image's conformance records (a
        // supervised start asks for the login token of its first scene).
        if let deferred = exactly(stored, DeferredService.self) { return loading ? deferred.service() as? Service : nil }
        return stored as? Service
    }
}

extension Responder {
    /// The plugin this level's feature came from (or the feature's name for one registered in
    /// code), for refusals that say whom to grant something to.
    var pluginName: String? {
        var level: Responder? = self
        while let current = level {
            if let coordinator = current as? Coordinator, let feature = coordinator.accessFeature {
                return feature.origin?.name ?? feature.name
            }
            level = current.parent
        }
        return nil
    }
}

extension Coordinator {
    /// A feature's root coordinator takes the app's or scene's value as its feature sees it;
    /// every other level takes it as it is.
    func featureView(of value: AppDependency?) -> AppDependency? {
        guard let feature = accessFeature, let app = scene?.parent as? AppCoordinator else { return value }
        return app.dependencies(for: feature, from: value)
    }
}
