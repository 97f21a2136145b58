@_spi(Host) import CoordSDK
import CSQLiteQuery
import Foundation
import GRDB

/// GRDB's connection behind the SDK's `SQLDatabase`, valid inside one read or write closure.
final class Connection: SQLDatabase {
    private unowned let db: Database
    /// The schema version this connection's transaction reads, when it was read already.
    private let knownSchemaVersion: Int64??
    /// The statements `db` ran last (the data manager keeps one memo per connection); without
    /// one, each statement is looked up in GRDB's cache.
    private let statements: StatementMemo?

    /// `schemaVersion`: the version a read transaction read before its first statement (see
    /// `SQLiteDataManager.readOnReader`); none read yet when nil.
    init(_ db: Database, schemaVersion: Int64?? = nil, statements: StatementMemo? = nil) {
        self.db = db
        knownSchemaVersion = schemaVersion
        self.statements = statements
    }

    // Statements are compiled once per connection and reused (GRDB's statement cache): a
    // batch script runs the same few statements thousands of times, and compiling them each
    // time (with GRDB's authorizer) was most of a command's cost. A string of several
    // statements (a migration's script) is run as a script instead.

    /// Runs one statement, or a script of several. An INSERT, UPDATE, DELETE or REPLACE inside
    /// the command's open transaction is bound and stepped here, as `rows` runs a query: it
    /// changes rows, never the transaction or the schema, which is what GRDB's path keeps
    /// track of (and its check for a transaction SQLite ended after an error is not needed
    /// when one is open). Anything else keeps GRDB's path.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        guard Self.isSingleStatement(sql) else {
            try db.execute(sql: sql, arguments: Self.statementArguments(arguments))
            return
        }
        let statement = try compiled(sql)
        let handle = statement.sqliteStatement
        guard coordsh_query_changes_rows(handle) != 0 else {
            try statement.execute(arguments: Self.statementArguments(arguments))
            return
        }
        defer { _ = coordsh_query_reset(handle) }
        try start(statement, arguments)
        while true {
            let code = coordsh_query_step(handle)
            if code == 101 { return }  // SQLITE_DONE
            guard code == 100 else { try check(code, statement); return }  // SQLITE_ROW (RETURNING), skipped
        }
    }

    /// A query's rows. GRDB compiles and caches the statement; one that only reads (a SELECT,
    /// a reading PRAGMA) is then bound, stepped and read column by column here: GRDB's cursor,
    /// its arguments of existential values and a `Row` per row cost more than SQLite's own work
    /// for the short queries a plugin runs per command (a sixth of a `-1` batch script). Other
    /// statements (`INSERT … RETURNING`) keep GRDB's path, which tracks what they change.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let statement = try compiled(sql)
        let handle = statement.sqliteStatement
        guard coordsh_query_reads(handle) != 0 else {
            let columns = statement.columnNames
            let cursor = try Row.fetchCursor(statement, arguments: Self.statementArguments(arguments))
            var rows: [SQLRow] = []
            while let row = try cursor.next() {
                rows.append(SQLRow(columns: columns, values: row.databaseValues.map(SQLValue.init)))
            }
            return rows
        }
        // Reset at the end too, whatever happened: a query left stepping holds its read open.
        defer { _ = coordsh_query_reset(handle) }
        try start(statement, arguments)
        var rows: [SQLRow] = []
        var columns: [String] = []
        while true {
            let code = coordsh_query_step(handle)
            if code == 101 { return rows }  // SQLITE_DONE
            guard code == 100 else { try check(code, statement); return rows }  // SQLITE_ROW
            if rows.isEmpty { columns = Self.columns(of: statement) }
            var values: [SQLValue] = []
            values.reserveCapacity(columns.count)
            for column in 0..<Int32(columns.count) { values.append(Self.value(column, handle)) }
            rows.append(SQLRow(columns: columns, values: values))
        }
    }

    /// GRDB's compiled statement for `sql`: from its cache (through the connection's memo) when
    /// the text is ASCII, compiled for itself otherwise. GRDB keys its cache by `String`, whose
    /// equality is Unicode's canonical equivalence — `café` written with one scalar and with two
    /// is one key there but two names to SQLite — so one feature's statement could run in place
    /// of another's text.
    private func compiled(_ sql: String) throws -> Statement {
        // The memo keeps only texts found ASCII here, and finds one by its bytes: a text it
        // holds needs no scan again (the scan was a tenth of a statement's way to SQLite).
        if let statements, let known = statements.known(sql) { return known }
        var sql = sql
        guard sql.withUTF8(Self.isASCII) else { return try db.makeStatement(sql: sql) }
        if let statements { return try statements.statement(sql, on: db) }
        return try db.cachedStatement(sql: sql)
    }

    /// No byte over 0x7F; eight at a time (byte by byte, it was 1 % of a batch script).
    static func isASCII(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress else { return true }
        let words = bytes.count / 8
        let raw = UnsafeRawPointer(base)
        for word in 0..<words where raw.loadUnaligned(fromByteOffset: word * 8, as: UInt64.self) & 0x8080_8080_8080_8080 != 0 {
            return false
        }
        return bytes[(words * 8)...].allSatisfy { $0 < 0x80 }
    }

    /// Resets the statement and binds `arguments`, one per parameter in the parameters' order
    /// (GRDB's rule, and its message when the count is wrong).
    private func start(_ statement: Statement, _ arguments: [SQLValue]) throws {
        let handle = statement.sqliteStatement
        try check(coordsh_query_reset(handle), statement)
        guard arguments.count == coordsh_query_parameter_count(handle) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.count)", sql: statement.sql)
        }
        for (offset, value) in arguments.enumerated() {
            try check(Self.bind(value, at: Int32(offset + 1), handle), statement)
        }
    }

    /// The columns of a statement that has stepped: GRDB's names, read once per statement,
    /// until SQLite has compiled it again for a changed schema (a `SELECT *` of a table another
    /// process added a column to); from then on SQLite's own, read at each run.
    private static func columns(of statement: Statement) -> [String] {
        let handle = statement.sqliteStatement
        if coordsh_query_recompiled(handle) == 0 { return statement.columnNames }
        return (0..<coordsh_query_column_count(handle)).map { coordsh_query_column_name(handle, $0).map { String(cString: $0) } ?? "" }
    }

    /// SQLite's result code; SQLITE_TOOBIG (18) for a text or blob over 2 GiB, which its
    /// length cannot describe.
    private static func bind(_ value: SQLValue, at index: Int32, _ handle: OpaquePointer?) -> Int32 {
        switch value {
        case .null: return coordsh_query_bind_null(handle, index)
        case .integer(let v): return coordsh_query_bind_int64(handle, index, v)
        case .real(let v): return coordsh_query_bind_double(handle, index, v)
        case .text(var v):
            return v.withUTF8 { bytes in
                guard let length = Int32(exactly: bytes.count) else { return 18 }
                return coordsh_query_bind_text(handle, index, bytes.baseAddress, length)
            }
        case .blob(let v):
            return v.withUnsafeBytes { bytes in
                guard let length = Int32(exactly: bytes.count) else { return 18 }
                return coordsh_query_bind_blob(handle, index, bytes.baseAddress, length)
            }
        }
    }

    private static func value(_ column: Int32, _ handle: OpaquePointer?) -> SQLValue {
        var length: Int32 = 0
        switch coordsh_query_column_type(handle, column) {
        case 1: return .integer(coordsh_query_column_int64(handle, column))
        case 2: return .real(coordsh_query_column_double(handle, column))
        case 3:
            guard let text = coordsh_query_column_text(handle, column, &length) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self))
        case 4:
            let bytes = coordsh_query_column_blob(handle, column, &length)
            guard let bytes, length > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))))
        default: return .null
        }
    }

    /// Runs `sql`, an ASCII statement that returns no row and changes no table (a savepoint's),
    /// by stepping GRDB's cached statement directly.
    static func step(_ db: Database, _ sql: String, statements: StatementMemo) throws {
        let statement = try statements.statement(sql, on: db)
        let handle = statement.sqliteStatement
        defer { _ = coordsh_query_reset(handle) }
        let code = coordsh_query_step(handle)
        if code != 101 { try Connection(db).check(code, statement) }  // SQLITE_DONE
    }

    /// SQLite's result code as GRDB's error (the store translates it into its one line).
    private func check(_ code: Int32, _ statement: Statement) throws {
        guard code != 0 else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
    }

    /// GRDB's arguments from the SDK's values, through its initializer for values of any type:
    /// the one for a sequence of one `DatabaseValueConvertible` type maps them with a generic
    /// key path, which the runtime builds again at every call (demangling type names) — 3 % of
    /// a batch script's time.
    static func statementArguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in value.databaseValue })
    }

    /// No `;` except at the end: SQL text the statement cache can hold. Looked at as UTF-8
    /// bytes: as Characters, this scan was 5 % of a batch script (grapheme breaking); through
    /// the UTF-8 view's generic `firstIndex`, still 2,900 instructions for the cart's upsert,
    /// where `memchr` takes a few dozen.
    static func isSingleStatement(_ sql: String) -> Bool {
        var sql = sql
        return sql.withUTF8 { bytes in
            guard let base = bytes.baseAddress, let found = memchr(base, Int32(UInt8(ascii: ";")), bytes.count) else { return true }
            let after = UnsafePointer(found.assumingMemoryBound(to: UInt8.self)) - base + 1
            return bytes[after...].allSatisfy { $0 == 0x20 || (0x09...0x0D).contains($0) }
        }
    }

    /// The schema's version number (`PRAGMA schema_version`): the statement check asks for it
    /// before every transaction of a feature. The cached statement is stepped directly —
    /// through GRDB's query machinery this one pragma was 3 % of the shop's cart cycle.
    func schemaVersion() throws -> Int64? {
        if let knownSchemaVersion { return knownSchemaVersion }
        let statement = try statements?.statement("PRAGMA schema_version", on: db) ?? db.cachedStatement(sql: "PRAGMA schema_version")
        var version: Int64 = 0
        let code = coordsh_step_int64(statement.sqliteStatement, &version)
        if code == 101 { return nil }  // SQLITE_DONE: no row
        try check(code, statement)
        return version
    }

    var lastInsertedRowID: Int64 { db.lastInsertedRowID }
    var backend: SQLBackend { .sqlite }
    var changes: Int { db.changesCount }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let v): v.databaseValue
        case .blob(let v): Data(v).databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let v): self = .text(v)
        case .blob(let v): self = .blob(Array(v))
        }
    }
}
