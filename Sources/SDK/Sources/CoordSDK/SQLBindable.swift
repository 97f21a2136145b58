/// A Swift value that binds as one SQL value, so that a statement's values are written as
/// they are: `db.execute("… WHERE user_id = ? AND product_id = ?", user.id, productID)`, an
/// `Int64` user id and an `Int` argument alike, with no `SQLValue(…)` around each.
///
/// `Int`, `Int64`, `Int32`, `Double`, `Bool` (as 0 or 1, the same on both backends), `String`,
/// bytes (`[UInt8]`), `SQLValue` itself and an optional of any of them (nil is `NULL`) conform.
/// Conform a type of your own (an id wrapper) by saying which `SQLValue` it is.
public protocol SQLBindable {
    /// The value as bound.
    var sqlValue: SQLValue { get }
}

extension SQLValue: SQLBindable {
    /// Itself.
    public var sqlValue: SQLValue { self }
}

extension Int: SQLBindable {
    /// An SQL integer (64 bits on both backends).
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLBindable {
    /// An SQL integer: row ids, money in minor units.
    public var sqlValue: SQLValue { .integer(self) }
}

extension Int32: SQLBindable {
    /// An SQL integer.
    public var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Double: SQLBindable {
    /// An SQL real.
    public var sqlValue: SQLValue { .real(self) }
}

extension Bool: SQLBindable {
    /// 1 or 0: SQLite has no boolean type, and an `INTEGER` column reads the same on both.
    public var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension String: SQLBindable {
    /// SQL text. Always bind values: a value spliced into SQL text is an injection.
    public var sqlValue: SQLValue { .text(self) }
}

extension Array: SQLBindable where Element == UInt8 {
    /// `BLOB` on SQLite, `BYTEA` on PostgreSQL.
    public var sqlValue: SQLValue { .blob(self) }
}

extension Optional: SQLBindable where Wrapped: SQLBindable {
    /// The value, or `NULL` for nil.
    public var sqlValue: SQLValue { self?.sqlValue ?? .null }
}

extension SQLDatabase {
    /// Runs one statement with its values given as they are (see `SQLBindable`):
    /// `try db.execute("DELETE FROM notes WHERE id = ?", id)`.
    public func execute(_ sql: String, _ values: any SQLBindable...) throws {
        try execute(sql, values.map(\.sqlValue))
    }

    /// Every row of a query, its values given as they are:
    /// `try db.rows("SELECT text FROM notes WHERE owner = ?", user.id).map { $0.string("text") }`.
    public func rows(_ sql: String, _ values: any SQLBindable...) throws -> [SQLRow] {
        try rows(sql, values.map(\.sqlValue))
    }

    /// The first row, or nil, its values given as they are.
    public func row(_ sql: String, _ values: any SQLBindable...) throws -> SQLRow? {
        try rows(sql, values.map(\.sqlValue)).first
    }

    /// The first column of the first row as an integer, or nil: `try db.int("SELECT count(*) FROM notes WHERE owner = ?", user.id)`.
    public func int(_ sql: String, _ values: any SQLBindable...) throws -> Int? {
        try row(sql, values.map(\.sqlValue))?.values.first?.int
    }
}
