import CoordLoading
@_spi(Host) import CoordSDK
import Foundation

/// Verdicts of vetted plugin files, so that an ordinary start spawns no child process and a
/// refused plugin is not retried until its file changes — GStreamer's registry cache. It also
/// keeps what each loaded plugin registered (its features' manifests), so that the next start
/// registers it without loading it (`PluginLoader.deferLoading`).
///
/// An entry is keyed by the file's real path and holds its size, modification and change
/// times, inode, device and SHA-256, and the host that vetted it. Any difference in those
/// (the change time cannot be set back by a user) means the file changed: it is hashed and
/// vetted again. The file, `$XDG_CACHE_HOME/coordsh/plugin-verdicts.tsv`, has one line per
/// entry with tab-separated fields: it is read at every start with plugins, and a Codable JSON
/// file of 500 entries took 20 ms to decode (the manifests, one packed field per line, are
/// unpacked only for the plugins registered from them; `ManifestPacking`). It is read only when a plugin is looked
/// up, and a missing or unreadable one is an empty cache, never an error. Each line ends with
/// the SHA-256 of its other fields: a line edited by hand (say, a page renamed in a manifest)
/// no longer matches, is dropped, and its plugin is vetted, loaded and written down again.
@MainActor
public final class VerdictCache {
    package struct Entry: Equatable {
        var size: Int64
        var modified: Int64
        var changed: Int64
        var inode: UInt64
        var device: UInt64
        var sha256: String
        var host: String
        var verdict: PluginVerdict
        /// The features the plugin registered when it was last loaded (`ManifestPacking`); ""
        /// until then, or when they cannot be packed.
        package var manifests: String = ""
    }

    /// The cache file, or nil to keep verdicts in memory only.
    public let path: String?
    private var loaded: [String: Entry]?
    private var dirty = false
    nonisolated static let header = "coordsh plugin verdicts 4"

    public init(path: String?) {
        self.path = path
    }

    private var entries: [String: Entry] {
        get {
            if let loaded { return loaded }
            let read = path.map(Self.read) ?? [:]
            loaded = read
            return read
        }
        set { loaded = newValue }
    }

    /// What the host that vets is: a verdict from another SDK, compiler or coordsh build is
    /// not trusted.
    nonisolated static let host = "abi \(PluginABI.version) sdk \(CoordSDKVersion.library) swift \(CoordSDKVersion.compiler) coordsh \(HostExecutables.buildIdentity)"

    /// The cached verdict and hash for `file`, if the file is unchanged since it was vetted
    /// (and, when `sha256` is known, has that hash).
    func lookup(_ file: some PluginFileStatus, sha256: String?) -> (verdict: PluginVerdict, sha256: String)? {
        guard let entry = entries[file.realPath], Self.matches(entry, file), sha256 == nil || sha256 == entry.sha256 else { return nil }
        return (entry.verdict, entry.sha256)
    }

    /// The cached verdict, hash and registration of `file`, in one look-up of its entry: what
    /// a plugin registered from its folder entry needs (the three separate look-ups hashed its
    /// path three times). Nil when the file changed, or the entry holds no sound registration.
    func registration(for file: some PluginFileStatus) -> (verdict: PluginVerdict, sha256: String, manifests: [FeatureManifest])? {
        guard let entry = entries[file.realPath], Self.matches(entry, file), let manifests = ManifestPacking.unpack(entry.manifests),
            !manifests.isEmpty
        else { return nil }
        return (entry.verdict, entry.sha256, manifests)
    }

    /// Whether `entry` is of `file` as it is now, vetted by this host.
    private static func matches(_ entry: Entry, _ file: some PluginFileStatus) -> Bool {
        entry.host == host && entry.size == file.size && entry.modified == file.modificationTime
            && entry.changed == file.changeTime && entry.inode == file.inode && entry.device == file.device
    }

    /// What the plugin in `file` registered when it was last loaded, if the file is unchanged
    /// since and the entry is sound; nil when it must be loaded to know.
    func manifests(for file: some PluginFileStatus) -> [FeatureManifest]? {
        registration(for: file)?.manifests
    }

    /// Records what the plugin in `file` registered, next to its verdict (which it must have).
    func store(_ manifests: [FeatureManifest], for file: PluginFile) {
        guard lookup(file, sha256: nil) != nil, var entry = entries[file.realPath] else { return }
        let text = ManifestPacking.pack(manifests) ?? ""
        guard text != entry.manifests else { return }
        entry.manifests = text
        entries[file.realPath] = entry
        dirty = true
    }

    func store(_ file: PluginFile, sha256: String, verdict: PluginVerdict) {
        entries[file.realPath] = Entry(
            size: file.size, modified: file.modificationTime, changed: file.changeTime, inode: file.inode,
            device: file.device, sha256: sha256, host: Self.host, verdict: verdict)
        dirty = true
    }

