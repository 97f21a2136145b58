#if canImport(Glibc)
import Glibc
#endif

/// A plugin file opened exactly once.
///
/// Everything about the file — its owner and mode, its ELF header, its hash, the child
/// process that vets it and finally `dlopen` — goes through this one open descriptor (dlopen
/// reads it as `/proc/self/fd/N`), so the file cannot be swapped between being checked and
/// being loaded. The ELF header is checked before anything is mapped, so that an empty,
/// truncated or foreign file gets a precise reason instead of dlopen's.
public final class PluginFile {
    /// The path as the user or the folder scan gave it.
    public let path: String
    /// The path with symbolic links resolved; the loader's identity for the file.
    public let realPath: String
    /// The open, read-only descriptor.
    public let descriptor: Int32
    /// What `fstat` said about the open file.
    public let size: Int64
    public let modificationTime: Int64  // nanoseconds since the epoch
    public let changeTime: Int64        // nanoseconds since the epoch; not settable by users
    public let inode: UInt64
    public let device: UInt64
    public let owner: UInt32
    public let mode: UInt32
    private var ownsDescriptor: Bool

    /// Opens `path` and checks that it is a regular, non-empty ELF shared library for this
    /// machine.
    public convenience init(path: String) throws(PluginRefusal) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { throw Self.cannotOpen(path, errno) }
        try self.init(descriptor: fd, path: path, owns: true)
    }

    /// Adopts a descriptor just opened inside a folder whose real path is known, so the
    /// file's is that folder's and its name (`PluginFolders`).
    convenience init(openedDescriptor fd: Int32, path: String, realPath: String) throws(PluginRefusal) {
        try self.init(descriptor: fd, path: path, owns: true, realPath: realPath)
    }

    /// Why `path` could not be opened, from `open`'s `errno`.
    static func cannotOpen(_ path: String, _ error: Int32) -> PluginRefusal {
        let reason = error == ENOENT ? "no such file" : "cannot open (\(String(cString: strerror(error))))"
        return PluginRefusal(path: path, kind: .notAFile, reason: reason)
    }

    /// Adopts a descriptor another process opened and handed down (the vetting child gets the
    /// host's descriptor, so it checks the very file the host will load).
    public convenience init(inheritedDescriptor fd: Int32, path: String) throws(PluginRefusal) {
        try self.init(descriptor: fd, path: path, owns: false)
    }

    private init(descriptor fd: Int32, path: String, owns: Bool, realPath known: String? = nil) throws(PluginRefusal) {
        self.path = path
        self.descriptor = fd
        self.ownsDescriptor = owns
        var info = stat()
        guard fstat(fd, &info) == 0 else {
            if owns { close(fd) }
            throw PluginRefusal(path: path, kind: .notAFile, reason: "cannot stat (\(String(cString: strerror(errno))))")
        }
        (size, modificationTime, changeTime, inode, device, owner, mode) = info.pluginFileFields
        realPath = known ?? Self.openedPath(fd) ?? Self.resolve(path) ?? path
        guard (mode & S_IFMT) == S_IFREG else {
            throw PluginRefusal(path: path, kind: .notAFile, reason: (mode & S_IFMT) == S_IFDIR ? "is a folder, not a plugin file" : "not a regular file")
        }
        try ELFHeader.check(self)
    }

    deinit { if ownsDescriptor { close(descriptor) } }

    /// Keeps the descriptor open for the life of the process. Called once the file is mapped:
    /// the dynamic linker knows the image by the name it was opened with, `/proc/self/fd/N`,
    /// and would hand the same image back for a later plugin that got the same number.
    func keepOpenForever() { ownsDescriptor = false }

    /// A path that names exactly this open file, for `dlopen`.
    public var descriptorPath: String { "/proc/self/fd/\(descriptor)" }

    /// Reads `count` bytes at `offset`; fewer at the end of the file.
    public func read(at offset: Int64, count: Int) -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: count)
        let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, count, off_t(offset)) }
        return got > 0 ? Array(buffer.prefix(got)) : []
    }

    /// Calls `body` with the whole file in chunks, from the start, through the open descriptor.
    public func forEachChunk(_ body: (UnsafeRawBufferPointer) -> Void) {
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let got = buffer.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, offset) }
            guard got > 0 else { return }
            buffer.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0.prefix(got))) }
            offset += off_t(got)
        }
    }

    /// The path the kernel has for the open file: one `readlink` of /proc/self/fd/N, where
    /// `realpath` walked it component by component (an eighth of what a plugin registered from
    /// the cache cost at start-up). Nil when the file was deleted or is not reachable by a path,
    /// which the kernel says with a suffix or a non-absolute name.
    static func openedPath(_ fd: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(fd)", &buffer, buffer.count - 1)
        guard length > 0, length < buffer.count - 1 else { return nil }
        let path = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard path.hasPrefix("/"), !path.hasSuffix(" (deleted)") else { return nil }
        return path
    }

    static func resolve(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}
