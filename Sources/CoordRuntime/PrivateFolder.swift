@_spi(Host) import CoordSDK
import Foundation

/// A folder coordsh makes for the person's own state — the database's, the history's, the
/// verdicts', the quarantine's, the grants' — is theirs alone: 0700, as the XDG base directory
/// specification asks, whatever the umask (the database in one holds every account's password
/// hash and login tokens). A folder that exists keeps the permissions it has.
public enum PrivateFolder {
    /// Makes `path` and any missing folders above it, each 0700.
    public static func create(_ path: String) throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// A new folder of this user's alone in the temporary folder (`$TMPDIR`, else /tmp),
    /// named `prefix` and six random characters (mkdtemp(3)): no other user can have made it
    /// first or read what is written in it. The caller removes it.
    public static func temporary(prefix: String) throws -> String {
        var template = Array((NSTemporaryDirectory() + prefix + "-XXXXXX").utf8CString)
        let made = template.withUnsafeMutableBufferPointer { buffer -> String? in
            guard let base = buffer.baseAddress, let folder = mkdtemp(base) else { return nil }
            return String(cString: folder)
        }
        guard let made else {
            throw CoordError.failed("cannot make a folder in \(NSTemporaryDirectory()): \(String(cString: strerror(errno)))")
        }
        return made
    }
}
