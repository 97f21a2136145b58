/// PostgreSQL and SQLite read most SQL alike, but not all of it: where a string literal, a
/// quoted name or a comment ends can differ. A plugin's statement is checked by SQLite's
/// compiler (`StatementChecker`) and then run by PostgreSQL, so a text that SQLite reads as one
/// harmless string and PostgreSQL as code (`E'\''` escapes, `$$` quoting, nested comments,
/// `[…]` names that PostgreSQL reads as an array slice) would pass the check and do something
/// else. On PostgreSQL such text is refused before it is checked: what the check reads is what
/// the server runs.
///
/// Scanned once, byte by byte, outside string literals, quoted names and comments, which both
/// read the same way (`'…''…'`, `"…""…"`, `-- …`, `/* … */` without a nested `/*`); the
/// connection keeps `standard_conforming_strings` on, so a backslash in an ordinary literal is
/// a backslash to both.
enum DialectCheck {
    /// What in `sql` PostgreSQL would read differently from SQLite, or nil when nothing does.
    static func postgresDifference(_ sql: String) -> String? {
        let bytes = Array(sql.utf8)
        var index = 0
        func at(_ offset: Int) -> UInt8 { index + offset < bytes.count && index + offset >= 0 ? bytes[index + offset] : 0 }
        func isNamePart(_ byte: UInt8) -> Bool {
            (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A) || byte == 0x5F || byte == 0x24 || byte >= 0x80
        }
        /// Skips a quoted run that ends at `quote` (a doubled quote stays inside).
        func skipQuoted(_ quote: UInt8) {
            index += 1
            while index < bytes.count {
                if bytes[index] == quote {
                    if at(1) == quote { index += 2; continue }
                    index += 1
                    return
                }
                index += 1
            }
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"):
                // A prefix letter right before the quote: E'…' (backslash escapes) or U&'…'.
                let before = at(-1)
                if (before == UInt8(ascii: "E") || before == UInt8(ascii: "e")), !isNamePart(at(-2)) {
                    return "an E'…' string (PostgreSQL reads backslash escapes in it)"
                }
                if before == UInt8(ascii: "&") { return "a U&'…' string" }
                skipQuoted(byte)
            case UInt8(ascii: "\""):
                if at(-1) == UInt8(ascii: "&") { return "a U&\"…\" name" }
                skipQuoted(byte)
            case UInt8(ascii: "-") where at(1) == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != 0x0A { index += 1 }
            case UInt8(ascii: "/") where at(1) == UInt8(ascii: "*"):
                index += 2
                while index < bytes.count, !(bytes[index] == UInt8(ascii: "*") && at(1) == UInt8(ascii: "/")) {
                    if bytes[index] == UInt8(ascii: "/"), at(1) == UInt8(ascii: "*") { return "a nested /* comment (PostgreSQL nests them, SQLite does not)" }
                    index += 1
                }
                index += 2
            case UInt8(ascii: "$"):
                // $1, $2: parameters. Inside a name (a$b) it is part of the name.
                if isNamePart(at(-1)) || (at(1) >= 0x30 && at(1) <= 0x39) {
                    index += 1
                } else {
                    return "$-quoting (a $$…$$ or $tag$…$tag$ string)"
                }
            case UInt8(ascii: "["), UInt8(ascii: "]"):
                return "[ ] (SQLite reads a name in them, PostgreSQL an array subscript)"
            case UInt8(ascii: "`"):
                return "a `…` name (PostgreSQL has none)"
            default:
                index += 1
            }
        }
        return nil
    }
}
