internal import Foundation

/// One SQL value, as plugins bind and read them.
///
/// The SDK does not expose GRDB's or libpq's types: the host links each client once, and a
/// plugin that used their types would link a second copy (the same trap as a statically linked
/// shared type). Plugins write SQL against this small surface instead, and the host runs it
/// through GRDB (SQLite) or libpq (PostgreSQL).
///
/// Frozen: these are the five storage classes SQL values have on every backend, a promise
/// meant to hold; a plugin may switch over them without a default, and the host's data layer
/// reads them without a call.
@frozen
public enum SQLValue: Sendable, Equatable, CustomStringConvertible {
    /// SQL `NULL`.
    case null
    /// A 64-bit integer (SQLite's `INTEGER`, PostgreSQL's `BIGINT`).
    case integer(Int64)
    /// A double (`REAL`, `DOUBLE PRECISION`).
    case real(Double)
    /// Text (UTF-8; PostgreSQL's text cannot hold a NUL character).
    case text(String)
    /// Bytes (`BLOB`, `BYTEA`).
    case blob([UInt8])

    /// Binds a Swift `Int` as an SQL integer (both backends store 64 bits).
    public init(_ value: Int) { self = .integer(Int64(value)) }
    /// Binds an `Int64`: row ids and money in minor units.
    public init(_ value: Int64) { self = .integer(value) }
    /// Binds text. Always bind values: a value spliced into SQL text is an injection.
    public init(_ value: String) { self = .text(value) }
    /// Binds optional text: nil is SQL `NULL`.
    public init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    /// Binds bytes (`BLOB` on SQLite, `BYTEA` on PostgreSQL).
    public init(_ value: [UInt8]) { self = .blob(value) }

    /// The value as an `Int`: an integer, or a real with no fraction (PostgreSQL may hand back
    /// `NUMERIC` as one); nil otherwise.
    public var int: Int? {
        switch self {
        case .integer(let v): Int(v)
        case .real(let v): Int(exactly: v)
        default: nil
        }
    }
    /// The value as an `Int64`, nil when it is not an integer.
    public var int64: Int64? { if case .integer(let v) = self { v } else { nil } }
    /// The value as text, nil when it is not text (no conversion: an integer is not a string).
    public var string: String? { if case .text(let v) = self { v } else { nil } }
    /// The value's bytes: a blob as it is, text as UTF-8; nil otherwise.
    public var bytes: [UInt8]? {
        switch self {
        case .blob(let v): v
        case .text(let v): Array(v.utf8)
        default: nil
        }
    }
    /// True for SQL `NULL`: an absent value, which `int` and `string` read as nil.
    public var isNull: Bool { self == .null }

    /// The value as the shell and error messages show it.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let v): String(v)
        case .real(let v): String(v)
        case .text(let v): v
        case .blob(let v): "<\(v.count) bytes>"
        }
    }
}

extension SQLValue: ExpressibleByIntegerLiteral, ExpressibleByStringLiteral, ExpressibleByNilLiteral {
    /// `42` where an `SQLValue` is expected.
    public init(integerLiteral value: Int64) { self = .integer(value) }
    /// `"text"` where an `SQLValue` is expected.
    public init(stringLiteral value: String) { self = .text(value) }
    /// `nil` where an `SQLValue` is expected: SQL `NULL`.
    public init(nilLiteral: ()) { self = .null }
}

/// One result row: values by column name.
public struct SQLRow: Sendable {
    /// The column names, in the query's order (as the `SELECT` names them, `AS` included).
    public let columns: [String]
    /// The values, one per column, in the same order.
    public let values: [SQLValue]

    /// A row; the data managers make them, and a test may too.
    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, or `.null` when there is no such column.
    public subscript(_ column: String) -> SQLValue {
        columns.firstIndex(of: column).map { values[$0] } ?? .null
    }

