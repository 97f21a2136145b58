import Foundation
import TestSupport
import Testing

/// Swift calls two texts equal when Unicode calls them canonically equivalent — `café` with
/// `é` as one scalar and as `e` and a combining accent — where SQLite reads their bytes and
/// sees two names. The statement check keeps the tables' owners by name and a verdict per
/// statement text; kept under Swift's equality, a plugin's own table would make another
/// feature's, spelled the other way, its own too, and a statement let through on its table
/// would pass for the same statement on the other.
@Suite("Table names Swift calls equal and SQLite does not", .serialized)
struct CanonicalNameTests {
    @Test("a plugin's own table does not make another feature's, spelled the other way, its own: a statement let through on the first is refused on the second, nothing of it changed")
    func verdictsKeptByBytes() throws {
        let workspace = try IntruderWorkspace("canonical")
        defer { workspace.remove() }
        let (folder, config, database) = (workspace.folder, workspace.config, workspace.database)
        let environment = workspace.environment.merging(["NO_COLOR": "1"]) { _, new in new }
        let setUp = try run(BuildProducts.coordsh, ["--config", config, "--db", database, "-c", "intrude note hello"], environment: environment)
        #expect(setUp.status == 0, "\(setUp.stderr)")

        // The plugin's own table and another feature's (the catalog's, say), as migrations in
        // another shell would leave them, their owners recorded — the plugin's first.
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        _ = try SchemaChangeTests.sqlite(database, [
            "CREATE TABLE \"\(decomposed)\" (secret TEXT)",
            "INSERT INTO coordsh_table_owners (table_name, feature) VALUES ('\(decomposed)', 'intruder')",
            "CREATE TABLE \"\(composed)\" (secret TEXT)",
            "INSERT INTO \"\(composed)\" (secret) VALUES ('kept')",
            "INSERT INTO coordsh_table_owners (table_name, feature) VALUES ('\(composed)', 'content')",
        ])

        // One process: the verdict for the first line is kept when the second runs.
        let script = folder + "/script.coordsh"
        try [decomposed, composed].map { "intrude change 'DELETE FROM \"\($0)\"; DELETE FROM intruder_notes WHERE 0'" }
            .joined(separator: "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let result = try run(
            BuildProducts.coordsh, ["--config", config, "--db", database, "--keep-going", "-f", script], environment: environment)
        #expect(result.stdout.contains("changed 0 rows"), "its own table: \(result.stdout) \(result.stderr)")
        #expect(result.status == 1)
        #expect(result.stderr.contains(":2: ") && result.stderr.contains("of feature 'content'"), "the other spelling is the catalog's table: \(result.stderr)")
        #expect(try SchemaChangeTests.sqlite(database, ["SELECT count(*) FROM \"\(composed)\""]) == "1", "nothing of the catalog's table was deleted")
    }
}
