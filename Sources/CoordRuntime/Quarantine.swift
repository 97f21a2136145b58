import Foundation

/// Plugins set aside after crashing the app process more than once (`coordsh --supervised`),
/// kept in `$XDG_STATE_HOME/coordsh/quarantine.tsv` (one `name<TAB>reason` per line) so that
/// the next worker, and the next shell, do not load them again until `plugins allow NAME`.
/// A plugin that crashes whenever it is used would otherwise use up every restart.
public struct Quarantine: Sendable {
    public let path: String

    public init(path: String) {
        self.path = path
    }

    /// The quarantined plugins by name, with why; empty when the file is missing or unreadable.
    public func entries() -> [String: String] {
        guard let bytes = try? readWholeFile(path) else { return [:] }
        let text = String(decoding: bytes, as: UTF8.self)
        var entries: [String: String] = [:]
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: "\t", maxSplits: 1)
            if parts.count == 2 { entries[String(parts[0])] = String(parts[1]) }
        }
        return entries
    }

    /// Sets `name` aside with `reason` (one line: tabs and newlines become spaces).
    public func add(_ name: String, reason: String) throws {
        var all = entries()
        all[name] = reason.replacingOccurrences(of: "\t", with: " ").replacingOccurrences(of: "\n", with: " ")
        try write(all)
    }

    /// Lets `name` load again; false when it was not quarantined.
    public func remove(_ name: String) throws -> Bool {
        var all = entries()
        guard all.removeValue(forKey: name) != nil else { return false }
        try write(all)
        return true
    }

    private func write(_ entries: [String: String]) throws {
        try PrivateFolder.create((path as NSString).deletingLastPathComponent)
        let text = entries.sorted { $0.key < $1.key }.map { "\($0.key)\t\($0.value)\n" }.joined()
        try text.write(toFile: path, atomically: true, encoding: .utf8)
    }
}
