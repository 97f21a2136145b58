import CoordLoading

/// What vetting concluded about one plugin file; cached until the file changes.
public struct PluginVerdict: Sendable, Equatable {
    public var name: String?
    public var version: String?
    /// Nil when the plugin may be loaded.
    public var refusal: PluginRefusal.Kind?
    public var reason: String?

    public init(name: String? = nil, version: String? = nil, refusal: PluginRefusal.Kind?, reason: String?) {
        self.name = name
        self.version = version
        self.refusal = refusal
        self.reason = reason
    }
}
