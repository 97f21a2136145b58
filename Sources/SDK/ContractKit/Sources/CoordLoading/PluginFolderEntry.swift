#if canImport(Glibc)
import Glibc
#endif

/// A plugin file as its folder lists it: one `fstatat` of the name, without opening the file.
///
/// Opening a plugin file costs four system calls (open, `fstat`, the ELF header's read,
/// close) where this costs one, and a start with a hundred plugins registered from the cache
/// paid them for each (BENCHMARKS.md, issue 41). It is enough only where the file is not read
/// at all: a plugin that the host's cache vetted and saw register with exactly this size,
/// inode, device and modification and change times. Its first use opens it as a `PluginFile`,
/// compares these fields again, and vets it again if they differ.
public struct PluginFolderEntry: PluginFileStatus {
    public let path: String
    public let realPath: String
    public let size: Int64
    public let modificationTime: Int64
    public let changeTime: Int64
    public let inode: UInt64
    public let device: UInt64
    public let owner: UInt32
    public let mode: UInt32

    /// Nil unless `name` in the open folder is a regular file that this process may read
    /// by its mode bits: a symbolic link, anything else and a file the open would refuse are
    /// opened as before, so that their refusals (and a link's real path) are the same.
    init?(folder descriptor: Int32, name: String, path: String, realPath: String) {
        var info = stat()
        guard fstatat(descriptor, name, &info, AT_SYMLINK_NOFOLLOW) == 0, (info.st_mode & S_IFMT) == S_IFREG,
            info.st_size > 0, Self.readable(owner: info.st_uid, mode: info.st_mode)
        else { return nil }
        self.path = path
        self.realPath = realPath
        (size, modificationTime, changeTime, inode, device, owner, mode) = info.pluginFileFields
    }

    /// Who runs this process, asked once.
    private static let user = getuid()

    /// Whether the mode bits let this process open the file for reading, read conservatively:
    /// a file the user does not own must be readable by its group and by others, since which
    /// of the two applies depends on the user's groups. An access control list can still
    /// refuse; the first use then says so in one line.
    private static func readable(owner: UInt32, mode: UInt32) -> Bool {
        if user == 0 { return true }
        if owner == user { return mode & S_IRUSR != 0 }
        return mode & S_IRGRP != 0 && mode & S_IROTH != 0
    }
}
