import ArgumentParser
@testable import CoordCLI
import CoordTerminal
import Testing

/// The common command lines read without swift-argument-parser (`CommonLine`, for start-up
/// time) mean exactly what the parser makes of them: every line of up to four words from a
/// vocabulary of options, values and traps (a value that looks like an option, `--db=x`, an
/// empty value, `--help`) is read both ways, and whenever the fast reading takes a line the
/// parser accepts it too and gives the same options.
@Suite("The common command lines, read without the parser")
struct CommonLineTests {
    static let vocabulary = [
        "-c", "-f", "--config", "--db", "--plugin-dir", "--json", "--keep-going", "--strict-plugins", "-1", "--supervised", "--single-process",
        "echo ok", "", "-x", "--db=x", "--help", "plain",
    ]

    static func lines(upTo length: Int) -> [[String]] {
        var all: [[String]] = [[]]
        var last: [[String]] = [[]]
        for _ in 0..<length {
            last = last.flatMap { line in vocabulary.map { line + [$0] } }
            all += last
        }
        return all
    }

    @Test("every line the fast reading takes, the parser reads the same; the usual script lines are taken")
    func sameAsTheParser() throws {
        var taken = 0
        for line in Self.lines(upTo: 4) {
            guard let fast = CommonLine.read(line) else { continue }
            taken += 1
            let parsed = try #require(try? CoordshCommand.parseAsRoot(line) as? CoordshCommand, "the parser refuses \(line), the fast reading took it")
            #expect(parsed.options == fast.options, "\(line)")
            #expect(parsed.supervised == fast.supervised && parsed.singleProcess == fast.singleProcess, "\(line)")
        }
        #expect(taken > 1000, "the vocabulary reaches the fast reading: \(taken) lines")
        for line in [
            ["-c", "echo ok"], ["-f", "script.txt", "--db", "shop.sqlite"], ["--config", "c.toml", "-c", "cart add 3", "-c", "cart show", "--json"], [],
            ["--supervised", "--config", "c.toml", "-c", "echo ok"], ["-1", "-f", "script.txt"], ["--single-process", "--strict-plugins"],
        ] {
            #expect(CommonLine.read(line) != nil, "\(line)")
        }
        for line in [
            ["-c", "-x"], ["--db=x", "-c", "a"], ["-c", "a", "-f", "b"], ["--db", "a", "--db", "b"], ["--help"],
            ["--supervised", "--single-process"], ["-1", "--supervised", "-c", "a"], ["-1", "--keep-going", "-c", "a"], ["--json", "--json"],
        ] {
            #expect(CommonLine.read(line) == nil, "\(line)")
        }
    }
}
