/// A loaded plugin as a hello names it: how a supervising front tells that a new app process
/// has the upgraded version of a plugin (and still has the others). On the wire it is one
/// string, "NAME VERSION" (PROTOCOL.md); everywhere else it is this value, read once.
public struct PluginIdentity: Hashable, Sendable, CustomStringConvertible {
    public let name: String
    public let version: String

    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }

    /// "NAME VERSION" from a frame; nil when it is not two words.
    public init?(wire: String) {
        let parts = wire.split(separator: " ", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else { return nil }
        self.init(name: String(parts[0]), version: String(parts[1]))
    }

    /// "NAME VERSION", as the wire carries it.
    public var description: String { "\(name) \(version)" }
}
