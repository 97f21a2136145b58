import Foundation

/// What a worker is running, kept in a small file its front reads after a crash: the process
/// that died cannot say what it was doing, so it says so before it starts. The file is the
/// front's, named in `COORDSH_WORKER_RUNNING`; the worker maps it shared and writes the
/// command into the mapping, NUL-terminated, so that noting a command costs no system call
/// (the `pwrite` and two `ftruncate`s it used to take were ≈ 0.1 ms of every supervised
/// command); the kernel's page cache is what the front reads.
final class RunningMarker {
    /// The mapping's size: a command line, its plugin and its scene, cut at this length.
    static let capacity = 1 << 16
    private let mapping: UnsafeMutableRawPointer

    /// Nil when the file cannot be opened, is not this user's own private plain file, or
    /// cannot be sized or mapped: the worker runs without a marker, and a crash report goes
    /// without the command. The folder is shared (`$TMPDIR`, /tmp) and the name predictable,
    /// so a file someone else made under it first — to read the commands written into it —
    /// is refused, as is a symbolic link.
    init?(path: String) {
        let descriptor = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0, status.st_uid == getuid(), status.st_mode & S_IFMT == S_IFREG,
            status.st_mode & 0o077 == 0, status.st_nlink == 1,
            ftruncate(descriptor, off_t(Self.capacity)) == 0,
            let mapped = mmap(nil, Self.capacity, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else { return nil }
        mapping = mapped
    }

    deinit { munmap(mapping, Self.capacity) }

    /// Notes `line`, the plugin it runs in (empty for a built-in) and the scene it runs in
    /// (whose client a front answers with the crash), tab-separated.
    func record(line: String, plugin: String?, scene: String) {
        let bytes = Array("\(plugin ?? "")\t\(scene)\t\(line)".utf8.prefix(Self.capacity - 1))
        bytes.withUnsafeBytes { text in
            if let base = text.baseAddress { mapping.copyMemory(from: base, byteCount: text.count) }
        }
        mapping.storeBytes(of: 0, toByteOffset: bytes.count, as: UInt8.self)
    }

    /// The command finished: nothing is running.
    func clear() {
        mapping.storeBytes(of: 0, as: UInt8.self)
    }
}
