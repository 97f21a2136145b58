@_spi(Host) import CoordSDK
import Foundation

/// What each plugin was granted beyond its own tables and the ordinary services.
///
/// A bundled plugin — one that ships with coordsh, beside its `libCoordSDK.so` — is granted
/// what it declares. An outside plugin is granted what it declares *and* the person granted
/// it, by plugin name, in the config (`[plugins.grants]`); what it declares and was not
/// granted is refused when it reaches for it, in one line that says how to grant it. A
/// feature registered in code (a test, a tool) is the host's own and trusted like a bundled
/// one.
public struct PluginGrants: Sendable {
    /// By plugin name, as the config gives them.
    public var configured: [String: [Capability]]
    /// The folder the bundled plugins are installed in (symbolic links resolved).
    public var bundledFolder: String
    /// What the person answered at a terminal or with `plugins grant` (`GrantStore`), by
    /// plugin name.
    public var remembered: [String: GrantStore.Answers] = [:]
    /// Plugins whose declarations count as granted: the one `coordsh plugin check` looks at,
    /// so that what it uses and did not declare is what fails.
    public var declarationsGranted: Set<String> = []

    public init(configured: [String: [Capability]], bundledFolder: String = Config.sdkDirectory()) {
        self.configured = configured
        self.bundledFolder = Self.resolved(bundledFolder)
    }

    /// True for a plugin installed with coordsh, or a feature registered in code. The file's
    /// symbolic links are resolved first: a link in the plugin folder to a bundled plugin runs
    /// the bundled code, and a link beside the SDK to a file elsewhere does not.
    package func isBundled(_ origin: PluginOrigin?) -> Bool {
        guard let origin else { return true }
        return (Self.resolved(origin.path) as NSString).deletingLastPathComponent == bundledFolder
    }

    /// What of `uses` the plugin may use.
    package func granted(_ uses: [Capability], origin: PluginOrigin?) -> [Capability] {
        if isBundled(origin) || origin.map({ declarationsGranted.contains($0.name) }) == true { return uses }
        let given = origin.map { (configured[$0.name] ?? []) + (remembered[$0.name]?.granted ?? []) } ?? []
        return uses.filter { wanted in given.contains { $0.covers(wanted) } }
    }

    /// What an interactive shell asks the person about: declared, not granted, and not
    /// already refused for this very file (`sha256`). Nothing for a bundled plugin.
    package func asks(_ uses: [Capability], origin: PluginOrigin?, sha256: String) -> [Capability] {
        guard let origin, !isBundled(origin) else { return [] }
        let answers = remembered[origin.name]
        let refused = answers?.refusedFor == sha256 ? answers?.refused ?? [] : []
        return ungranted(uses, origin: origin).filter { !refused.contains($0) }
    }

    /// What of `uses` the plugin asked for and was not granted.
    package func ungranted(_ uses: [Capability], origin: PluginOrigin?) -> [Capability] {
        let granted = granted(uses, origin: origin)
        return uses.filter { !granted.contains($0) }
    }

    private static func resolved(_ path: String) -> String {
        guard let real = realpath(path, nil) else { return path }
        defer { free(real) }
        return String(cString: real)
    }
}
