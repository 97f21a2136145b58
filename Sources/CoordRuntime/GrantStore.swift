@_spi(Host) import CoordSDK
import Foundation

/// The person's answers to outside plugins' requests — asked once at a terminal, or given
/// with `plugins grant` / `plugins revoke` — kept in `$XDG_CONFIG_HOME/coordsh/plugin-grants.tsv`
/// beside the config, where no process that runs plugin code may write (the sandbox makes the
/// state and cache folders writable, never the config's).
///
/// What was granted stays granted to the plugin of that name, whichever version (as
/// `[plugins.grants]` does); what was refused is remembered for the file the person was
/// asked about (its SHA-256), so that a new version that asks again is asked again, and one
/// that asks for more is asked about what is new.
///
/// The file is opened before the process enters its sandbox and kept open: the shell at the
/// terminal (and a supervised shell's front) writes its answers through that descriptor; a
/// worker opens it for reading only. One line per plugin and answer:
/// `NAME<TAB>SHA256<TAB>granted|refused<TAB>CAPABILITY<TAB>…`.
public final class GrantStore {
    /// What the person answered for one plugin.
    public struct Answers: Sendable, Equatable {
        public var granted: [Capability] = []
        /// The file's SHA-256 the refusals were given for.
        public var refusedFor: String = ""
        public var refused: [Capability] = []
        public init() {}
    }

    public let path: String
    private var descriptor: Int32
    /// This process may write the answers (the shell at the terminal, a supervised front).
    public let isWritable: Bool
    static let header = "# coordsh plugin grants 1: NAME, SHA-256 of the file asked about, granted|refused, what"

    /// Opens the store at `path`, for reading and (`writable`) writing; a missing file is an
    /// empty store, made (with its folder, 0700) by the first answer written.
    public init(path: String, writable: Bool) {
        self.path = path
        isWritable = writable
        descriptor = open(path, (writable ? O_RDWR : O_RDONLY) | O_CLOEXEC | O_NOFOLLOW)
    }

    deinit {
        if descriptor >= 0 { close(descriptor) }
    }

    /// Every plugin's answers, by plugin name; empty when the file is missing or unreadable.
    public func answers() -> [String: Answers] {
        guard descriptor >= 0 else { return [:] }
        flock(descriptor, LOCK_SH)
        defer { flock(descriptor, LOCK_UN) }
        return Self.parse(readAll())
    }

    /// Grants `capabilities` to `name` (and forgets any refusal of them).
    public func grant(_ name: String, _ capabilities: [Capability]) throws {
        try change { all in
            var entry = all[name] ?? Answers()
            for capability in capabilities where !entry.granted.contains(capability) { entry.granted.append(capability) }
            entry.refused.removeAll { capabilities.contains($0) }
            all[name] = entry
        }
    }

    /// Takes back `capabilities` from `name`. What is taken back counts as refused for the
    /// file whose SHA-256 is `sha256` (when known): the person is not asked about it again
    /// until a new version of the plugin asks.
    public func revoke(_ name: String, _ capabilities: [Capability], sha256: String?) throws {
        try change { all in
            var entry = all[name] ?? Answers()
            entry.granted.removeAll { capabilities.contains($0) }
            if let sha256 {
                if entry.refusedFor != sha256 { entry.refused = [] }
                entry.refusedFor = sha256
                for capability in capabilities where !entry.refused.contains(capability) { entry.refused.append(capability) }
            }
            all[name] = entry
        }
    }

    /// Records the person's answer to a prompt about the file whose SHA-256 is `sha256`.
    public func answer(_ name: String, sha256: String, granted: [Capability], refused: [Capability]) throws {
        try change { all in
            var entry = all[name] ?? Answers()
            for capability in granted where !entry.granted.contains(capability) { entry.granted.append(capability) }
            if entry.refusedFor != sha256 { entry.refused = [] }
            entry.refusedFor = sha256
            for capability in refused where !entry.refused.contains(capability) { entry.refused.append(capability) }
            all[name] = entry
        }
    }

    /// Read, change and write back under an exclusive lock, so that two shells answering at
    /// once keep both answers.
    private func change(_ body: (inout [String: Answers]) -> Void) throws {
        guard isWritable else {
            throw GrantStoreError("\(path) cannot be written from this process (it runs plugin code); run 'plugins grant' in the default, supervised coordsh at a terminal, or add the grant to the config's [plugins.grants]")
        }
        if descriptor < 0 {
            try? PrivateFolder.create((path as NSString).deletingLastPathComponent)
            descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0o600)
            guard descriptor >= 0 else { throw GrantStoreError("cannot write \(path): \(String(cString: strerror(errno)))") }
        }
        flock(descriptor, LOCK_EX)
        defer { flock(descriptor, LOCK_UN) }
        var all = Self.parse(readAll())
        body(&all)
        let text = Self.serialize(all)
        let bytes = Array(text.utf8)
        guard ftruncate(descriptor, 0) == 0,
              bytes.withUnsafeBytes({ pwrite(descriptor, $0.baseAddress, $0.count, 0) }) == bytes.count
        else {
            throw GrantStoreError("cannot write \(path): \(String(cString: strerror(errno)))")
        }
        fsync(descriptor)
    }

    private func readAll() -> String {
        var bytes: [UInt8] = []
        var offset: off_t = 0
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            guard count > 0 else { break }
            bytes += chunk[0..<count]
            offset += off_t(count)
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A line that does not parse (edited by hand) grants nothing.
    static func parse(_ text: String) -> [String: Answers] {
        var all: [String: Answers] = [:]
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard fields.count >= 4, !fields[0].isEmpty else { continue }
            let capabilities = fields.dropFirst(3).compactMap(Capability.init)
            var entry = all[fields[0]] ?? Answers()
            switch fields[2] {
            case "granted": entry.granted += capabilities
            case "refused":
                entry.refusedFor = fields[1]
                entry.refused += capabilities
            default: continue
            }
            all[fields[0]] = entry
        }
        return all
    }

    static func serialize(_ all: [String: Answers]) -> String {
        var lines = [header]
        for (name, entry) in all.sorted(by: { $0.key < $1.key }) {
            if !entry.granted.isEmpty {
                lines.append(([name, "-", "granted"] + entry.granted.map(\.description)).joined(separator: "\t"))
            }
            if !entry.refused.isEmpty {
                lines.append(([name, entry.refusedFor, "refused"] + entry.refused.map(\.description)).joined(separator: "\t"))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// A grant store that cannot be changed or written, in one line.
public struct GrantStoreError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
