#if canImport(Glibc)
import Glibc
#endif

/// Text written straight to a file descriptor, as `write(2)` takes it: a batch script prints
/// a page per command, and going through Foundation's `FileHandle` and `Data` (a copy, a cast
/// to find the bytes) cost as much as reading the page's rows. Unbuffered, like `FileHandle`,
/// so the order with what goes to the other stream stays the order of the commands.
enum StandardStream {
    /// Writes all of `text`, retrying when a signal interrupts; on any other failure the rest
    /// is dropped (a closed pipe's SIGPIPE ends the process first, as for any shell tool).
    static func write(_ text: String, to descriptor: Int32) {
        var text = text
        text.withUTF8 { write($0, to: descriptor) }
    }

    /// Writes all of `bytes`, as `write(_:to:)` writes a text.
    static func write(_ bytes: [UInt8], to descriptor: Int32) {
        bytes.withUnsafeBufferPointer { write($0, to: descriptor) }
    }

    private static func write(_ bytes: UnsafeBufferPointer<UInt8>, to descriptor: Int32) {
        var offset = 0
        while offset < bytes.count {
            let wrote = Glibc.write(descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
            if wrote < 0, errno == EINTR { continue }
            guard wrote > 0 else { return }
            offset += wrote
        }
    }
}
