#if canImport(Glibc)
import Glibc
#endif

/// What the file system says of a plugin file: the fields that tell the file again (the
/// host's verdict cache keys a verdict by them) and the owner and mode that say who could
/// have written it.
///
/// Both an open `PluginFile` and a `PluginFolderEntry`, which only looked at the folder's
/// entry, have them: a plugin whose verdict and registration the cache holds for exactly
/// these fields is registered from the entry alone, and opened when it is first used.
public protocol PluginFileStatus {
    /// The path as the user or the folder scan gave it.
    var path: String { get }
    /// The path with symbolic links resolved; the loader's identity for the file.
    var realPath: String { get }
    var size: Int64 { get }
    /// Nanoseconds since the epoch.
    var modificationTime: Int64 { get }
    /// Nanoseconds since the epoch; a user cannot set it, so a changed file shows here.
    var changeTime: Int64 { get }
    var inode: UInt64 { get }
    var device: UInt64 { get }
    var owner: UInt32 { get }
    var mode: UInt32 { get }
}

extension PluginFile: PluginFileStatus {}

extension stat {
    /// `PluginFileStatus`'s fields from a `stat`, in its order, times in nanoseconds.
    var pluginFileFields: (size: Int64, modificationTime: Int64, changeTime: Int64, inode: UInt64, device: UInt64, owner: UInt32, mode: UInt32) {
        (Int64(st_size), Int64(st_mtim.tv_sec) * 1_000_000_000 + Int64(st_mtim.tv_nsec),
         Int64(st_ctim.tv_sec) * 1_000_000_000 + Int64(st_ctim.tv_nsec), UInt64(st_ino), UInt64(st_dev), st_uid, st_mode)
    }
}
