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
}
