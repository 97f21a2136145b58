import CoordData
@_spi(Host) import CoordSDK
import Foundation
import TestSupport
import Testing

/// What a plugin stores through the SDK it reads back unchanged, and a statement that fails
/// fails in one line without leaving half a change — through the real data managers. On
/// SQLite, queries and row changes inside a command's transaction are bound and stepped by
/// coordsh itself rather than by GRDB; these are the promises that path has to keep.
@Suite("Stored values: what goes in comes back, SQLite and PostgreSQL", .serialized)
@MainActor
final class StoredValuesTests {
    var hosts: [TestHost] = []
    /// Folders a test made for a database of its own, removed once its hosts are closed.
    var folders: [String] = []

    isolated deinit {
        for host in hosts { host.close() }
        for folder in folders { try? FileManager.default.removeItem(atPath: folder) }
    }

    /// A host with a table of one column of each kind.
    func host(_ backend: Backend) throws -> any HostDataManager {
        let host = try TestHost(plugins: [], databasePath: try backend.freshLocation("values"))
        hosts.append(host)
        try makeTables(host.data, backend)
        return host.data
    }

    func makeTables(_ data: any HostDataManager, _ backend: Backend) throws {
        let types = backend == .sqlite ? "INTEGER, r REAL, t TEXT, b BLOB" : "BIGINT, r DOUBLE PRECISION, t TEXT, b BYTEA"
        try data.write { db in
            try db.execute("CREATE TABLE kept (id INTEGER PRIMARY KEY, i \(types))", [])
            try db.execute("CREATE TABLE named (name TEXT PRIMARY KEY)", [])
        }
    }

    struct Stored: Equatable {
        var i: SQLValue, r: SQLValue, t: SQLValue, b: SQLValue
    }

    func stored(_ data: any HostDataManager, _ id: Int) throws -> Stored? {
        try data.read { db in
            try db.rows("SELECT i, r, t, b FROM kept WHERE id = ?", [.integer(Int64(id))]).first.map {
                Stored(i: $0["i"], r: $0["r"], t: $0["t"], b: $0["b"])
            }
        }
    }

    @Test("integers at both ends, reals, text in any script, empty text and blobs, and NULL come back as they went in", arguments: Backend.available)
    func roundTrip(backend: Backend) throws {
        let data = try host(backend)
        var rows: [Stored] = [
            Stored(i: .integer(.max), r: .real(1.5), t: .text("Grüße, 日本, ✓"), b: .blob([0, 255, 1, 0])),
            Stored(i: .integer(.min), r: .real(-0.25), t: .text(""), b: .blob([])),
            Stored(i: .integer(-1), r: .real(1e300), t: .text("'quoted' ? not a placeholder"), b: .null),
            Stored(i: .null, r: .null, t: .null, b: .blob(Array(repeating: 7, count: 5000))),
        ]
        if backend == .sqlite { rows.append(Stored(i: .integer(0), r: .real(0), t: .text("a\u{0}b"), b: .blob([0]))) }
        try data.write { db in
            for (id, row) in rows.enumerated() {
                try db.execute("INSERT INTO kept (id, i, r, t, b) VALUES (?, ?, ?, ?, ?)", [.integer(Int64(id)), row.i, row.r, row.t, row.b])
            }
        }
        for (id, row) in rows.enumerated() {
            #expect(try stored(data, id) == row, "row \(id)")
        }
        // A query returns every row, in order, and none when nothing matches.
        let ids = try data.read { db in try db.rows("SELECT id FROM kept WHERE id >= ? ORDER BY id DESC", [.integer(1)]).map { $0.int("id") } }
        #expect(ids == Array((1..<rows.count).reversed()))
        #expect(try data.read { db in try db.rows("SELECT id FROM kept WHERE id > ?", [.integer(99)]) }.isEmpty)
    }

