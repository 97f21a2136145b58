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

    /// Stops the server (immediately, as a crash would), keeping its data.
    public static func stop() throws { try cluster("halt") }

    /// Starts the stopped server again.
    public static func start() throws { try cluster("resume") }

    private static func cluster(_ verb: String) throws {
        let result = try run(BuildProducts.packageRoot + "/scripts/pg-cluster", [verb, directory ?? "/nonexistent"])
        guard result.status == 0 else { throw Failure(message: "pg-cluster \(verb): \(result.stderr)") }
    }

    /// A PostgreSQL program (psql): the server's own folder first, then PATH.
    static func binary(_ name: String) -> String {
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
