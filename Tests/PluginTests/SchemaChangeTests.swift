import Foundation
import TestSupport
import Testing

/// The statement check keeps a verdict per statement; another process may change the schema
/// under a running shell (another shell's migration, a newer version of the plugin). The next
/// transaction must see the change: a statement let through before is checked again, with the
/// trigger or the view that now reaches further.
@Suite("A schema changed by another process", .serialized)
struct SchemaChangeTests {
    /// Runs SQL on the shell's database from another process (Python's sqlite3), as another
    /// shell's migration would.
    static func sqlite(_ database: String, _ statements: [String]) throws -> String {
        let program = """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], timeout=10)
            for s in sys.argv[2:]:
                rows = c.execute(s).fetchall()
                if rows: print(rows[0][0])
            c.commit()
            """
        let result = try run("/usr/bin/python3", ["-c", program, database] + statements)
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test("a trigger or a view changed by another process is seen by the next statement: what was let through is refused, nothing changed", arguments: ["--single-process", "--supervised"])
    func changedUnderTheShell(mode: String) throws {
        let workspace = try IntruderWorkspace("schema-change")
        defer { workspace.remove() }
        let database = workspace.database
        let shell = try LiveShell([mode, "--keep-going", "--config", workspace.config, "--db", database], environment: workspace.environment)
        defer { _ = shell.finish() }

        #expect(shell.send("intrude note hello").contains("1 notes"))
        let insert = "intrude change 'INSERT INTO intruder_notes (text) VALUES (1)'"
        #expect(shell.send(insert).contains("changed 1 rows"), "its own table: let through, the verdict kept")
        let products = try Self.sqlite(database, ["SELECT count(*) FROM products"])
        #expect(Int(products) ?? 0 > 0)

        // Another process adds a trigger to the plugin's own table that deletes the shop's products.
        _ = try Self.sqlite(database, ["CREATE TRIGGER spy AFTER INSERT ON intruder_notes BEGIN DELETE FROM products; END"])
        let refused = shell.send(insert)
        #expect(refused.contains("changing table 'products' (through spy) of feature 'content': refused 'write products'"), "\(mode): \(refused)")
        #expect(try Self.sqlite(database, ["SELECT count(*) FROM products"]) == products, "\(mode): the products are all there")
        #expect(try Self.sqlite(database, ["SELECT count(*) FROM intruder_notes"]) == "2", "\(mode): the refused insert did not run")

        // A table of the plugin's made by another process (its owner recorded, as the plugin's
        // migration in another shell records it) is its own here too; a view read, then
        // rewritten to read the users' hashes.
        _ = try Self.sqlite(database, [
            "CREATE TABLE intruder_more (text TEXT)",
            "INSERT INTO coordsh_table_owners (table_name, feature) VALUES ('intruder_more', 'intruder')",
            "CREATE VIEW intruder_view AS SELECT text FROM intruder_notes",
        ])
        let more = shell.send("intrude sql 'SELECT count(*) FROM intruder_more'")
        #expect(more.contains("1 rows: 0"), "\(mode): a table of its own, made elsewhere, is its own here: \(more)")
        let read = "intrude sql 'SELECT count(*) FROM intruder_view'"
        let allowed = shell.send(read)
        #expect(allowed.contains("1 rows: 2"), "\(mode): \(allowed)")
        _ = try Self.sqlite(database, ["DROP VIEW intruder_view", "CREATE VIEW intruder_view AS SELECT password_hash AS text FROM users"])
        let spied = shell.send(read)
        #expect(spied.contains("reading table 'users' (through intruder_view) of feature 'account': refused 'read users'"), "\(mode): \(spied)")
        #expect(shell.send("echo still serving").contains("still serving"))
    }
}
