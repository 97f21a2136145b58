/// The name of a message, such as `cartAdd` or `globalDisplay`, interned to an integer.
///
/// A message name is `<prefix><Verb>`: the lower-case prefix names the feature that owns the
/// message (`global` is the app itself). The name is interned once, when a plugin registers
/// or the shell parses a command, so that dispatch compares and indexes by `id` and never
/// hashes a string per hop. The prefix is interned at the same time, so the root can route a
/// feature message with one array lookup.
public struct MessageName: Hashable, Sendable, CustomStringConvertible {
    /// Dense process-wide id; usable as an array index.
    public let id: Int32
    /// The interned feature prefix of this name.
    public let prefix: FeaturePrefix

    static let table = InternTable()

    /// Interns `string`, which must look like `prefixVerb` (a lower-case prefix followed by an
    /// upper-case letter). Names without a verb are still interned; their verb is empty.
    public init(_ string: String) {
        self.init(interning: string, prefix: MessageName.split(string).prefix)
    }

    /// Builds `cartAdd` from the prefix `cart` and the verb `add`.
    public init(prefix: String, verb: String) {
        // An ASCII prefix without capitals and an ASCII verb that begins with a small letter
        // (every feature's messages are named so) are joined byte by byte — the first letter
        // made a capital by its code — and split where they were joined: no search for the
        // first capital by Unicode's case properties, no `uppercased()` of a one-letter
        // string (with 100 plugins, those were 4 % and then 5 % of registering them).
        if let first = verb.utf8.first, first &- UInt8(ascii: "a") < 26, !verb.utf8.contains(where: { $0 >= 0x80 }),
            !prefix.utf8.contains(where: { $0 >= 0x80 || $0 &- UInt8(ascii: "A") < 26 }) {
            var joined = prefix
            joined.unicodeScalars.append(Unicode.Scalar(first - 0x20))
            // `append(contentsOf:)` of a Substring, not `+=`: the operator is the generic
            // one for any sequence of characters, which runs unspecialised and whose first call
            // looks `Substring: Collection` up in every image's conformance records.
            joined.append(contentsOf: Substring(verb.utf8.dropFirst()))
            self.init(interning: joined, prefix: prefix)
            return
        }
        let string = prefix + verb.prefix(1).uppercased() + verb.dropFirst()
        self.init(interning: string, prefix: MessageName.split(string).prefix)
    }

    private init(interning string: String, prefix: String) {
        id = MessageName.table.intern(string)
        self.prefix = FeaturePrefix(prefix)
    }

    /// The full name, e.g. `cartAdd`.
    public var string: String { MessageName.table.string(for: id) }

    /// The verb as a user types it, e.g. `add` for `cartAdd`.
    public var verb: String { MessageName.split(string).verb }

    public var description: String { string }

    public static func == (lhs: MessageName, rhs: MessageName) -> Bool { lhs.id == rhs.id }
    public func hash(into hasher: inout Hasher) { hasher.combine(id) }

    static func split(_ string: String) -> (prefix: String, verb: String) {
        guard let index = string.firstIndex(where: { $0.isUppercase }) else { return (string, "") }
        let verb = string[index...]
        // `String(…)` of the rest, not `+ verb.dropFirst()`: adding a Substring to a String
        // runs the standard library's unspecialised `append(contentsOf:)`, whose first call
        // looks `Substring: Collection` up in every image's conformance records (≈ 350,000
        // instructions of each start; `globalDisplay` is split while the app is made).
        return (String(string[..<index]), verb.prefix(1).lowercased() + String(verb.dropFirst()))
    }
}

/// A feature's message prefix (`cart`, `account`, …), interned. `global` is always id 0.
public struct FeaturePrefix: Hashable, Sendable, CustomStringConvertible {
    /// The interned number (0 for `global`), valid in this process only.
    public let id: Int32

    static let table = InternTable(preloaded: ["global"])

    /// The prefix the app itself handles (`globalDisplay`, …).
    public static let global = FeaturePrefix("global")

    /// The prefix `string` (`"cart"`), the same value wherever it is made.
    public init(_ string: String) { id = FeaturePrefix.table.intern(string) }

    /// The prefix as written.
    public var string: String { FeaturePrefix.table.string(for: id) }
    public var description: String { string }
}
