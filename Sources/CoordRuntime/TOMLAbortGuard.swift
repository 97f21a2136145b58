/// Refuses, in one line, the malformed TOML that makes toml++ (inside TOMLKit) abort the process
/// instead of reporting an error.
///
/// toml++ asserts what its parser expects at a few places, and a failed assertion aborts
/// coordsh, release builds included (`./fuzz config` found each): the first character of a
/// table name must be able to start a key (`[ ✗]`, `[+a]`), and a value inside an array must
/// not start with `}` (`dirs = [}`). These are refused here before the text reaches toml++.
///
/// A line starting with `[` is a header only where toml++ reads one: at the top level, not
/// inside a multi-line array or string (`offers = [\n  [+1, 2],\n]` is valid TOML). So the text
/// is followed as toml++ follows it — keys, values, strings of the four kinds, comments and
/// bracket depth — as far as it is valid; toml++ stops at the first error, so beyond a point
/// this scan cannot follow, every line starting with `[` is checked as a header, which can
/// refuse only a text toml++ would refuse anyway.
enum TOMLAbortGuard {
    static let badHeader = "a table name must start with a letter, a digit, '_', '-' or a quote"
    static let badCloser = "a bracket closed by the wrong kind ('[' by '}' or '{' by ']')"

    /// Throws `config PATH:LINE: …` for the first such place.
    static func check(_ text: String, path: String) throws(ConfigError) {
        var scan = Scan(Array(text.unicodeScalars))
        if scan.peek() == "\u{FEFF}" { scan.index += 1 }  // toml++ skips a byte-order mark
        while !scan.atEnd {
            if let (line, problem) = scan.topLevelLine() {
                throw ConfigError("config \(path):\(line): \(problem)")
            }
            if scan.lost { break }
        }
        guard scan.lost else { return }
        // Out of step with toml++ (the text is not valid TOML here): check every remaining line
        // as a header, and every closing bracket against the last one opened.
        var open: [Unicode.Scalar] = []
        while let c = scan.peek() {
            if c == "[" && scan.atLineStart && !scan.headerStartsWell() { throw ConfigError("config \(path):\(scan.line): \(badHeader)") }
            if c == "[" || c == "{" { open.append(c) }
            if c == "]" || c == "}", let last = open.popLast(), (last == "[") != (c == "]") {
                throw ConfigError("config \(path):\(scan.line): \(badCloser)")
            }
            scan.advance()
        }
    }

    /// A cursor over the text's scalars with the line it is on.
    private struct Scan {
        let scalars: [Unicode.Scalar]
        var index = 0
        var line = 1
        /// Set when the text stops being TOML this scan can follow.
        var lost = false

        init(_ scalars: [Unicode.Scalar]) { self.scalars = scalars }

        var atEnd: Bool { index >= scalars.count }
        func peek(_ offset: Int = 0) -> Unicode.Scalar? {
            index + offset < scalars.count ? scalars[index + offset] : nil
        }

        mutating func advance() {
            if scalars[index] == "\n" { line += 1 }
            index += 1
        }

        mutating func skipSpaces() {
            while let c = peek(), c == " " || c == "\t" { index += 1 }
        }

        /// To the start of the next line.
        mutating func skipLine() {
            while let c = peek() {
                advance()
                if c == "\n" { return }
            }
        }

        /// Whether only spaces and tabs stand between the cursor and the start of its line.
        var atLineStart: Bool {
            var at = index - 1
            while at >= 0, scalars[at] == " " || scalars[at] == "\t" { at -= 1 }
            return at < 0 || scalars[at] == "\n"
        }

        /// One line at the top level (with the lines its value continues on); the line and the
        /// problem of a place toml++ would abort at, or nil.
        mutating func topLevelLine() -> (Int, String)? {
            skipSpaces()
            guard let c = peek() else { return nil }
            switch c {
            case "\n", "\r", "#":
                skipLine()
            case "[":
                let headerLine = line
                guard headerStartsWell() else { return (headerLine, TOMLAbortGuard.badHeader) }
                skipHeader()
            default:
                if let badLine = keyValue() { return (badLine, TOMLAbortGuard.badCloser) }
            }
            return nil
        }

