import Foundation
import TestSupport
import Testing

/// An outside plugin on PostgreSQL, through the real binary: its own table made by its own
/// migration and used; every way out of it refused in one line before the server runs it —
/// other features' tables (directly, in a CTE, a second statement, a view it tries to make),
/// role changes (`RESET ROLE`, `SET ROLE`, `set_config('role', …)`), the server's catalogs and
/// functions, and the quoting PostgreSQL reads differently from the SQLite compiler that checks
/// each statement; what it was granted it gets.
@Suite(
    "An outside plugin's data on PostgreSQL", .serialized,
    .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
struct PostgresScopeTests {
    @Test("its own table works; each escape is refused in one line and nothing is read or changed; a grant gives exactly that")
    func escapesRefused() throws {
        let folder = try makeTemporaryDirectory("pgscope")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        chmod(folder + "/plugins", 0o755)
        try FixtureBuilder.buildIntruder(output: folder + "/plugins/libintruder.so", declares: true)
        let config = folder + "/coordsh.toml"
        let db = try PostgresServer.createDatabase("scope")
        let name = try #require(PostgresServer.databaseName(of: db))
        let environment = ["HOME": folder + "/home", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
                           "XDG_CACHE_HOME": folder + "/cache", "PW": "long enough password", "NO_COLOR": "1"]
        func shell(_ script: String, grants: String = "") throws -> RunResult {
            try "[plugins]\ndirs = [\"$SDK_DIR\", \"\(folder)/plugins\"]\n\(grants)".write(toFile: config, atomically: true, encoding: .utf8)
            return try run(BuildProducts.coordsh, ["--keep-going", "--config", config, "--db", db, "--password-env", "PW"],
                           input: script, environment: environment, timeout: 120)
        }
        // Someone's account, to be kept from the plugin.
        _ = try shell("account create victim@example.org\n")
        let hashes = try PostgresServer.psql("SELECT password_hash FROM users ORDER BY id", database: name)

        let attempts: [(line: String, refusal: String)] = [
            ("intrude sql 'SELECT email, password_hash FROM users'", "reading table 'users' of feature 'account': refused 'read users'"),
            ("intrude sql 'WITH u AS (SELECT * FROM users) SELECT count(*) FROM u'", "refused 'read users'"),
            ("intrude sql 'SELECT (SELECT count(*) FROM sessions)'", "refused 'read sessions'"),
            ("intrude change 'DELETE FROM users'", "changing table 'users' of feature 'account': refused 'write users'"),
            ("intrude change 'CREATE VIEW spy AS SELECT * FROM users'", "changing the schema outside the feature's migrations is not allowed"),
            ("intrude sql 'RESET ROLE'", "intruder: near \"RESET\": syntax error"),
            ("intrude sql 'SET ROLE coordsh'", "intruder: near \"SET\": syntax error"),
            ("intrude sql \"SELECT set_config('role', 'coordsh', false)\"", "no such function: set_config"),
            ("intrude sql \"SELECT pg_read_file('/etc/passwd')\"", "no such function: pg_read_file"),
            ("intrude sql 'SELECT rolname FROM pg_catalog.pg_authid'", "no such table: pg_catalog.pg_authid"),
            ("intrude sql 'SELECT password_hash FROM public.users'", "no such table: public.users"),
            // SQLite reads column e with the alias '\'' AS a, … --', reading only the plugin's
            // own table; PostgreSQL reads the string "'" and then a subquery on users.
            ("intrude sql \"SELECT E'\\\\'' AS a, (SELECT password_hash FROM users LIMIT 1) AS b --' FROM intruder_notes\"", "this SQL uses an E'…' string"),
            ("intrude sql 'SELECT $$x$$'", "this SQL uses $-quoting"),
            ("intrude sql 'SELECT text[1:2] FROM intruder_notes'", "this SQL uses [ ]"),
            ("intrude sql 'SELECT 1 /* a /* b */ */'", "this SQL uses a nested /* comment"),
        ]
        let script = (["intrude note first"] + attempts.map(\.line) + ["intrude note second", "echo done"]).joined(separator: "\n") + "\n"
        let result = try shell(script)
        #expect(result.stdout.contains("note: 1 notes") && result.stdout.contains("note: 2 notes"), "its own table: \(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("done\n"), "\(result.stdout)")
        let errors = result.stderr.split(separator: "\n").map(String.init)
        for (line, refusal) in attempts {
            #expect(errors.contains { $0.contains(refusal) }, "'\(line)' was not refused with '\(refusal)':\n\(result.stderr)")
        }
        #expect(errors.count == attempts.count, "one line per refusal:\n\(result.stderr)")
        // No attempt ran: none printed a row (the E'…' one, let through, prints the hash).
        #expect(!result.stdout.contains(" rows: "), "an attempt ran: \(result.stdout)")
        #expect(try PostgresServer.psql("SELECT password_hash FROM users ORDER BY id", database: name) == hashes)
        #expect(try PostgresServer.psql("SELECT count(*) FROM information_schema.views WHERE table_name = 'spy'", database: name).hasPrefix("0"))
        #expect(try PostgresServer.psql("SELECT feature FROM coordsh_table_owners WHERE table_name = 'intruder_notes'", database: name) == "intruder\n")

        let granted = try shell("intrude sql 'SELECT name FROM products WHERE id = 1'\nintrude sql 'SELECT count(*) FROM users'\n",
                                grants: "\n[plugins.grants]\nintruder = [\"read products\"]\n")
        #expect(granted.stdout.contains("1 rows: Trail Running Shoes"), "\(granted.stdout)\(granted.stderr)")
        #expect(granted.stderr.contains("refused 'read users'") && granted.stderr.split(separator: "\n").count == 1, "\(granted.stderr)")
    }
}
