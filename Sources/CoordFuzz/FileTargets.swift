import CoordLoading
import CoordRuntime
import Foundation

/// Files coordsh reads that someone else may have written: the TOML configuration, its own
/// verdict cache (a file in the user's cache folder, which anything of the user's can edit), and
/// the bytes of a file that claims to be a plugin.
enum FileTargets {
    static let all = [
        FuzzTarget("config", "the TOML configuration over the built-in defaults", run: config),
        FuzzTarget("verdicts", "the plugin verdict cache file", run: verdicts),
        FuzzTarget("elf", "the ELF header check of a file claiming to be a plugin", run: elf),
    ]

    /// Accepted: every key in force, written back as TOML, loads to the same configuration.
    /// Refused: one line.
    static func config(_ bytes: [UInt8]) -> String? {
        let loaded: Config
        do {
            loaded = try Config.layered(over: bytes.text, path: "fuzz.toml")
        } catch {
            return Rule.oneLine(error.description, "config refused")
        }
        var sections: [String: [String]] = [:]
        var order: [String] = []
        for entry in loaded.entries {
            if sections[entry.table] == nil { order.append(entry.table) }
            sections[entry.table, default: []].append("\(Config.tomlKey(entry.name)) = \(entry.value)")
        }
        let text = order.map { "[\(Config.tomlKey($0))]\n" + (sections[$0] ?? []).joined(separator: "\n") }.joined(separator: "\n\n")
        do {
            var again = try Config.layered(over: text, path: "fuzz.toml")
            var first = loaded
            // Where each key came from differs (now every key is the file's); the values must not.
            if let broken = Rule.same(first.entries.map { "\($0.key) = \($0.value)" }, again.entries.map { "\($0.key) = \($0.value)" }, "config keys written back and loaded again") {
                return broken
            }
            first.entries = []
            again.entries = []
            // `data.url` is shown, and so written back, without its password.
            first.databaseURL = first.databaseURL.map(PostgresLocation.withoutPassword)
            return Rule.same(first, again, "config written back and loaded again")
        } catch {
            return "config written back as \(text.debugDescription) is refused: \(error)"
        }
    }

    /// Whatever the file holds, reading it never traps, and what it yields writes back out
    /// and reads back the same.
    static func verdicts(_ bytes: [UInt8]) -> String? {
        let entries = VerdictCache.parse(bytes.text)
        let again = VerdictCache.parse(VerdictCache.serialize(entries))
        // A field with a tab or a line break cannot be written; the writer leaves it out.
        let writable = entries.filter { VerdictCache.serialize([$0.key: $0.value]).split(separator: "\n").count == 2 }
        if let broken = Rule.same(writable, again, "verdict cache written and read again") { return broken }
        // A plugin's packed manifests (or any bytes where they go) unpack without trapping,
        // and what unpacks packs back to the same text.
        for text in [bytes.text] + entries.values.map(\.manifests) {
            guard let manifests = ManifestPacking.unpack(text) else { continue }
            if let broken = Rule.same(ManifestPacking.pack(manifests), text, "manifests unpacked and packed again") { return broken }
        }
        return nil
    }

    /// A file with these bytes, opened as a plugin: refused in one line, or an ELF shared
    /// library for this machine. The file is one open, already unlinked file rewritten for
    /// each input (read through its descriptor, as the loader reads a plugin), rather than a
    /// file created and removed each time, which cost nine tenths of the target's time.
    static func elf(_ bytes: [UInt8]) -> String? {
        guard let fd = memoryFile.descriptor, ftruncate(fd, 0) == 0,
            bytes.withUnsafeBytes({ pwrite(fd, $0.baseAddress, $0.count, 0) }) == bytes.count
        else { return "the memory file for the elf target could not be written (\(String(cString: strerror(errno))))" }
        do {
            _ = try PluginFile(inheritedDescriptor: fd, path: "fuzz.so")
        } catch {
            return Rule.oneLine(error.description, "plugin file refused")
        }
        let magic: [UInt8] = [0x7f, 0x45, 0x4c, 0x46]
        guard bytes.count >= 64, Array(bytes.prefix(4)) == magic else {
            return "a file that is not a 64-bit ELF image was accepted as a plugin (\(bytes.count) bytes)"
        }
        return nil
    }
}

/// The one file the `elf` target writes each input into: opened and unlinked at once, so
/// nothing is left behind however the run ends.
private final class MemoryFile: Sendable {
    let descriptor: Int32?

    init() {
        let path = NSTemporaryDirectory() + "coordsh-fuzz-elf-\(getpid()).so"
        let fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        unlink(path)
        descriptor = fd >= 0 ? fd : nil
    }
}

private let memoryFile = MemoryFile()
