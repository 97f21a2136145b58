import Foundation

/// The throwaway PostgreSQL cluster `./test` starts (`scripts/pg-cluster`): a real server on a
/// Unix socket in a temporary folder, stopped and removed when the run ends.
///
/// `./test` sets `COORDSH_TEST_POSTGRES_DIR` to the cluster's folder, or
/// `COORDSH_TEST_POSTGRES_SKIP` to why there is none; the PostgreSQL tests are then reported
/// as skipped with that reason (`.enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason))`),
/// never passed.
public enum PostgresServer {
    /// The cluster's folder (its socket is there), or nil.
    public static let directory: String? = ProcessInfo.processInfo.environment["COORDSH_TEST_POSTGRES_DIR"].flatMap {
        $0.isEmpty ? nil : $0
    }

    public static var isAvailable: Bool { directory != nil }

    /// Why the PostgreSQL tests are skipped, for `.enabled(if:_:)`.
    public static var skipReason: String {
        let why = ProcessInfo.processInfo.environment["COORDSH_TEST_POSTGRES_SKIP"]
            ?? "no PostgreSQL cluster: run ./test, which starts a throwaway one (COORDSH_TEST_POSTGRES_DIR is not set)"
        return "PostgreSQL tests skipped: \(why)"
    }

    /// The URL of database `name` on the cluster, as role `user`.
    public static func url(database name: String, user: String = "coordsh") -> String {
        "postgresql://\(user)@/\(name)?host=\(directory ?? "/nonexistent")"
    }

    /// The database a URL of this cluster names: `postgresql://coordsh@/NAME?host=…`.
    public static func databaseName(of url: String) -> String? {
        guard let start = url.range(of: "@/") else { return nil }
        return String(url[start.upperBound...].prefix { $0 != "?" })
    }

    /// A new, empty database for one test (or one transcript), and its URL.
    public static func createDatabase(_ label: String) throws -> String {
        let name = "\(label.lowercased().filter { $0.isLetter || $0.isNumber })_\(UUID().uuidString.prefix(8).lowercased())"
        try psql("CREATE DATABASE \(name)")
        return url(database: name)
    }

    /// Runs `sql` on the cluster's `coordsh` database with psql; throws its error output.
    @discardableResult
    public static func psql(_ sql: String, database: String = "coordsh") throws -> String {
        let result = try run(binary("psql"), [url(database: database), "-qAtX", "-v", "ON_ERROR_STOP=1", "-c", sql])
        guard result.status == 0 else { throw Failure(message: "psql \(sql): \(result.stderr)") }
        return result.stdout
    }

    /// A PostgreSQL program (psql): the server's own folder first, then PATH.
    public static func binary(_ name: String) -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: >) where FileManager.default.isExecutableFile(atPath: "/usr/lib/postgresql/\(version)/bin/\(name)") {
            return "/usr/lib/postgresql/\(version)/bin/\(name)"
        }
        return "/usr/bin/\(name)"
    }

    public struct Failure: Error, CustomStringConvertible {
        public let message: String
        public var description: String { message }
    }
}

/// A PostgreSQL cluster of one test's own, for what must not disturb the shared one: stopping
/// and starting the server. About 1.5 s to start.
public final class PostgresCluster {
    public let directory: String
    private let parent: String

    public init() throws {
        parent = NSTemporaryDirectory() + "coordsh-pg-\(UUID().uuidString.prefix(8))"
        try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        // The cluster's owner (postgres, when the tests run as root) must reach its folder.
        chmod(parent, 0o711)
        directory = parent + "/cluster"
        try script("start")
    }

    /// The cluster's `coordsh` database.
    public var url: String { "postgresql://coordsh@/coordsh?host=\(directory)" }

    /// Stops the server at once, as a crash would; the data stays.
    public func halt() throws { try script("halt") }

    /// Starts it again.
    public func resume() throws { try script("resume") }

    private func script(_ verb: String) throws {
        let result = try run(BuildProducts.packageRoot + "/scripts/pg-cluster", [verb, directory])
        guard result.status == 0 else { throw PostgresServer.Failure(message: "pg-cluster \(verb): \(result.stderr)") }
    }

    /// Stops the server and removes its folder.
    public func remove() {
        _ = try? script("stop")
        try? FileManager.default.removeItem(atPath: parent)
    }
}
