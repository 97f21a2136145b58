/// Splits a command line into words the way a POSIX shell does for the simple cases users
/// type: whitespace separates, single quotes keep everything, double quotes keep spaces and
/// honour `\"` and `\\`, a backslash outside quotes escapes the next character, and an
/// unquoted `#` at the start of a word begins a comment that runs to the end of the line.
package enum Words {
    package struct UnterminatedQuote: Error {}

    package static func split(_ line: String) throws(UnterminatedQuote) -> [String] {
        var words: [String] = []
        var current = String.UnicodeScalarView()
        var inWord = false
        var quote: Unicode.Scalar?
        var escaped = false
        // Scalar by scalar: as characters, a quote followed by a combining mark is one
        // character that is not a quote, and the word would not split as it reads.
        for ch in line.unicodeScalars {
            if escaped {
                current.append(ch)
                escaped = false
                continue
            }
            switch quote {
            case "'":
                if ch == "'" { quote = nil } else { current.append(ch) }
            case "\"":
                if ch == "\"" { quote = nil } else if ch == "\\" { escaped = true } else { current.append(ch) }
            default:
                if ch == "'" || ch == "\"" {
                    quote = ch
                    inWord = true
                } else if ch == "\\" {
                    escaped = true
                    inWord = true
                } else if ch == "#", !inWord {
                    return words
                } else if ch == " " || ch == "\t" {
                    if inWord { words.append(String(current)) }
                    current = String.UnicodeScalarView()
                    inWord = false
                } else {
                    current.append(ch)
                    inWord = true
                }
            }
        }
        if quote != nil || escaped { throw UnterminatedQuote() }
        if inWord { words.append(String(current)) }
        return words
    }
}