        /// Whether the header at the cursor (`[` or `[[`) names a table as toml++ can parse it:
        /// its name starts with a bare-key character or a quote. `]` and the end are toml++'s
        /// own one-line errors.
        func headerStartsWell() -> Bool {
            var at = index + 1
            func spaces() { while at < scalars.count, scalars[at] == " " || scalars[at] == "\t" { at += 1 } }
            spaces()
            if at < scalars.count, scalars[at] == "[" { at += 1; spaces() }
            guard at < scalars.count else { return true }
            let first = scalars[at]
            return Self.isBareKey(first) || first == "\"" || first == "'" || first == "]"
        }

        static func isBareKey(_ c: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(c) || ("A"..."Z").contains(c) || ("0"..."9").contains(c) || c == "_" || c == "-"
        }

        /// A header line: its name (quoted parts may hold brackets), then a comment at most.
        mutating func skipHeader() {
            while let c = peek(), c != "\n" {
                if c == "\"" || c == "'" {
                    guard singleLineString() else { return }
                } else if c == "#" {
                    break
                } else {
                    index += 1
                }
            }
            skipLine()
        }

        /// `key = value`, the value perhaps running over several lines; the line of a bracket
        /// closed by the wrong kind, or nil.
        mutating func keyValue() -> Int? {
            while let c = peek(), c != "=" {
                if c == "\n" { lost = true; return nil }
                if c == "\"" || c == "'" {
                    guard singleLineString() else { return nil }
                } else {
                    index += 1
                }
            }
            guard !atEnd else { return nil }
            index += 1  // '='
            return value()
        }

        /// A value up to the end of its last line: arrays and inline tables nest, strings and
        /// comments hide brackets. The line of a bracket closed by the wrong kind, or nil.
        mutating func value() -> Int? {
            var open: [Unicode.Scalar] = []
            while let c = peek() {
                switch c {
                case "[", "{":
                    open.append(c)
                    index += 1
                case "]", "}":
                    guard let last = open.popLast() else { lost = true; return nil }
                    if (last == "[") != (c == "]") { return line }
                    index += 1
                case "\"", "'":
                    if peek(1) == c && peek(2) == c {
                        guard multiLineString(c) else { return nil }
                    } else {
                        guard singleLineString() else { return nil }
                    }
                case "#":
                    while let n = peek(), n != "\n" { index += 1 }
                case "\n":
                    advance()
                    if open.isEmpty { return nil }
                default:
                    index += 1
                }
            }
            return nil
        }

        /// `"…"` (with escapes) or `'…'` on one line; false (and lost) when it does not end there.
        mutating func singleLineString() -> Bool {
            guard let quote = peek() else { return false }
            index += 1
            while let c = peek() {
                if c == "\n" { break }
                index += 1
                if c == "\\" && quote == "\"" {
                    if peek() == "\n" { break }
                    index += 1
                } else if c == quote {
                    return true
                }
            }
            lost = true
            return false
        }

        /// `"""…"""` (with escapes) or `'''…'''`: the closing three may be followed by one or two
        /// more quotes that belong to the string. False (and lost) when it never ends.
        mutating func multiLineString(_ quote: Unicode.Scalar) -> Bool {
            index += 3
            while let c = peek() {
                if c == "\\" && quote == "\"" {
                    advance()
                    if !atEnd { advance() }
                } else if c == quote && peek(1) == quote && peek(2) == quote {
                    index += 3
                    if peek() == quote { index += 1 }
                    if peek() == quote { index += 1 }
                    return true
                } else {
                    advance()
                }
            }
            lost = true
            return false
        }
    }
}
