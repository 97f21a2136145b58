@_spi(Host) import CoordSDK
import Testing

/// How a command line splits into words — what the shell runs and how a route typed as one
/// value reads back — for the cases a person types, in any script.
@Suite("Words of a command line")
struct WordsTests {
    @Test("spaces and tabs separate; quotes and escapes keep; a # starting a word ends the line", arguments: [
        ("cart add 3", ["cart", "add", "3"]),
        ("  cart\tadd   3  ", ["cart", "add", "3"]),
        ("content search 'red shoes'", ["content", "search", "red shoes"]),
        ("say \"a \\\"b\\\" \\\\ c\"", ["say", "a \"b\" \\ c"]),
        ("say 'it'\\''s'", ["say", "it's"]),
        ("a\\ b c", ["a b", "c"]),
        ("say '' \"\"", ["say", "", ""]),
        ("echo a#b # a comment", ["echo", "a#b"]),
        ("# only a comment", []),
        ("echo '#' \"#\" \\#", ["echo", "#", "#", "#"]),
        ("", []),
    ])
    func splits(line: String, words: [String]) throws {
        #expect(try Words.split(line) == words)
    }

    @Test("letters of any script are kept as typed, a quote or space followed by a combining mark still quotes or separates, an escaped letter of several bytes is kept whole")
    func anyScript() throws {
        #expect(try Words.split("content search 日本 Grüße") == ["content", "search", "日本", "Grüße"])
        // U+0301 after the quote: one Character with it, yet the quote still opens.
        #expect(try Words.split("say '\u{301}x y'") == ["say", "\u{301}x y"])
        #expect(try Words.split("a \u{301}b") == ["a", "\u{301}b"])
        #expect(try Words.split("say \\é\\😀 \"\\é\"") == ["say", "é😀", "é"])
    }

    @Test("a quote left open or a backslash at the end is an error", arguments: ["say 'open", "say \"open", "say end\\", "say \"end\\"])
    func unterminated(line: String) {
        #expect(throws: Words.UnterminatedQuote.self) { try Words.split(line) }
    }

    @Test("a quoted word reads back as itself, whatever it holds")
    func quoteReadsBack() throws {
        for word in ["", "plain", "two words", "it's", "a\"b\\c", "#not a comment", "日本 語", "'\u{301}", "tab\there"] {
            #expect(try Words.split("x " + Words.quote(word)) == ["x", word])
        }
    }
}
