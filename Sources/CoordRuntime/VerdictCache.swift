import CoordLoading
import CoordSDK
import Foundation

/// Verdicts of vetted plugin files, so that an ordinary start spawns no child process and a
/// refused plugin is not retried until its file changes — GStreamer's registry cache.
///
/// An entry is keyed by the file's real path and holds its size, modification and change
/// times, inode, device and SHA-256, and the host that vetted it. Any difference in those
/// (the change time cannot be set back by a user) means the file changed: it is hashed and
/// vetted again. The file is JSON in `$XDG_CACHE_HOME/coordsh/plugin-verdicts.json`;
/// a missing or unreadable one is an empty cache, never an error.
@MainActor
public final class VerdictCache {
    struct Entry: Codable, Equatable {
        var size: Int64
        var modified: Int64
        var changed: Int64
        var inode: UInt64
        var device: UInt64
        var sha256: String
        var host: String
        var verdict: PluginVerdict
    }

    /// The cache file, or nil to keep verdicts in memory only.
    public let path: String?
    private var entries: [String: Entry] = [:]
    private var dirty = false

    public init(path: String?) {
        self.path = path
        if let path, let data = FileManager.default.contents(atPath: path),
           let decoded = try? JSONDecoder().decode([String: Entry].self, from: data) {
            entries = decoded
        }
    }

    /// What the host that vets is: a verdict from another SDK, compiler or coordsh build is
    /// not trusted.
    static let host: String = {
        var info = stat()
        let exe = stat("/proc/self/exe", &info) == 0 ? "\(info.st_size)-\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)" : "?"
        return "abi \(PluginABI.version) sdk \(CoordSDKVersion.library) swift \(CoordSDKVersion.compiler) coordsh \(exe)"
    }()

    /// The cached verdict and hash for `file`, if the file is unchanged since it was vetted
    /// (and, when `sha256` is known, has that hash).
    func lookup(_ file: PluginFile, sha256: String?) -> (verdict: PluginVerdict, sha256: String)? {
        guard let entry = entries[file.realPath], entry.host == Self.host, entry.size == file.size,
              entry.modified == file.modificationTime, entry.changed == file.changeTime,
              entry.inode == file.inode, entry.device == file.device,
              sha256 == nil || sha256 == entry.sha256 else { return nil }
        return (entry.verdict, entry.sha256)
    }

    func store(_ file: PluginFile, sha256: String, verdict: PluginVerdict) {
        entries[file.realPath] = Entry(
            size: file.size, modified: file.modificationTime, changed: file.changeTime, inode: file.inode,
            device: file.device, sha256: sha256, host: Self.host, verdict: verdict)
        dirty = true
    }

    /// Writes the cache if it changed: to a temporary file, then renamed over the old one, so
    /// that a reader never sees half of it. Failing to write only costs a later re-vetting.
    func save() {
        guard dirty, let path else { return }
        dirty = false
        let folder = (path as NSString).deletingLastPathComponent
        try? FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        guard let data = try? encoder.encode(entries) else { return }
        let temporary = path + ".\(getpid()).tmp"
        guard FileManager.default.createFile(atPath: temporary, contents: data, attributes: [.posixPermissions: 0o600]) else { return }
        if rename(temporary, path) != 0 { unlink(temporary) }
    }
}