    /// The column as an `Int`, 0 when it is `NULL` or missing: for `NOT NULL` integer columns.
    public func int(_ column: String) -> Int { self[column].int ?? 0 }
    /// The column as an `Int64`, 0 when it is `NULL` or missing.
    public func int64(_ column: String) -> Int64 { self[column].int64 ?? 0 }
    /// The column as text, empty when it is `NULL` or missing: for `NOT NULL` text columns.
    public func string(_ column: String) -> String { self[column].string ?? "" }
    /// The column as text, nil for `NULL`: for nullable columns, where empty and absent differ.
    public func optionalString(_ column: String) -> String? { self[column].string }
}

/// Which database server runs a feature's SQL.
///
/// Plugins write one SQL for both (`?` placeholders, `ON CONFLICT`, `RETURNING`, times bound
/// from Swift); only schema statements differ where the types do (identity columns, `BYTEA`),
/// which is what `Migration(_:sqlite:postgresql:)` is for.
public enum SQLBackend: String, Sendable {
    /// One embedded file: the default.
    case sqlite
    /// A PostgreSQL server that several coordsh hosts can share.
    case postgresql
}

/// A database connection lent to a closure by `DataManaging.read` or `write`. It is valid
/// only inside that closure; inside `write` everything runs in one transaction.
///
/// Placeholders are `?` (or `?1`, `?2` … to use one value twice) on every backend; the
/// PostgreSQL manager rewrites them as `$n` outside quotes and comments.
public protocol SQLDatabase: AnyObject {
    /// Runs one statement that returns no rows.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws
    /// Runs a query and returns every row.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
    /// The rowid of the last INSERT on this connection — SQLite only (0 on PostgreSQL): write
    /// `INSERT … RETURNING id` and read the row, which works on both.
    var lastInsertedRowID: Int64 { get }
    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }
    /// The server this connection talks to, for the rare statement that must differ.
    var backend: SQLBackend { get }
}

