import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Watches the plugin folders with inotify, so that a `.so` dropped into one while the shell
/// runs is picked up without a command.
///
/// It only says *that* something finished arriving (a file closed after writing, moved in, or
/// had its mode changed); the loader's rescan decides what is new. The descriptor is
/// non-blocking and can be waited on next to the terminal.
public final class PluginWatcher {
    /// Readable when something happened in a watched folder.
    public let descriptor: Int32

    /// Watches every folder of `directories` that exists; nil when inotify is unavailable.
    public init?(directories: [String]) {
        let fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0 else { return nil }
        descriptor = fd
        let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_ATTRIB)
        var watching = 0
        for directory in directories where inotify_add_watch(fd, directory, mask) >= 0 { watching += 1 }
        // No `close` here: an initializer that fails once every property is set still runs
        // `deinit`, which closes the descriptor (closing it here too closed its number twice).
        if watching == 0 { return nil }
    }

    /// Where `drain` reads the events, made at its first read and kept: allocating 4 KiB at
    /// every command's drain was ≈ 600 instructions of a shop command.
    private var buffer: UnsafeMutableRawPointer?
    private static let bufferSize = 4096

    deinit {
        close(descriptor)
        buffer?.deallocate()
    }

    /// Reads every pending event; true when one of them concerns a `.so` file.
    public func drain() -> Bool {
        var relevant = false
        let size = Self.bufferSize
        let buffer = self.buffer ?? UnsafeMutableRawPointer.allocate(byteCount: size, alignment: MemoryLayout<inotify_event>.alignment)
        self.buffer = buffer
        while true {
            let got = read(descriptor, buffer, size)
            guard got > 0 else { return relevant }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= got {
                let event = buffer.load(fromByteOffset: offset, as: inotify_event.self)
                let nameStart = offset + MemoryLayout<inotify_event>.size
                if event.len > 0 {
                    let name = String(cString: buffer.advanced(by: nameStart).assumingMemoryBound(to: CChar.self))
                    if name.hasSuffix(".so") { relevant = true }
                }
                offset = nameStart + Int(event.len)
            }
        }
    }
}
