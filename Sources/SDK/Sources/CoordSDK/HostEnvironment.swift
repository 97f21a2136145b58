internal import Foundation

/// Facts about the running host that features may need: where to keep data, which config is
/// in force, and each feature's own section of it. The host puts it in `AppDependency` under
/// `HostEnvironment.key`.
public struct HostEnvironment: Sendable, Equatable {
    /// The folder for the user's data (the shop's database lives here by default).
    public var dataDirectory: String
    /// The configuration file in force, or nil for built-in defaults.
    public var configFile: String?
    /// The SDK library version of the host.
    public var sdkVersion: String
    /// The config file's sections that the host does not read itself (`[content]`, `[cart]`),
    /// each as JSON, so that plugins can decode their settings without a TOML parser.
    public var settings: [String: String]

    /// What the host tells a plugin about where it runs; a test builds one to run a feature
    /// against a folder of its own.
    public init(
        dataDirectory: String, configFile: String?, sdkVersion: String = CoordSDKVersion.library,
        settings: [String: String] = [:]
    ) {
        self.dataDirectory = dataDirectory
        self.configFile = configFile
        self.sdkVersion = sdkVersion
        self.settings = settings
    }

    /// The folder relative paths in the config are resolved against: the config file's.
    public var configDirectory: String? {
        configFile.map { (($0 as NSString).deletingLastPathComponent as NSString).standardizingPath }
    }

    /// Decodes the `[section]` of the config into `T`; nil when there is no such section.
    /// A section that does not fit `T` is a one-line error naming the section and the key
    /// (`config [cart] offers[0].expires: missing`).
    public func settings<T: Decodable>(_ section: String, as type: T.Type) throws -> T? {
        guard let json = settings[section] else { return nil }
        do {
            return try JSONDecoder().decode(T.self, from: Data(json.utf8))
        } catch {
            throw CoordError.failed("config [\(section)] \(DecodingProblem.describe(error))")
        }
    }

    /// `path` if absolute, else resolved against the config file's folder.
    public func resolve(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        return ((configDirectory ?? FileManager.default.currentDirectoryPath) as NSString).appendingPathComponent(path)
    }

    /// The dependency slot the host fills.
    public static let key = ServiceKey<HostEnvironment>("host")
}
