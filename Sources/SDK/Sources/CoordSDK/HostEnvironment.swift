/// Facts about the running host that features may need: where to keep data, which config is
/// in force. The host puts it in `AppDependency` under `HostEnvironment.key`.
public struct HostEnvironment: Sendable, Equatable {
    /// The folder for the user's data (the shop's database lives here by default).
    public var dataDirectory: String
    /// The configuration file in force, or nil for built-in defaults.
    public var configFile: String?
    /// The SDK library version of the host.
    public var sdkVersion: String

    public init(dataDirectory: String, configFile: String?, sdkVersion: String = CoordSDKVersion.library) {
        self.dataDirectory = dataDirectory
        self.configFile = configFile
        self.sdkVersion = sdkVersion
    }

    /// The dependency slot the host fills.
    public static let key = ServiceKey<HostEnvironment>("host")
}
