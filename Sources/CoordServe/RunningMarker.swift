import Foundation

/// What a worker is running, kept in a small file its front reads after a crash: the process
/// that died cannot say what it was doing, so it says so before it starts. One `pwrite` per
/// command; the file is the front's, named in `COORDSH_WORKER_RUNNING`.
final class RunningMarker {
    private let descriptor: Int32

    init?(path: String) {
        let fd = open(path, O_WRONLY | O_CREAT | O_CLOEXEC, 0o600)
        guard fd >= 0 else { return nil }
        descriptor = fd
    }

    deinit { close(descriptor) }

    /// Notes `line`, the plugin it runs in (empty for a built-in) and the scene it runs in
    /// (whose client a front answers with the crash), tab-separated.
    func record(line: String, plugin: String?, scene: String) {
        write("\(plugin ?? "")\t\(scene)\t\(line)")
    }

    /// The command finished: nothing is running.
    func clear() {
        ftruncate(descriptor, 0)
    }

    private func write(_ text: String) {
        let bytes = Array(text.utf8)
        _ = bytes.withUnsafeBytes { pwrite(descriptor, $0.baseAddress, $0.count, 0) }
        ftruncate(descriptor, off_t(bytes.count))
    }
}
