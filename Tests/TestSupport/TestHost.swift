import CoordData
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

/// A host for in-process tests: an app with the real plugin `.so` files loaded through the
/// real loader, the real data manager (SQLite on a temporary file, or a PostgreSQL database
/// given by URL), and the shipped config's
/// plugin sections (catalog, promo codes). Only the terminal is replaced: passwords come from
/// `password`, as `--password-env` would give them.
@MainActor
public final class TestHost {
    public let app: AppCoordinator
    public let loader: PluginLoader
    public let data: any HostDataManager
    public let directory: String
    public let secrets = GivenSecret()
    /// What each feature may reach, as the shell installs it.
    package private(set) var access: HostFeatureAccess

    /// `config` is TOML put over the built-in defaults (a file in the host's folder), as a
    /// user's config file would be; nil for the shipped config. `databasePath` is a SQLite
    /// file or a `postgresql://` URL; nil for a new SQLite file in the host's folder.
    public init(plugins: [String] = BuildProducts.bundledPlugins, databasePath: String? = nil, config text: String? = nil) throws {
        directory = try makeTemporaryDirectory("host")
        app = AppCoordinator()
        loader = PluginLoader(app: app)
        var configFile = BuildProducts.packageRoot + "/config/coordsh.toml"
        if let text {
            configFile = directory + "/coordsh.toml"
            try text.write(toFile: configFile, atomically: true, encoding: .utf8)
        }
        let config = try Config.load(from: configFile)
        data = DataManagers.make(location: databasePath ?? directory + "/shop.sqlite", busyTimeout: 0.2, statementTimeout: 30)
        HostServices.provide(
            to: app, environment: HostEnvironment(dataDirectory: directory, configFile: configFile, settings: config.featureSettings),
            data: data, secrets: secrets)
        access = HostFeatureAccess(grants: PluginGrants(configured: config.pluginGrants))
        access.app = app
        app.install(access: access)
        for name in plugins { try loader.load(BuildProducts.plugin(name)) }
    }

    /// Removes the temporary folder.
    public func close() {
        try? FileManager.default.removeItem(atPath: directory)
    }
}

/// The terminal's stand-in: answers every password prompt with `password`.
@MainActor
public final class GivenSecret: SecretPrompting {
    public var password = "correct horse"
    public private(set) var prompts: [String] = []

    public func secret(_ prompt: String, confirm: Bool) throws -> String {
        prompts.append(prompt)
        return password
    }
}
