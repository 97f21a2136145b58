/// A command line split into words the way a POSIX shell does for the simple cases users
/// type: whitespace separates, single quotes keep everything, double quotes keep spaces and
/// honour `\"` and `\\`, a backslash outside quotes escapes the next character, and an
/// unquoted `#` at the start of a word begins a comment that runs to the end of the line.
///
/// In the SDK rather than the shell because a route typed as one argument value
/// (`globalDisplay page="content/search q='red shoe'"`) must split exactly as the shell splits
/// `open`'s words, or a route printed by `RouteRequest.description` would not read back.
@_spi(Host) public enum Words {
    /// The line ends inside a quote or after a lone backslash.
    public struct UnterminatedQuote: Error {}

    /// The words of `line`, quotes and escapes removed; nothing after an unquoted `#` that
    /// starts a word.
    public static func split(_ line: String) throws(UnterminatedQuote) -> [String] {
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

    /// `word` in single quotes (a `'` inside written `'\''`), so that `split` gives it back
    /// unchanged whatever it holds: how the shell replays a value it did not type itself.
    public static func quote(_ word: String) -> String {
        // Scalar by scalar: `replacingOccurrences` compares characters, and a quote followed
        // by a combining mark is one character that is not a quote.
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in word.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: "'\\''".unicodeScalars) } else { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }
}
