import Foundation

// Swift's `String` equality is Unicode's canonical equivalence: `café` with `é` as one scalar
// and as `e` and a combining accent are one string to Swift, and one key of a `Set` or a
// `Dictionary` of strings. To SQLite they are two texts — two table names, two statements.
// What the statement check keeps by name or by text, it keeps by the bytes SQLite reads, or
// a plugin's own table spelled one way would pass for another feature's spelled the other.

/// Whether two texts are the same bytes.
func sameBytes(_ a: String, _ b: String) -> Bool {
    var (x, y) = (a, b)
    return x.withUTF8 { x in
        y.withUTF8 { y in
            guard x.count == y.count, let xb = x.baseAddress, let yb = y.baseAddress else { return x.count == y.count }
            // One plugin's literal is one storage: the same bytes at the same place.
            return xb == yb || memcmp(xb, yb, x.count) == 0
        }
    }
}

/// A table's name as SQLite names it in the schema and its authorizer reports it: its bytes.
struct TableName: Hashable, CustomStringConvertible {
    let text: String
    init(_ text: String) { self.text = text }

    static func == (a: TableName, b: TableName) -> Bool { sameBytes(a.text, b.text) }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }

    var description: String { text }
}

/// What a verdict is kept under: the feature and its statement's text as SQLite reads it, byte
/// for byte. `String` equality is Unicode's canonical equivalence, so texts that name two
/// tables to SQLite (`café` with one scalar and with two) would share a verdict — one let
/// through for a feature's own table would pass the other. Hashed on the text's length and its
/// ends, which tell the few statements a feature runs apart at half the cost of hashing it all.
struct VerdictKey: Hashable {
    let feature: String
    let sql: String

    static func == (a: VerdictKey, b: VerdictKey) -> Bool {
        guard a.feature == b.feature else { return false }
        return sameBytes(a.sql, b.sql)
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(feature)
        var sql = sql
        sql.withUTF8 { bytes in
            hasher.combine(bytes.count)
            hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.prefix(40))))
            if bytes.count > 40 {
                hasher.combine(bytes: UnsafeRawBufferPointer(UnsafeBufferPointer(rebasing: bytes.suffix(min(40, bytes.count - 40)))))
            }
        }
    }
}
