import CoordRuntime
@_spi(Host) import CoordSDK

/// The host's `FeatureAccess`: each feature's data handle scoped to it (`ScopedData`), and the
/// guarded services only to features that declared them and were granted them
/// (`PluginGrants`).
@MainActor
package final class HostFeatureAccess: FeatureAccess {
    public var grants: PluginGrants {
        didSet { handles.removeAll() }
    }
    /// One guard per store, and one handle per feature on it.
    private var guards: [ObjectIdentifier: StoreGuard] = [:]
    private var handles: [String: ScopedData] = [:]
    private var appHandle: ScopedData?

    public init(grants: PluginGrants) {
        self.grants = grants
    }

    package func data(for feature: Feature?, store: any DataManaging) -> any DataManaging {
        // Only the host's own stores are scoped; a store a test puts in is used as it is.
        guard store is SQLiteDataManager || store is PostgresDataManager else { return store }
        let shared = storeGuard(store)
        guard let feature else {
            if let appHandle, appHandle.shared === shared { return appHandle }
            let handle = ScopedData(feature: nil, shared: shared)
            appHandle = handle
            return handle
        }
        let granted = grants.granted(feature.uses, origin: feature.origin)
        var grant = DataGrant(plugin: feature.origin?.name ?? feature.name)
        for capability in granted {
            switch capability {
            case .read(let table): grant.reads.insert(TableName(table))
            case .write(let table): grant.writes.insert(TableName(table))
            default: break
            }
        }
        shared.guardian.setGrant(grant, for: feature.name)
        if let handle = handles[feature.name], handle.shared === shared { return handle }
        let handle = ScopedData(feature: feature.name, shared: shared)
        handles[feature.name] = handle
        return handle
    }

    /// The feature that owns `table` in a store a feature's handle was made on (nil when none
    /// is known): whose table a declared `read TABLE` reaches, for `map`.
    package func owner(ofTable table: String) -> String? {
        guards.values.lazy.compactMap { $0.guardian.owner(of: table) }.first
    }

    package func mayUse(_ key: DependencyKey, feature: Feature) -> Bool {
        grants.granted(feature.uses, origin: feature.origin).contains(.service(key.name))
    }

    private func storeGuard(_ store: any DataManaging) -> StoreGuard {
        let id = ObjectIdentifier(store)
        if let known = guards[id] { return known }
        let shared = StoreGuard(store: store)
        shared.trusted = { [weak self] name in
            guard let self, let app = self.app, let feature = app.features.feature(named: name) else { return true }
            return self.grants.isBundled(feature.origin)
        }
        guards[id] = shared
        return shared
    }

    /// The app it was installed in, to tell bundled features from outside ones by name.
    public weak var app: AppCoordinator?

    /// How many statements the guard compiled to decide (for the benchmark and tests).
    public var statementsCompiled: Int { guards.values.map(\.guardian.compiled).reduce(0, +) }
}
