/// Something a feature needs beyond its own tables and the ordinary services, declared in its
/// `FeatureDefinition(uses:)` so that the person can see it and grant it before it is used.
///
/// A plugin is a guest: what it may reach is what it declared and the person granted (a
/// bundled plugin's declarations come granted, as it ships with coordsh). Everything else is
/// refused where the host can stop it — another feature's table by the data layer, a guarded
/// service by its absence from the feature's `AppDependency`, a file, an address or a program
/// by the kernel's sandbox — in one line that names what was refused and how to grant it.
///
/// The text form (`read products`, `service secrets`, `connect example.org:443`) is what the
/// registry cache keeps, `plugins NAME` shows and `plugins grant NAME …` and the config take.
public enum Capability: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Read another feature's table (`SELECT`).
    case read(table: String)
    /// Read and change another feature's table (`SELECT`, `INSERT`, `UPDATE`, `DELETE`).
    case write(table: String)
    /// A guarded service slot: the host's `secrets` and `passwords`, or one a feature marks
    /// guarded (the shop's `accounts` and `payments`).
    case service(String)
    /// Read files under a folder (or one file).
    case readPath(String)
    /// Read and write files under a folder (or one file).
    case writePath(String)
    /// Open TCP connections to a port (`host:port`; the kernel's rule is by port).
    case connect(host: String, port: Int)
    /// Start a program.
    case run(String)

    /// Every kind, as its first word, in the order `plugins NAME` lists them.
    public static let kinds = ["read", "write", "service", "read-path", "write-path", "connect", "run"]

    public var description: String {
        switch self {
        case .read(let table): "read \(table)"
        case .write(let table): "write \(table)"
        case .service(let name): "service \(name)"
        case .readPath(let path): "read-path \(path)"
        case .writePath(let path): "write-path \(path)"
        case .connect(let host, let port): "connect \(host):\(port)"
        case .run(let program): "run \(program)"
        }
    }

    /// Parses the text form; nil for anything else, so that a config line or a cache entry
    /// that does not say one capability grants nothing.
    public init?(_ text: String) {
        let parts = text.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2 else { return nil }
        let value = String(parts[1]).trimmingSpaces
        guard !value.isEmpty, !value.contains(" "), value.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value != 0x7F }) else { return nil }
        switch parts[0] {
        case "read": self = .read(table: value)
        case "write": self = .write(table: value)
        case "service": self = .service(value)
        case "read-path", "write-path", "run":
            guard value.hasPrefix("/") else { return nil }
            self = parts[0] == "run" ? .run(value) : parts[0] == "read-path" ? .readPath(value) : .writePath(value)
        case "connect":
            guard let colon = value.lastIndex(of: ":"), let port = Int(value[value.index(after: colon)...]),
                  (1...65535).contains(port), colon != value.startIndex else { return nil }
            self = .connect(host: String(value[..<colon]), port: port)
        default: return nil
        }
    }

    /// True when a grant of `self` covers `wanted`: the same capability, or a write of the
    /// table wanted read, or a writable folder for a path read.
    public func covers(_ wanted: Capability) -> Bool {
        if self == wanted { return true }
        switch (self, wanted) {
        case (.write(let granted), .read(let table)): return granted == table
        case (.writePath(let granted), .readPath(let path)): return granted == path
        default: return false
        }
    }

    public static func < (a: Capability, b: Capability) -> Bool { a.description < b.description }

    /// How it is written in Swift, for a message that tells an author what to declare.
    public var swiftSpelling: String {
        switch self {
        case .read(let table): ".read(table: \"\(table)\")"
        case .write(let table): ".write(table: \"\(table)\")"
        case .service(let name): ".service(\"\(name)\")"
        case .readPath(let path): ".readPath(\"\(path)\")"
        case .writePath(let path): ".writePath(\"\(path)\")"
        case .connect(let host, let port): ".connect(host: \"\(host)\", port: \(port))"
        case .run(let program): ".run(\"\(program)\")"
        }
    }
}

extension String {
    fileprivate var trimmingSpaces: String {
        var s = Substring(self)
        while s.first == " " || s.first == "\t" { s.removeFirst() }
        while s.last == " " || s.last == "\t" { s.removeLast() }
        return String(s)
    }
}
