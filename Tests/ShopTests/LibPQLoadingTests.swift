import Foundation
import TestSupport
import Testing

/// libpq is loaded when a PostgreSQL database is first opened, never by a shell on the SQLite
/// default: mapping it (and the two dozen libraries it needs) cost every start about 5 ms and
/// 5 MiB (BENCHMARKS.md). Looked at from outside, in the running shell's /proc/PID/maps.
@Suite("libpq only for PostgreSQL")
struct LibPQLoadingTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    /// The files mapped in a shell on `db` once it has run a cart command (so that its plugins
    /// and data store are in use), read while it waits for more input.
    static func mappedLibraries(db: String, home: String) throws -> String {
        let shell = try LiveShell(
            ["--config", config, "--db", db], environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
        defer { _ = shell.finish() }
        let added = shell.send("cart add 3")
        #expect(added.contains("── Cart (1 item) ──"), "\(added)")
        return try shell.mappedFiles()
    }

    @Test("a shell on SQLite never maps libpq; one on PostgreSQL maps it once it connects")
    func onlyPostgresLoadsLibpq() throws {
        let home = try makeTemporaryDirectory("libpq")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let sqlite = try Self.mappedLibraries(db: home + "/shop.sqlite", home: home)
        #expect(sqlite.contains("libCartPlugin.so"), "the maps of the shell that ran the command")
        #expect(!sqlite.contains("libpq.so"), "a SQLite shell mapped libpq")
        #expect(!sqlite.contains("libkrb5"), "a SQLite shell mapped libpq's Kerberos")
        guard PostgresServer.isAvailable else { return }
        let postgres = try Self.mappedLibraries(db: try PostgresServer.createDatabase("libpq"), home: home)
        #expect(postgres.contains("libpq.so.5"))
    }
}
