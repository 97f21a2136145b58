import Foundation

/// One parser that takes outside bytes, and what must hold for any input: not only "no
/// crash", but the round trip (what was accepted, printed again, reads back the same) and the
/// one-line error (what was refused says why on one line).
///
/// The same targets run three ways: under libFuzzer (`./fuzz`, the `CoordFuzzer` executable
/// built with `-sanitize=fuzzer,address`), over the committed corpus in `./test` (a smoke:
/// every seed and every input that once failed), and from a test on one input.
public struct FuzzTarget: Sendable {
    public let name: String
    /// What it parses, for `./fuzz --list`.
    public let summary: String
    /// Runs one input; nil when everything held, else what did not.
    public let run: @Sendable ([UInt8]) -> String?

    public init(_ name: String, _ summary: String, run: @escaping @Sendable ([UInt8]) -> String?) {
        self.name = name
        self.summary = summary
        self.run = run
    }

    /// Every target, by name.
    public static let all: [FuzzTarget] = ProtocolTargets.all + ShellTargets.all + FileTargets.all

    public static func named(_ name: String) -> FuzzTarget? {
        all.first { $0.name == name }
    }

    /// One line per target, its name and what it parses: `./fuzz --list`, and the corpus
    /// runner's usage.
    public static var listing: String {
        all.map { "  " + $0.name.padding(toLength: 10, withPad: " ", startingAt: 0) + $0.summary }.joined(separator: "\n")
    }
}

/// Checks for the targets: each returns the broken rule, or nil.
enum Rule {
    /// A refusal's message: one line, not empty.
    static func oneLine(_ message: String, _ what: String) -> String? {
        if message.isEmpty { return "\(what): an empty error message" }
        if message.contains(where: \.isNewline) { return "\(what): an error message with a line break: \(message.debugDescription)" }
        return nil
    }

    static func same<T: Equatable>(_ first: T, _ second: T, _ what: String) -> String? {
        first == second ? nil : "\(what): \(String(describing: first).debugDescription) became \(String(describing: second).debugDescription)"
    }
}

extension Array where Element == UInt8 {
    /// The input as text, as a person or a file would give it (invalid UTF-8 repaired, as
    /// `String(decoding:)` does everywhere coordsh reads text).
    var text: String { String(decoding: self, as: UTF8.self) }
}
