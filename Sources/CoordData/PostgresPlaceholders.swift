/// The SDK's placeholders (`?`, or `?1`, `?2` … to use a value twice) as PostgreSQL's `$n`.
///
/// Plugins write one SQL for both backends; only the placeholders differ. A `?` inside a
/// string literal, a quoted name, a dollar-quoted body or a comment is text, not a
/// placeholder, and stays as it is.
enum PostgresPlaceholders {
    struct Mixed: Error {}

    /// `sql` with its placeholders numbered, and how many values it takes.
    static func translate(_ sql: String) throws(Mixed) -> (sql: String, count: Int) {
        let scalars = Array(sql.unicodeScalars)
        var out = String.UnicodeScalarView()
        var index = 0, next = 0, highest = 0
        var sawNumbered = false, sawBare = false
        func copy(until end: Int) {
            out.append(contentsOf: scalars[index..<min(end, scalars.count)])
            index = min(end, scalars.count)
        }
        func find(_ needle: [Unicode.Scalar], from start: Int) -> Int? {
            guard !needle.isEmpty, start <= scalars.count - needle.count else { return nil }
            for i in start...(scalars.count - needle.count) where Array(scalars[i..<(i + needle.count)]) == needle { return i }
            return nil
        }
        while index < scalars.count {
            let c = scalars[index]
            switch c {
            case "'", "\"":
                // A quote doubled inside is the quote itself; the literal ends at a lone one.
                var end = index + 1
                while end < scalars.count {
                    if scalars[end] == c {
                        if end + 1 < scalars.count, scalars[end + 1] == c { end += 2; continue }
                        break
                    }
                    end += 1
                }
                copy(until: end + 1)
            case "-" where index + 1 < scalars.count && scalars[index + 1] == "-":
                copy(until: (scalars[index...].firstIndex(of: "\n") ?? scalars.count) + 1)
            case "/" where index + 1 < scalars.count && scalars[index + 1] == "*":
                copy(until: (find(["*", "/"], from: index + 2) ?? scalars.count) + 2)
            case "$":
                // A dollar-quote tag ($$ or $name$) opens a body that runs to the same tag.
                var end = index + 1
                while end < scalars.count, scalars[end].properties.isAlphabetic || scalars[end] == "_" { end += 1 }
                if end < scalars.count, scalars[end] == "$", !(index > 0 && isWordScalar(scalars[index - 1])) {
                    let tag = Array(scalars[index...end])
                    copy(until: (find(tag, from: end + 1).map { $0 + tag.count }) ?? scalars.count)
                } else {
                    copy(until: index + 1)
                }
            case "?":
                var end = index + 1
                var number = 0
                while end < scalars.count, ("0"..."9").contains(scalars[end]), number < 100_000 {
                    number = number * 10 + Int(scalars[end].value - 48)
                    end += 1
                }
                if end > index + 1 {
                    sawNumbered = true
                    highest = max(highest, number)
                    out.append(contentsOf: "$\(number)".unicodeScalars)
                } else {
                    sawBare = true
                    next += 1
                    out.append(contentsOf: "$\(next)".unicodeScalars)
                }
                index = end
            default:
                out.append(c)
                index += 1
            }
        }
        if sawNumbered && sawBare { throw Mixed() }
        return (String(out), sawNumbered ? highest : next)
    }

    private static func isWordScalar(_ s: Unicode.Scalar) -> Bool {
        s.properties.isAlphabetic || s.properties.numericType != nil || s == "_"
    }
}
