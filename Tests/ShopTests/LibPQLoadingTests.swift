import Foundation
import TestSupport
import Testing

/// libpq is loaded when a PostgreSQL database is first opened, never by a shell on the SQLite
/// default: mapping it (and the two dozen libraries it needs) cost every start about 5 ms and
/// 5 MiB (BENCHMARKS.md). Looked at from outside, in the running shell's /proc/PID/maps.
@Suite("libpq only for PostgreSQL")
struct LibPQLoadingTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    /// The libraries mapped in a shell on `db` once it has run a cart command (so that its
    /// plugins and data store are in use), read while it waits for more input.
    static func mappedLibraries(db: String, home: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
        process.arguments = ["--config", config, "--db", db]
        process.environment = childEnvironment(["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
        try input.fileHandleForWriting.write(contentsOf: Data("cart add 3\necho ready\n".utf8))
        var seen = ""
        let deadline = Date().addingTimeInterval(60)
        while !seen.contains("ready\n"), Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            seen += String(decoding: chunk, as: UTF8.self)
        }
        #expect(seen.contains("── Cart (1 item) ──"), "\(seen)")
        // Read to the end: /proc files have no size, and a whole-file read can stop short.
        let maps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(process.processIdentifier)/maps"))
        defer { try? maps.close() }
        return String(decoding: maps.readDataToEndOfFile(), as: UTF8.self)
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
