@_spi(Host) import CoordSDK

/// What the checks that run "with dependencies" get: the services and the other plugins a
/// real host would have. A plugin author's test passes its own; `coordsh plugin check` passes
/// the shell's services on a scratch database and the installed plugins.
@MainActor
public struct ContractEnvironment {
    /// Fills a fresh app with services and companion features. It runs before the plugin
    /// under test, whose name it is given (so that an installed copy of the same plugin can
    /// be left out), is registered into that app.
    public var prepare: @MainActor (_ app: AppCoordinator, _ pluginName: String) throws -> Void

    /// An environment whose `prepare` fills each fresh app before the plugin under test is
    /// registered (its companions, the services it needs).
    public init(prepare: @escaping @MainActor (_ app: AppCoordinator, _ pluginName: String) throws -> Void = { _, _ in }) {
        self.prepare = prepare
    }
}
