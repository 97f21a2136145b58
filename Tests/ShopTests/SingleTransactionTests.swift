import CoordData
@_spi(Host) import CoordSDK
import Foundation
import TestSupport
import Testing

/// `coordsh -1` (`--single-transaction`), like `psql -1`: a script through the real binary is
/// all or nothing, on SQLite and on a real PostgreSQL server.
@Suite("One script, one transaction: -1")
@MainActor
struct SingleTransactionTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    func coordsh(_ home: String, _ arguments: [String], input: String = "") throws -> RunResult {
        try run(
            BuildProducts.coordsh, ["--config", Self.config, "--password-env", "PW"] + arguments, input: input,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": "long enough password", "NO_COLOR": "1"])
    }

    /// Every row of every table, sorted: what "exactly as before" is compared on.
    func dump(_ location: String) throws -> [String] {
        let data = DataManagers.make(location: location, busyTimeout: 2, statementTimeout: 30)
        return try data.read { db in
            let tables = db.backend == .sqlite
                ? try db.rows("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", [])
                : try db.rows("SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1", [])
            return try tables.flatMap { table in
                let name = table.string("name")
                return try db.rows("SELECT * FROM \(name)", []).map { "\(name): \($0.values.map(\.description))" }.sorted()
            }
        }
    }

    /// 49 commands that each write (the cart, a promo code, an account), then line 50.
    func script(ending last: String) -> String {
        var lines = (1...20).map { "cart add \($0)" }
        lines += (1...20).map { "cart set \($0) \($0 % 5 + 1)" }
        lines += (1...5).map { "cart remove \($0 * 3)" }
        lines += ["cart offer WELCOME10", "account create one@example.com", "# a comment is a line too", "cart show"]
        return (lines + [last]).joined(separator: "\n") + "\n"
    }

