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
        var line = line
        // A word is gathered in scratch space as long as the line (no word is longer), on the
        // stack for a line of a few hundred bytes.
        return try line.withUTF8 { bytes in
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: max(bytes.count, 1)) { split(bytes, $0) }
        }.get()
    }

    // Byte by byte over the UTF-8: every character with a meaning here is ASCII, and no byte of
    // a longer scalar is (they are all 0x80 or more), so a quote followed by a combining mark is
    // still a quote and the word splits as it reads — the same words as scalar by scalar, for a
    // quarter of the cost of appending each scalar to a `String.UnicodeScalarView` (4,500
    // instructions for `cart add 3`, 3.6 % of a batch script). An escaped scalar of several
    // bytes is taken whole: its first byte is escaped, and the rest are never special. (A
    // `Result`, not a typed throw: the closures it runs in rethrow untyped errors.)
    private static func split(_ bytes: UnsafeBufferPointer<UInt8>, _ scratch: UnsafeMutableBufferPointer<UInt8>) -> Result<[String], UnterminatedQuote> {
        let space = UInt8(ascii: " "), tab = UInt8(ascii: "\t"), single = UInt8(ascii: "'"), double = UInt8(ascii: "\"")
        let backslash = UInt8(ascii: "\\"), hash = UInt8(ascii: "#")
        var words: [String] = []
        words.reserveCapacity(4)
        var length = 0
        var inWord = false
        var quote: UInt8 = 0
        var escaped = false
        func keep(_ byte: UInt8) {
            scratch[length] = byte
            length += 1
        }
        func endWord() {
            words.append(String(decoding: UnsafeBufferPointer(rebasing: scratch[..<length]), as: UTF8.self))
            length = 0
        }
        for byte in bytes {
            if escaped {
                keep(byte)
                escaped = false
                continue
            }
            switch quote {
            case single:
                if byte == single { quote = 0 } else { keep(byte) }
            case double:
                if byte == double { quote = 0 } else if byte == backslash { escaped = true } else { keep(byte) }
            default:
                if byte == single || byte == double {
                    quote = byte
                    inWord = true
                } else if byte == backslash {
                    escaped = true
                    inWord = true
                } else if byte == hash, !inWord {
                    return .success(words)
                } else if byte == space || byte == tab {
                    if inWord { endWord() }
                    inWord = false
                } else {
                    keep(byte)
                    inWord = true
                }
            }
        }
        if quote != 0 || escaped { return .failure(UnterminatedQuote()) }
        if inWord { endWord() }
        return .success(words)
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