    @Test("an UPDATE and a DELETE report how many rows they changed, and an INSERT its row id", arguments: Backend.available)
    func changesCounted(backend: Backend) throws {
        let data = try host(backend)
        let (inserted, updated, deleted, none) = try data.write { db in
            for id in 1...3 { try db.execute("INSERT INTO kept (id, i) VALUES (?, ?)", [.integer(Int64(id)), .integer(10)]) }
            let inserted = db.lastInsertedRowID
            try db.execute("UPDATE kept SET i = i + 1 WHERE id <= ?", [.integer(2)])
            let updated = db.changes
            try db.execute("DELETE FROM kept WHERE id = ?", [.integer(3)])
            let deleted = db.changes
            try db.execute("DELETE FROM kept WHERE id = ?", [.integer(3)])
            return (inserted, updated, deleted, db.changes)
        }
        if backend == .sqlite { #expect(inserted == 3) }
        #expect(updated == 2)
        #expect(deleted == 1)
        #expect(none == 0)
        #expect(try data.read { db in try db.rows("SELECT i FROM kept ORDER BY id", []).map { $0.int("i") } } == [11, 11])
    }

    @Test("a write whose second statement fails keeps none of it; the error is one line and the store goes on", arguments: Backend.available)
    func failedWriteKeepsNothing(backend: Backend) throws {
        let data = try host(backend)
        try data.write { db in try db.execute("INSERT INTO named (name) VALUES (?)", [.text("first")]) }
        let error = #expect(throws: (any Error).self) {
            try data.write { db in
                try db.execute("INSERT INTO named (name) VALUES (?)", [.text("second")])
                try db.execute("INSERT INTO named (name) VALUES (?)", [.text("first")])  // taken
            }
        }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.lowercased().contains("unique"), "\(message)")
        #expect(!message.contains("\n"))
        #expect(try data.read { db in try db.rows("SELECT name FROM named ORDER BY name", []).map { $0.string("name") } } == ["first"])
        // The same statements run again afterwards.
        try data.write { db in try db.execute("INSERT INTO named (name) VALUES (?)", [.text("second")]) }
        #expect(try data.read { db in try db.rows("SELECT name FROM named ORDER BY name", []).map { $0.string("name") } } == ["first", "second"])
    }

    @Test("a statement given too few or too many values fails in one line and changes nothing", arguments: Backend.available)
    func wrongValueCount(backend: Backend) throws {
        let data = try host(backend)
        #expect(throws: (any Error).self) {
            try data.write { db in try db.execute("INSERT INTO named (name) VALUES (?)", []) }
        }
        #expect(throws: (any Error).self) {
            try data.write { db in try db.execute("INSERT INTO named (name) VALUES (?)", [.text("a"), .text("b")]) }
        }
        #expect(throws: (any Error).self) {
            _ = try data.read { db in try db.rows("SELECT name FROM named WHERE name = ?", []) }
        }
        #expect(try data.read { db in try db.rows("SELECT count(*) AS n FROM named", []).first?.int("n") } == 0)
    }

    @Test("a query that fails while it runs (an integer overflow) fails in one line, and runs again with other values")
    func failingQueryRunsAgain() throws {
        let data = try host(.sqlite)
        let query = "SELECT abs(?) AS a"
        let error = #expect(throws: (any Error).self) {
            _ = try data.read { db in try db.rows(query, [.integer(.min)]) }
        }
        #expect("\(error.map { "\($0)" } ?? "")".contains("integer overflow"))
        #expect(try data.read { db in try db.rows(query, [.integer(-5)]).first?.int("a") } == 5)
        // A write after it is not held up by a read left open.
        try data.write { db in try db.execute("INSERT INTO named (name) VALUES (?)", [.text("after")]) }
        #expect(try data.read { db in try db.rows("SELECT count(*) AS n FROM named", []).first?.int("n") } == 1)
    }

    @Test("two table names Swift calls equal and SQLite does not (é as one scalar and as two) are two tables to every statement, read or written, however often each runs")
    func canonicallyEqualNamesStayApart() throws {
        let data = try host(.sqlite)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed, "the premise: one String to Swift")
        try data.write { db in
            // Both made first: a schema change empties GRDB's statement cache.
            for name in [composed, decomposed] { try db.execute("CREATE TABLE \"\(name)\" (v TEXT)", []) }
            for (name, value) in [(composed, "composed"), (decomposed, "decomposed")] {
                try db.execute("INSERT INTO \"\(name)\" (v) VALUES (?)", [.text(value)])
            }
        }
        for _ in 0..<2 {
            for (name, value) in [(composed, "composed"), (decomposed, "decomposed")] {
                let read = try data.read { db in try db.rows("SELECT v FROM \"\(name)\"", []).map { $0.string("v") } }
                #expect(read == [value], "\(value): \(read)")
            }
        }
        try data.write { db in try db.execute("DELETE FROM \"\(decomposed)\" WHERE v = ?", [.text("decomposed")]) }
        let left = try data.read { db in try db.rows("SELECT count(*) AS n FROM \"\(composed)\"", []).first?.int("n") }
        #expect(left == 1, "a delete of one table's rows leaves the other's")
    }

    @Test("two statements alike in length and in their first, middle and last eight bytes each run their own text, read and written, however often each runs")
    func lookalikeStatementsStayApart() throws {
        let data = try host(.sqlite)
        // The connection's statement memo files both texts in one slot (`StatementMemo.slot`):
        // they differ only in the ninth byte.
        let texts = [1, 2].map { "SELECT  \($0) AS v, 'the middle of the text, alike' AS m, 'same end' AS e" }
        #expect(texts[0].utf8.count == texts[1].utf8.count)
        for _ in 0..<3 {
            for (value, text) in zip([1, 2], texts) {
                let read = try data.read { db in try db.rows(text, []).first?.int("v") }
                let written = try data.write { db in try db.rows(text, []).first?.int("v") }
                #expect(read == value && written == value, "\(text): read \(String(describing: read)), in a write \(String(describing: written))")
            }
        }
    }

    @Test("a time a plugin binds (`SQLValue.now`) is written as SQLite's datetime writes the same second")
    func timestampsAsSQLite() throws {
        let data = try host(.sqlite)
        for seconds in [0, -1, 951_782_400, 1_700_000_000, 1_798_761_599, 253_402_300_799] {
            let sqlite = try data.read { db in try db.rows("SELECT datetime(?, 'unixepoch') AS t", [.integer(Int64(seconds))]) }
            #expect(sqlite.first?["t"] == .text(SQLValue.timestamp(secondsSince1970: seconds)))
        }
        // Past SQLite's range, the year is written out whole.
        #expect(SQLValue.timestamp(secondsSince1970: 253_402_300_800) == "10000-01-01 00:00:00")
    }

    @Test("a column another process adds to a table is in the next read of SELECT *, the query compiled before it or not")
    func schemaChangedElsewhere() throws {
        let folder = try makeTemporaryDirectory("values")
        folders.append(folder)
        let path = folder + "/shared.sqlite"
        let one = try TestHost(plugins: [], databasePath: path), other = try TestHost(plugins: [], databasePath: path)
        hosts += [one, other]
        try makeTables(one.data, .sqlite)
        try one.data.write { db in try db.execute("INSERT INTO named (name) VALUES (?)", [.text("a")]) }
        // Read on the reading connection and, inside a write, on the writer: each compiles and
        // keeps its own statement.
        let before = try one.data.read { db in try db.rows("SELECT * FROM named", []) }
        let beforeInWrite = try one.data.write { db in try db.rows("SELECT * FROM named", []) }
        #expect(before.first?.columns == ["name"])
        #expect(beforeInWrite.first?.columns == ["name"])
        try other.data.write { db in try db.execute("ALTER TABLE named ADD COLUMN note TEXT DEFAULT 'added'", []) }
        let after = try one.data.read { db in try db.rows("SELECT * FROM named", []) }
        let afterInWrite = try one.data.write { db in try db.rows("SELECT * FROM named", []) }
        for rows in [after, afterInWrite] {
            #expect(rows.first?.columns == ["name", "note"])
            #expect(rows.first?["note"] == .text("added"))
        }
    }
}
