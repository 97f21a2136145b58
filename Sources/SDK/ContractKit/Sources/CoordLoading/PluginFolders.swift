#if canImport(Glibc)
import Glibc
#endif

/// The plugin folders of one scan, each opened once: their files are opened (or only looked
/// at, `entry`) relative to the open folder, so a file's real path is the folder's (read once)
/// and its name.
///
/// `PluginFile(path:)` asks the kernel for each file's path through /proc/self/fd, a lookup
/// in procfs that was an eighth of what a plugin registered from the cache cost at start-up
/// (BENCHMARKS.md, issue 41). A name is opened with `O_NOFOLLOW`: a plugin that is a symbolic
/// link, a folder that cannot be opened or whose path the kernel cannot name, and any path
/// that is not absolute are opened by `PluginFile(path:)` as before, so the real path is
/// always the kernel's.
public struct PluginFolders {
    /// An open folder and the path the kernel has for it.
    private final class Folder {
        let descriptor: Int32
        let realPath: String

        init?(_ path: String) {
            let fd = Glibc.open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            guard fd >= 0 else { return nil }
            guard let real = PluginFile.openedPath(fd) else {
                close(fd)
                return nil
            }
            descriptor = fd
            realPath = real == "/" ? "" : real
        }

        deinit { close(descriptor) }
    }

    /// By the path's text before its last `/`; nil for a folder that could not be opened. A
    /// scan has a few folders: a list searched in order, not a dictionary.
    private var opened: [(text: Substring, folder: Folder?)] = []

    public init() {}

    /// Opens the plugin file at `path`, relative to its folder when it can.
    public mutating func open(_ path: String) throws(PluginRefusal) -> PluginFile {
        guard let (folder, name) = place(path) else { return try PluginFile(path: path) }
        let fd = openat(folder.descriptor, name, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else {
            let error = errno
            // A symbolic link: the kernel resolves it, as for any path.
            if error == ELOOP { return try PluginFile(path: path) }
            throw PluginFile.cannotOpen(path, error)
        }
        return try PluginFile(openedDescriptor: fd, path: path, realPath: folder.realPath + "/" + name)
    }

    /// What the folder says of the plugin file at `path`, without opening it; nil where only
    /// `open` can tell (a symbolic link, a path not in an open folder, a file that is not a
    /// plain readable one).
    public mutating func entry(_ path: String) -> PluginFolderEntry? {
        guard let (folder, name) = place(path) else { return nil }
        return PluginFolderEntry(folder: folder.descriptor, name: name, path: path, realPath: folder.realPath + "/" + name)
    }

    /// The open folder of an absolute `path` and the name in it; nil for a path that is not
    /// absolute, a name that is empty, `.` or `..`, and a folder that cannot be opened or named.
    private mutating func place(_ path: String) -> (Folder, String)? {
        let bytes = path.utf8
        guard bytes.first == UInt8(ascii: "/"), let slash = bytes.lastIndex(of: UInt8(ascii: "/")) else { return nil }
        let name = String(path[path.index(after: slash)...])
        guard !name.isEmpty, name != ".", name != ".." else { return nil }
        let text = path[..<slash]
        let folder: Folder?
        if let known = opened.first(where: { $0.text == text }) {
            folder = known.folder
        } else {
            folder = Folder(text.isEmpty ? "/" : String(text))
            opened.append((text, folder))
        }
        guard let folder else { return nil }
        return (folder, name)
    }
}
