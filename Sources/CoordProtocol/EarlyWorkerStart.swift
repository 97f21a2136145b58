/// What a supervised front tells the app process the launcher started for it
/// (`coordsh-server worker --early`, see Sources/coordsh/launcher.c): the environment and the
/// worker arguments it would have started a worker with, the first thing on the control
/// channel. The worker reads it before anything else (before its first scene's descriptor
/// crosses the same channel), so it is length-prefixed and read to its last byte, never past.
///
/// Layout: the body's length (4 bytes, big-endian, at most `maxBytes`), then the body:
/// NUL-terminated words — `NAME=VALUE` for each variable, an empty word, then the arguments.
public struct EarlyWorkerStart: Equatable, Sendable {
    /// Variables the worker sets before it starts: the same ones a spawned worker's
    /// environment gets (the running file, the front's `--db`, the front's history).
    public var environment: [(name: String, value: String)]
    /// The worker's arguments after `worker`, as a spawned worker's command line has them.
    public var arguments: [String]
    /// The largest body a front sends; a longer one is refused before it is read.
    public static let maxBytes = 1 << 20

    public init(environment: [(name: String, value: String)], arguments: [String]) {
        self.environment = environment
        self.arguments = arguments
    }

    public static func == (lhs: EarlyWorkerStart, rhs: EarlyWorkerStart) -> Bool {
        lhs.arguments == rhs.arguments && lhs.environment.elementsEqual(rhs.environment) { $0.name == $1.name && $0.value == $1.value }
    }

    /// The message: length and body. Nil when a word holds a NUL (no C string can carry it),
    /// a name is empty or holds `=`, or the body would be longer than `maxBytes`.
    public func encoded() -> [UInt8]? {
        let words = environment.flatMap { [$0.name, $0.value] } + arguments
        guard words.allSatisfy({ !$0.utf8.contains(0) }), environment.allSatisfy({ !$0.name.isEmpty && !$0.name.utf8.contains(0x3D) }) else {
            return nil
        }
        var body: [UInt8] = []
        for (name, value) in environment {
            body += Array("\(name)=\(value)".utf8)
            body.append(0)
        }
        body.append(0)
        for argument in arguments {
            body += Array(argument.utf8)
            body.append(0)
        }
        guard body.count <= Self.maxBytes else { return nil }
        let count = UInt32(body.count)
        return [UInt8(count >> 24), UInt8(count >> 16 & 0xFF), UInt8(count >> 8 & 0xFF), UInt8(count & 0xFF)] + body
    }

    /// The body's length from the 4 bytes before it; nil when over `maxBytes`.
    public static func bodyLength(_ header: [UInt8]) -> Int? {
        guard header.count == 4 else { return nil }
        let count = header.reduce(0) { $0 << 8 | Int($1) }
        return count <= maxBytes ? count : nil
    }

    /// Reads a body; nil when it is not one `encoded` makes (no separator, a variable without
    /// `=` or with an empty name, a last word without its NUL, bytes that are not UTF-8).
    public init?(body: [UInt8]) {
        guard body.last == 0 else { return nil }
        var words: [String] = []
        for slice in body.dropLast().split(separator: 0, omittingEmptySubsequences: false) {
            guard let word = String(validating: slice, as: UTF8.self) else { return nil }
            words.append(word)
        }
        guard let separator = words.firstIndex(of: "") else { return nil }
        var environment: [(name: String, value: String)] = []
        for assignment in words[..<separator] {
            guard let equals = assignment.firstIndex(of: "="), equals != assignment.startIndex else { return nil }
            environment.append((String(assignment[..<equals]), String(assignment[assignment.index(after: equals)...])))
        }
        self.init(environment: environment, arguments: Array(words[(separator + 1)...]))
    }
}
