import Foundation

/// Every byte of `path`, read until read(2) says the end. The small files read at every start
/// (the configuration, the quarantine list) are read with this rather than Foundation's
/// `String(contentsOfFile:)`, whose first use costs a start ≈ 0.5 M instructions of type
/// look-ups (and more to build the error of a file that is not there).
func readWholeFile(_ path: String) throws(POSIXError) -> [UInt8] {
    func failure() -> POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    let descriptor = open(path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else { throw failure() }
    defer { close(descriptor) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 16384)
    while true {
        let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 {
            if errno == EINTR { continue }
            throw failure()
        }
        if count == 0 { return bytes }
        bytes += buffer[..<count]
    }
}