    /// Writes the cache if it changed, leaving out files that are gone: to a temporary file,
    /// then renamed over the old one, so that a reader never sees half of it. Failing to write
    /// only costs a later re-vetting.
    func save() {
        guard dirty, let path else { return }
        dirty = false
        let folder = (path as NSString).deletingLastPathComponent
        try? PrivateFolder.create(folder)
        let text = Self.serialize(entries.filter { FileManager.default.fileExists(atPath: $0.key) })
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(
            atPath: temporary, contents: Data(text.utf8),
            attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }

    private static func read(_ path: String) -> [String: Entry] {
        guard let data = FileManager.default.contents(atPath: path) else { return [:] }
        return parse(String(decoding: data, as: UTF8.self))
    }

    /// The file's entries: a line that is not one (a field missing or of the wrong kind) is
    /// left out, a file without the header gives none — anything of the user's can write here.
    nonisolated package static func parse(_ text: String) -> [String: Entry] {
        var text = text
        return text.withUTF8(parse(bytes:))
    }

    /// Splits by bytes: as characters, "\r\n" is one that is not "\n"; and in UTF-8 the bytes
    /// of a line break or a tab are never part of another character, so splitting the bytes is
    /// splitting the scalars, without decoding each one. Only the fields that are kept become
    /// strings (with 100 plugins, splitting every line into fourteen strings through the
    /// generic `split` was a seventh of registering them; BENCHMARKS.md, issue 41). Line
    /// breaks and tabs are found with `memchr`, which looks at a vector of bytes at a time: a
    /// line is mostly its packed manifests, and three scans of it byte by byte (its end, its
    /// tabs, its seal) were a tenth of what registering a plugin from the cache cost.
    nonisolated private static func parse(bytes: UnsafeBufferPointer<UInt8>) -> [String: Entry] {
        var entries: [String: Entry] = [:]
        entries.reserveCapacity(count(of: 0x0A, in: bytes))
        var sawHeader = false
        var start = 0
        while start < bytes.count {
            let end = next(0x0A, in: bytes, from: start) ?? bytes.count
            let line = UnsafeBufferPointer(rebasing: bytes[start..<end])
            start = end + 1
            if line.isEmpty { continue }
            guard sawHeader else {
                guard line.elementsEqual(header.utf8) else { return [:] }
                sawHeader = true
                continue
            }
            if let (file, entry) = entry(line) { entries[file] = entry }
        }
        return entries
    }

    /// One line's path and entry: fourteen tab-separated fields, the last the seal of the
    /// thirteen before it (which is the seal of the line's bytes up to its last tab).
    nonisolated private static func entry(_ line: UnsafeBufferPointer<UInt8>) -> (String, Entry)? {
        var tabs: [Int] = []
        tabs.reserveCapacity(13)
        var from = 0
        while let tab = next(0x09, in: line, from: from) {
            guard tabs.count < 13 else { return nil }
            tabs.append(tab)
            from = tab + 1
        }
        guard tabs.count == 13 else { return nil }
        func field(_ number: Int) -> UnsafeBufferPointer<UInt8> {
            UnsafeBufferPointer(rebasing: line[(number == 0 ? 0 : tabs[number - 1] + 1)..<(number == 13 ? line.count : tabs[number])])
        }
        func string(_ number: Int) -> String { String(decoding: field(number), as: UTF8.self) }
        guard sealValue(field(13)) == sealHash(UnsafeBufferPointer(rebasing: line[..<tabs[12]])),
              let size = integer(field(1)), let modified = integer(field(2)), let changed = integer(field(3)),
              let inode = unsigned(field(4)), let device = unsigned(field(5)) else { return nil }
        let refusal = field(10).isEmpty ? nil : PluginRefusal.Kind(rawValue: string(10))
        guard field(10).isEmpty || refusal != nil else { return nil }
        // Every line vetted by this build names the same host: share its one string. Compared
        // as bytes (the standard library's `elementsEqual` over the string's UTF-8 view took
        // ≈ 5,000 instructions a line).
        let host = same(field(7), hostBytes) ? Self.host : string(7)
        func optional(_ number: Int) -> String? { field(number).isEmpty ? nil : string(number) }
        return (string(0), Entry(
            size: size, modified: modified, changed: changed, inode: inode, device: device, sha256: string(6), host: host,
            verdict: PluginVerdict(name: optional(8), version: optional(9), refusal: refusal, reason: optional(11)),
            manifests: string(12)))
    }

    /// The file's text for `entries`, sorted by path. An entry with a tab or a line break in a
    /// field cannot be written and is left out: that file is vetted again.
    nonisolated package static func serialize(_ entries: [String: Entry]) -> String {
        var lines = [header]
        for (file, entry) in entries.sorted(by: { $0.key < $1.key }) {
            let fields = [
                file, "\(entry.size)", "\(entry.modified)", "\(entry.changed)", "\(entry.inode)", "\(entry.device)",
                entry.sha256, entry.host, entry.verdict.name ?? "", entry.verdict.version ?? "",
                entry.verdict.refusal?.rawValue ?? "", entry.verdict.reason ?? "", entry.manifests,
            ]
            guard !fields.contains(where: { $0.unicodeScalars.contains { $0 == "\t" || $0 == "\n" } }) else { continue }
            lines.append((fields + [seal(fields[...])]).joined(separator: "\t"))
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A line's seal: a 64-bit checksum (16 hex digits) of its fields joined by tabs. It finds
    /// a line changed by hand or cut short; it is no defence against anyone — anything of the
    /// user's can write the file and compute any seal — so a checksum does the job. (It was
    /// SHA-256 in format 2: hashing every line at each start ran swift-crypto's BoringSSL in
    /// every start and kept ≈ 0.9 MiB of its text resident; BENCHMARKS.md.)
    nonisolated static func seal(_ fields: ArraySlice<String>) -> String {
        let bytes = Array(fields.joined(separator: "\t").utf8)
        return hex(withUnsafeBytes(of: bytes.withUnsafeBufferPointer(sealHash).bigEndian) { Array($0) })
    }

    /// The seal's number, which `seal` writes as 16 hex digits: eight bytes at a time (as a
    /// little-endian word), each step `(hash ^ word) × odd` then its high half folded into its
    /// low half — both one-to-one, so a change to any one word changes the result — the
    /// length mixed in first, the last bytes in a word of their own. Format 3's FNV-1a took a
    /// multiply a byte, over every line of the file at every start.
    nonisolated static func sealHash(_ bytes: UnsafeBufferPointer<UInt8>) -> UInt64 {
        let odd: UInt64 = 0x9E37_79B9_7F4A_7C15
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ UInt64(bytes.count)
        func mix(_ word: UInt64) {
            hash = (hash ^ word) &* odd
            hash ^= hash >> 32
        }
        let whole = bytes.count / 8 * 8
        if let base = UnsafeRawPointer(bytes.baseAddress) {
            for offset in stride(from: 0, to: whole, by: 8) {
                mix(UInt64(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt64.self)))
            }
        }
        if whole < bytes.count {
            var last: UInt64 = 0
            for (shift, byte) in bytes[whole...].enumerated() { last |= UInt64(byte) << (8 * UInt64(shift)) }
            mix(last)
        }
        return hash
    }

    /// Where the next `byte` is in `bytes` at or after `from`, if anywhere.
    nonisolated private static func next(_ byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>, from: Int) -> Int? {
        guard from < bytes.count, let base = bytes.baseAddress, let found = memchr(base + from, Int32(byte), bytes.count - from) else {
            return nil
        }
        return UnsafeRawPointer(base).distance(to: UnsafeRawPointer(found))
    }

    /// How many times `byte` is in `bytes`.
    nonisolated private static func count(of byte: UInt8, in bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var count = 0
        var from = 0
        while let found = next(byte, in: bytes, from: from) {
            count += 1
            from = found + 1
        }
        return count
    }

    /// The number a line's last field writes, when it is exactly what `seal` writes (16
    /// lower-case hex digits); nil for anything else. Read back rather than the line's seal
    /// written out to compare: each line of the file is checked at every start.
    nonisolated static func sealValue(_ field: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard field.count == 16 else { return nil }
        var value: UInt64 = 0
        for byte in field {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            default: return nil
            }
            value = value << 4 | UInt64(digit)
        }
        return value
    }

    /// A field's decimal number as `serialize` writes it (digits, a minus sign before a negative
    /// one), read from its bytes: made into a string first and parsed, the five numbers of each
    /// line cost ≈ 1,500 instructions. Nil for anything else, or a number out of range.
    nonisolated static func integer(_ field: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let first = field.first else { return nil }
        let negative = first == UInt8(ascii: "-")
        guard let magnitude = unsigned(negative ? UnsafeBufferPointer(rebasing: field.dropFirst()) : field) else { return nil }
        if negative { return magnitude <= UInt64(Int64.max) + 1 ? Int64(truncatingIfNeeded: 0 &- magnitude) : nil }
        return magnitude <= UInt64(Int64.max) ? Int64(magnitude) : nil
    }

    /// A field's unsigned decimal number (digits only); nil for anything else or one past 2⁶⁴ − 1.
    nonisolated static func unsigned(_ field: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard !field.isEmpty else { return nil }
        var value: UInt64 = 0
        for byte in field {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
            let (times, overflow) = value.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow, !carry else { return nil }
            value = sum
        }
        return value
    }

    /// `host`'s bytes, to compare each line's with.
    nonisolated private static let hostBytes = Array(host.utf8)

    nonisolated private static func same(_ field: UnsafeBufferPointer<UInt8>, _ bytes: [UInt8]) -> Bool {
        field.count == bytes.count && bytes.withUnsafeBufferPointer { bytes in
            guard let a = field.baseAddress, let b = bytes.baseAddress else { return field.isEmpty }
            return memcmp(a, b, field.count) == 0
        }
    }

    /// Lower-case hex: every line of the file is checked at each start, and `String(format:)`
    /// per byte made a cache of 600 entries cost 30 ms.
    nonisolated static func hex(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: text, as: UTF8.self)
    }
}