extension SQLDatabase {
    /// Runs one statement with no values to bind (a schema statement in a migration).
    public func execute(_ sql: String) throws { try execute(sql, []) }
    /// The first row, or nil.
    public func row(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLRow? { try rows(sql, arguments).first }
    /// The first column of the first row as an integer, or nil.
    public func int(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int? { try row(sql, arguments)?.values.first?.int }
}

/// One versioned step of a feature's schema. Identifiers are scoped by feature (`cart.v1`)
/// and applied once, in order, each in its own transaction.
public struct Migration: Sendable {
    /// Unique within the feature, and never reused for another step: the store remembers which
    /// identifiers it applied, so renaming one applies it again.
    public let identifier: String
    /// The step itself, run once inside its own transaction: throwing rolls it back and stops
    /// the feature's later steps.
    public let apply: @Sendable (any SQLDatabase) throws -> Void

    /// A step written in Swift, for one that must look at the data (a backfill) or differ by
    /// `db.backend`.
    public init(_ identifier: String, _ apply: @escaping @Sendable (any SQLDatabase) throws -> Void) {
        self.identifier = identifier
        self.apply = apply
    }

    /// A migration that runs SQL statements in order, the same on every backend.
    public init(_ identifier: String, sql statements: [String]) {
        self.init(identifier) { db in for sql in statements { try db.execute(sql) } }
    }

    /// A migration whose statements differ by backend: where the column types do (an
    /// `INTEGER PRIMARY KEY` is SQLite's identity column, PostgreSQL's is
    /// `BIGINT GENERATED BY DEFAULT AS IDENTITY`; SQLite's `BLOB` is PostgreSQL's `BYTEA`).
    public init(_ identifier: String, sqlite: [String], postgresql: [String]) {
        self.init(identifier) { db in
            for sql in db.backend == .postgresql ? postgresql : sqlite { try db.execute(sql) }
        }
    }
}

extension SQLValue {
    /// The current time in UTC as `YYYY-MM-DD HH:MM:SS` text, as SQLite's `datetime('now')`
    /// writes it: bound from Swift so that the same statement runs on every backend and the
    /// stored text sorts and compares the same on each.
    public static var now: SQLValue { .text(timestamp(secondsSince1970: Int(time(nil)))) }

    /// A moment in UTC as `YYYY-MM-DD HH:MM:SS`, given as whole seconds since 1970
    /// (`Int(date.timeIntervalSince1970)` for a Foundation `Date`). It takes a number rather
    /// than a `Date` so that the SDK's public face names no Foundation type: Foundation is not
    /// built for library evolution, and the face is what a plugin is compiled against.
    public static func timestamp(secondsSince1970: Int) -> String {
        var seconds = time_t(secondsSince1970)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        let year = parts.tm_year + 1900
        guard (1000...9999).contains(year) else {
            func two(_ n: Int32) -> String { n < 10 ? "0\(n)" : "\(n)" }
            return "\(year)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday)) \(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))"
        }
        // Digit by digit: through string interpolation this took 4,600 instructions, more than
        // SQLite's work for the cart write that binds it (three per `cart add`).
        return String(unsafeUninitializedCapacity: 19) { text in
            func put(_ value: Int32, _ width: Int, at offset: Int) {
                var value = value
                for position in stride(from: offset + width - 1, through: offset, by: -1) {
                    text[position] = UInt8(ascii: "0") + UInt8(value % 10)
                    value /= 10
                }
            }
            put(year, 4, at: 0)
            put(parts.tm_mon + 1, 2, at: 5)
            put(parts.tm_mday, 2, at: 8)
            put(parts.tm_hour, 2, at: 11)
            put(parts.tm_min, 2, at: 14)
            put(parts.tm_sec, 2, at: 17)
            (text[4], text[7], text[10]) = (UInt8(ascii: "-"), UInt8(ascii: "-"), UInt8(ascii: " "))
            (text[13], text[16]) = (UInt8(ascii: ":"), UInt8(ascii: ":"))
            return 19
        }
    }
}

/// The app's data manager: the store every feature keeps its data in — an embedded SQLite
/// file by default, or a PostgreSQL server that several hosts share.
///
/// The host owns the one store and puts this service in `AppDependency` under
/// `Services.data`. Features bring their own versioned migrations and run their multi-step
/// writes through `write`, so a failure or a kill leaves nothing half-written. Every failure
/// (locked, read-only, not a database) comes out as a one-line `CoordError.database`.
@MainActor
public protocol DataManaging: AnyObject {
    /// The database file, or the server and database (never a password), for messages and
    /// `deps`.
    var location: String { get }
    /// Which server runs the SQL.
    var backend: SQLBackend { get }
    /// Applies the feature's migrations that this database has not seen yet.
    func migrate(feature: String, _ migrations: [Migration]) throws
    /// Runs `body` on a consistent snapshot:
    ///
    ///     let ids = try data.read { db in
    ///         try db.rows("SELECT product_id FROM wishlist_items WHERE user_id = ?", user.id).map { $0.int("product_id") }
    ///     }
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// Runs `body` in one transaction that sees no other writer's half-done work: committed
    /// when it returns, rolled back when it throws. On PostgreSQL it runs at SERIALIZABLE and
    /// `body` may run again (a bounded number of times) when the server reports a
    /// serialization failure or a deadlock, so it must not act outside the database.
    ///
    ///     try data.write { db in
    ///         try db.execute("INSERT INTO wishlist_items (user_id, product_id) VALUES (?, ?) ON CONFLICT DO NOTHING", user.id, id)
    ///     }
    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// `db` — a connection another feature lent this one inside its transaction (a service
    /// method that takes `in db:`) — as this feature's own: what runs on the result is checked
    /// against what this feature may reach, not against what the lender may. A service
    /// method of feature A called by feature B inside B's transaction adopts B's connection
    /// before touching A's tables; without it, B would need a grant for A's tables.
    func adopt(_ db: any SQLDatabase) -> any SQLDatabase
    /// `["ok"]` for a sound store (SQLite's `PRAGMA integrity_check`; on PostgreSQL, that
    /// the server answers).
    func integrityCheck() throws -> [String]
}

extension DataManaging {
    /// A store that scopes nothing runs every connection as it is.
    public func adopt(_ db: any SQLDatabase) -> any SQLDatabase { db }
}
