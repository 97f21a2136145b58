import CMemoryFile
import CoordProtocol
import Foundation

/// What a worker is running, kept in a small memory file its front reads after a crash: the
/// process that died cannot say what it was doing, so it says so before it starts. The file
/// is the front's (`WorkerProcess`), made for this worker alone and handed over as the
/// descriptor `COORDSH_WORKER_RUNNING` names; the worker maps it shared and writes the command
/// into the mapping, NUL-terminated, so that noting a command costs no system call (the
/// `pwrite` and two `ftruncate`s it used to take were ≈ 0.1 ms of every supervised command).
final class RunningMarker {
    private let mapping: UnsafeMutableRawPointer

    /// Takes the descriptor named by `variable`'s value and closes it (the mapping keeps the
    /// file; plugin code finds no descriptor to it). Nil when the value is not a descriptor
    /// of a memory file of the marker's size sealed at that size — a mapping whose file could
    /// shrink under it would fault at the next command; any other descriptor is left open,
    /// not ours to close — or it cannot be mapped: the worker runs without a marker, and a
    /// crash report goes without the command.
    init?(variable value: String) {
        guard let descriptor = Int32(value), descriptor > STDERR_FILENO,
            coordsh_memory_file_sealed(descriptor, WireProtocol.workerRunningBytes) == 1
        else { return nil }
        defer { close(descriptor) }
        guard let mapped = mmap(nil, WireProtocol.workerRunningBytes, PROT_READ | PROT_WRITE, MAP_SHARED, descriptor, 0), mapped != MAP_FAILED
        else { return nil }
        mapping = mapped
    }

    deinit { munmap(mapping, WireProtocol.workerRunningBytes) }

    /// Notes `line`, the plugin it runs in (empty for a built-in) and the scene it runs in
    /// (whose client a front answers with the crash), tab-separated.
    func record(line: String, plugin: String?, scene: String) {
        let bytes = Array("\(plugin ?? "")\t\(scene)\t\(line)".utf8.prefix(WireProtocol.workerRunningBytes - 1))
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
