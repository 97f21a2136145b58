/// One SQLite value, as plugins bind and read them.
///
/// The SDK does not expose GRDB's types: the host links GRDB once, and a plugin that used its
/// types would link a second copy (the same trap as a statically linked shared type). Plugins
/// write SQL against this small surface instead, and the host runs it through GRDB.
public enum SQLValue: Sendable, Equatable, CustomStringConvertible {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])

    public init(_ value: Int) { self = .integer(Int64(value)) }
    public init(_ value: Int64) { self = .integer(value) }
    public init(_ value: String) { self = .text(value) }
    public init(_ value: String?) { self = value.map(SQLValue.text) ?? .null }
    public init(_ value: [UInt8]) { self = .blob(value) }

    public var int: Int? {
        switch self {
        case .integer(let v): Int(v)
        case .real(let v): Int(exactly: v)
        default: nil
        }
    }
    public var int64: Int64? { if case .integer(let v) = self { v } else { nil } }
    public var string: String? { if case .text(let v) = self { v } else { nil } }
    public var bytes: [UInt8]? {
        switch self {
        case .blob(let v): v
        case .text(let v): Array(v.utf8)
        default: nil
        }
    }
    public var isNull: Bool { self == .null }

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
    public init(integerLiteral value: Int64) { self = .integer(value) }
    public init(stringLiteral value: String) { self = .text(value) }
    public init(nilLiteral: ()) { self = .null }
}

/// One result row: values by column name.
public struct SQLRow: Sendable {
    public let columns: [String]
    public let values: [SQLValue]

    public init(columns: [String], values: [SQLValue]) {
        self.columns = columns
        self.values = values
    }

    /// The value of `column`, or `.null` when there is no such column.
    public subscript(_ column: String) -> SQLValue {
        columns.firstIndex(of: column).map { values[$0] } ?? .null
    }

    public func int(_ column: String) -> Int { self[column].int ?? 0 }
    public func int64(_ column: String) -> Int64 { self[column].int64 ?? 0 }
    public func string(_ column: String) -> String { self[column].string ?? "" }
    public func optionalString(_ column: String) -> String? { self[column].string }
}

/// A database connection lent to a closure by `DataManaging.read` or `write`. It is valid
/// only inside that closure; inside `write` everything runs in one transaction.
public protocol SQLDatabase: AnyObject {
    /// Runs one statement that returns no rows.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws
    /// Runs a query and returns every row.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow]
    /// The rowid of the last INSERT on this connection.
    var lastInsertedRowID: Int64 { get }
    /// How many rows the last INSERT, UPDATE or DELETE changed.
    var changes: Int { get }
}

extension SQLDatabase {
    public func execute(_ sql: String) throws { try execute(sql, []) }
    /// The first row, or nil.
    public func row(_ sql: String, _ arguments: [SQLValue] = []) throws -> SQLRow? { try rows(sql, arguments).first }
    /// The first column of the first row as an integer, or nil.
    public func int(_ sql: String, _ arguments: [SQLValue] = []) throws -> Int? { try row(sql, arguments)?.values.first?.int }
}

/// One versioned step of a feature's schema. Identifiers are scoped by feature (`cart.v1`)
/// and applied once, in order, each in its own transaction.
public struct Migration: Sendable {
    public let identifier: String
    public let apply: @Sendable (any SQLDatabase) throws -> Void

    public init(_ identifier: String, _ apply: @escaping @Sendable (any SQLDatabase) throws -> Void) {
        self.identifier = identifier
        self.apply = apply
    }

    /// A migration that runs SQL statements in order.
    public init(_ identifier: String, sql statements: [String]) {
        self.init(identifier) { db in for sql in statements { try db.execute(sql) } }
    }
}

/// The app's data manager: the embedded SQLite store every feature keeps its data in.
///
/// The host owns the one database file and puts this service in `AppDependency` under
/// `Services.data`. Features bring their own versioned migrations and run their multi-step
/// writes through `write`, so a failure or a kill leaves nothing half-written. Every failure
/// (locked, read-only, not a database) comes out as a one-line `CoordError.database`.
@MainActor
public protocol DataManaging: AnyObject {
    /// The database file, for messages and `deps`.
    var location: String { get }
    /// Applies the feature's migrations that this database has not seen yet.
    func migrate(feature: String, _ migrations: [Migration]) throws
    /// Runs `body` on a consistent snapshot.
    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// Runs `body` in one immediate transaction: committed when it returns, rolled back when
    /// it throws.
    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T
    /// `PRAGMA integrity_check`: `["ok"]` for a sound file.
    func integrityCheck() throws -> [String]
}