    func check(database: String, home: String) throws {
        // Something committed before, so that "as before" is not simply "empty".
        #expect(try coordsh(home, ["--db", database, "-c", "cart add 30", "-c", "account create zero@example.com"]).status == 0)
        let before = try dump(database)
        #expect(!before.isEmpty)
        let file = home + "/shop.coordsh"

        try script(ending: "cart add 999").write(toFile: file, atomically: true, encoding: .utf8)
        let failed = try coordsh(home, ["--db", database, "-1", "-f", file])
        #expect(failed.status == 1)
        #expect(failed.stderr == """
            coordsh: error: \(file):50: cart add: there is no product 999; 'content list' shows the catalog
            coordsh: error: --single-transaction: rolled back: nothing the script did before line 50 was kept

            """)
        #expect(try dump(database) == before, "a failed -1 script left the database as before")

        try script(ending: "cart show").write(toFile: file, atomically: true, encoding: .utf8)
        let succeeded = try coordsh(home, ["--db", database, "-1", "-f", file])
        #expect(succeeded.status == 0, "\(succeeded.stderr)")
        // Inside the transaction each command sees what the earlier ones wrote: the last
        // `cart show` of the script shows them, before anything is committed.
        let shown = try #require(succeeded.stdout.components(separatedBy: "── Cart (").last)
        #expect(shown.contains("#20") && shown.contains("offer WELCOME10"), "\(shown)")
        let after = try dump(database)
        #expect(after != before)
        let cart = try coordsh(home, ["--db", database, "-c", "cart show"]).stdout
        #expect(cart.contains("── Cart (") && cart.contains("#20"), "\(cart)")
        #expect(cart.contains("offer WELCOME10"), "\(cart)")
        let outbox = try coordsh(home, ["--db", database, "-c", "account outbox"]).stdout
        #expect(outbox.contains("to one@example.com"))

        // -c and stdin name their line too; a usage error rolls back as a failure does.
        let viaC = try coordsh(home, ["--db", database, "-1", "-c", "cart add 40", "-c", "cart remove 77"])
        #expect(viaC.status == 1)
        #expect(viaC.stderr.hasPrefix("coordsh: error: -c 2: cart remove: "))
        #expect(viaC.stderr.hasSuffix("coordsh: error: --single-transaction: rolled back: nothing the script did before -c 2 was kept\n"))
        let viaStdin = try coordsh(home, ["--db", database, "-1"], input: "cart add 41\nnonsense\n")
        #expect(viaStdin.status == 2)
        #expect(viaStdin.stderr.hasPrefix("coordsh: error: stdin:2: unknown command 'nonsense'"))
        #expect(try dump(database) == after)
    }

    @Test("SQLite: a script whose 50th line fails leaves the database exactly as before; one that succeeds commits everything")
    func sqlite() throws {
        let home = try makeTemporaryDirectory("one-tx")
        defer { try? FileManager.default.removeItem(atPath: home) }
        try check(database: home + "/shop.sqlite", home: home)
    }

    @Test(
        "PostgreSQL: the same, on a real server",
        .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
    func postgres() throws {
        let home = try makeTemporaryDirectory("one-tx-pg")
        defer { try? FileManager.default.removeItem(atPath: home) }
        try check(database: try PostgresServer.createDatabase("onetx"), home: home)
    }

    @Test(
        "PostgreSQL: the script's one transaction is SERIALIZABLE: its reads take predicate locks, see one snapshot while another shell commits, and a write that conflicts with that shell's fails the script whole",
        .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
    func postgresIsolation() throws {
        let home = try makeTemporaryDirectory("one-tx-iso")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = try PostgresServer.createDatabase("onetxiso")
        let name = try #require(PostgresServer.databaseName(of: database))
        #expect(try coordsh(home, ["--db", database, "-c", "cart add 1"]).status == 0)
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"]
        let script = try LiveShell(["--config", Self.config, "--db", database, "-1"], environment: environment)
        let first = script.send("cart show")
        #expect(first.contains("#1 ") && !first.contains("#2 "), "\(first)")
        // Only a SERIALIZABLE transaction takes SIRead (predicate) locks for what it read.
        let predicateLocks = try PostgresServer.psql(
            "SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database WHERE l.mode = 'SIReadLock' AND d.datname = '\(name)'")
        #expect((Int(predicateLocks.trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0) > 0, "no predicate locks: \(predicateLocks)")
        // Another shell commits a line to the same cart meanwhile; the script still sees its
        // snapshot, as READ COMMITTED would not.
        #expect(try coordsh(home, ["--db", database, "-c", "cart add 2"]).status == 0)
        let second = script.send("cart show")
        #expect(second == first, "the script's second read saw another shell's commit:\n\(second)")
        // Its own write on what the other shell changed cannot be serialized: the script fails
        // whole, and only the other shell's line is kept.
        let write = script.send("cart add 1")
        #expect(write.contains("coordsh: error: "), "\(write)")
        #expect(script.finish() == 1)
        let after = try coordsh(home, ["--db", database, "-c", "cart show"]).stdout
        #expect(after.contains("#1 ") && after.contains("#2 ") && after.contains("1 ×"), "\(after)")
    }

    @Test("--keep-going, --supervised and no script are refused with one line and status 2, before anything runs")
    func contradictions() throws {
        let home = try makeTemporaryDirectory("one-tx-usage")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let keepGoing = try coordsh(home, ["-1", "--keep-going", "-c", "cart add 1"])
        #expect(keepGoing.status == 2)
        #expect(keepGoing.stderr.hasPrefix("coordsh: error: --single-transaction and --keep-going contradict each other"))
        let supervised = try coordsh(home, ["--single-transaction", "--supervised", "-c", "cart add 1"])
        #expect(supervised.status == 2)
        #expect(supervised.stderr.hasPrefix("coordsh: error: --single-transaction runs the script in this process"))
        #expect(!FileManager.default.fileExists(atPath: home + "/data/coordsh/shop.sqlite"))
    }
}
