/// The types a page parameter or a message argument can have.
///
/// Kept deliberately small so that every value can be typed at a prompt, put in a route URL,
/// completed, and printed as JSON without plugin code.
public enum ValueType: String, Sendable, CaseIterable, Codable {
    /// An integer (`Int`).
    case int
    /// Text (`String`; quote it at the prompt when it has spaces).
    case string
    /// `true`/`false` (also yes/no, 1/0, on/off at the prompt).
    case bool
    /// A finite number with a fraction (`Double`): `2.5`, `-0.75`, `1e3`.
    case double
    /// A page: `feature/page key=value …` (`RouteRequest`).
    case route

    /// Parses the text a user typed into a value of this type, or nil when it does not fit.
    public func parse(_ text: String) -> Value? {
        switch self {
        case .int: return Int(text).map(Value.int)
        case .string: return .string(text)
        case .bool:
            switch text.lowercased() {
            case "true", "yes", "1", "on": return .bool(true)
            case "false", "no", "0", "off": return .bool(false)
            default: return nil
            }
        case .route: return (try? RouteRequest.parse(text)).map { .route($0) }
        case .double:
            // Finite only: "nan" and "inf" are not amounts anyone types on purpose.
            guard let number = Double(text), number.isFinite else { return nil }
            return .double(number)
        }
    }
}

/// A typed value carried by a route parameter or a message argument.
public enum Value: Hashable, Sendable, CustomStringConvertible {
    /// An integer.
    case int(Int)
    /// Text.
    case string(String)
    /// A flag.
    case bool(Bool)
    /// A page to show, used by `globalDisplay(page:)`.
    case route(RouteRequest)
    /// A finite number with a fraction.
    case double(Double)

    /// The declared type this value has (what a parameter of that type accepts).
    public var type: ValueType {
        switch self {
        case .int: .int
        case .string: .string
        case .bool: .bool
        case .route: .route
        case .double: .double
        }
    }

    /// The value as a user would type it back.
    public var description: String {
        switch self {
        case .int(let value): String(value)
        case .string(let value): value
        case .bool(let value): String(value)
        case .route(let value): value.description
        case .double(let value): String(value)
        }
    }

    /// The integer, nil for a value of another type.
    public var intValue: Int? { if case .int(let v) = self { v } else { nil } }
    /// The string, nil for a value of another type.
    public var stringValue: String? { if case .string(let v) = self { v } else { nil } }
    /// The flag, nil for a value of another type.
    public var boolValue: Bool? { if case .bool(let v) = self { v } else { nil } }
    /// The number, nil for a value of another type.
    public var doubleValue: Double? { if case .double(let v) = self { v } else { nil } }
    /// The route, nil for a value of another type.
    public var routeValue: RouteRequest? { if case .route(let v) = self { v } else { nil } }
}

/// The declaration of one named, typed parameter (of a page) or argument (of a message).
///
/// Plugins declare these so that the shell can list, complete, parse and explain every page
/// and message without knowing the plugin's Swift types.
public struct Parameter: Sendable, Equatable, Codable {
    /// The name a command line may give as `name=value` or `--name value`, and the key the
    /// handler reads.
    public let name: String
    /// What the text must parse as; a value that does not is refused in one line before any
    /// handler runs.
    public let type: ValueType
    /// May be left out; the handler then reads nil.
    public let isOptional: Bool
    /// One line for `help`.
    public let summary: String
    /// A value that must not be kept: a command line carrying it never enters the history.
    public let isSecret: Bool

    /// `secret`: a card number or the like — see `isSecret`.
    public init(_ name: String, _ type: ValueType, optional: Bool = false, secret: Bool = false, summary: String = "") {
        self.name = name
        self.type = type
        self.isOptional = optional
        self.isSecret = secret
        self.summary = summary
    }

    /// `id:int`, `code:string?` — the compact form used by `pages` and help.
    public var signature: String { "\(name):\(type.rawValue)\(isOptional ? "?" : "")" }

    /// The names a stored manifest has always used.
    private enum CodingKeys: String, CodingKey {
        case name, type, summary
        case isOptional = "optional"
        case isSecret = "secret"
    }
}

/// Named, typed values after validation against a list of `Parameter`s.
public struct Arguments: Sendable, Equatable {
    /// In declaration order, so that printing is stable.
    public private(set) var values: [(name: String, value: Value)]

    /// Named values in declaration order, as a message's parameters list them.
    public init(_ values: [(String, Value)] = []) {
        self.values = values.map { (name: $0.0, value: $0.1) }
    }

    /// The value named `name`, nil when the message did not carry it (an optional parameter).
    public subscript(name: String) -> Value? {
        values.first(where: { $0.name == name })?.value
    }

    /// Sets or (with nil) removes the value named `name`, keeping the others in order.
    public mutating func set(_ name: String, _ value: Value?) {
        values.removeAll { $0.name == name }
        if let value { values.append((name, value)) }
    }

    /// The integer argument `name`, nil when absent (an optional one left out).
    public func int(_ name: String) -> Int? { self[name]?.intValue }
    /// The text argument `name`, nil when absent.
    public func string(_ name: String) -> String? { self[name]?.stringValue }
    /// The flag argument `name`, nil when absent.
    public func bool(_ name: String) -> Bool? { self[name]?.boolValue }

    /// The required `Int` named `name`, for a page constructor: its arguments were validated
    /// against the case's parameters, so this does not fail there — and throws rather than
    /// traps if a constructor asks for a name it did not declare.
    public func requireInt(_ name: String) throws(CoordError) -> Int {
        guard let value = int(name) else { throw .missingParameter(Parameter(name, .int), context: "argument") }
        return value
    }

    /// The required `String` named `name`; see `requireInt(_:)`.
    public func requireString(_ name: String) throws(CoordError) -> String {
        guard let value = string(name) else { throw .missingParameter(Parameter(name, .string), context: "argument") }
        return value
    }

    /// True for a message with no arguments.
    public var isEmpty: Bool { values.isEmpty }

    public static func == (lhs: Arguments, rhs: Arguments) -> Bool {
        lhs.values.count == rhs.values.count
            && zip(lhs.values, rhs.values).allSatisfy { $0.name == $1.name && $0.value == $1.value }
    }

    /// Why these typed values do not fit `parameters` (the first problem found), or nil when
    /// they do. Values are never quoted back: a secret one (a card number) must not reach an
    /// error line.
    public func mismatch(with parameters: [Parameter]) -> String? {
        for (index, entry) in values.enumerated() {
            guard let parameter = parameters.first(where: { $0.name == entry.name }) else {
                return "unknown argument '\(entry.name)'"
            }
            if values[..<index].contains(where: { $0.name == entry.name }) {
                return "argument '\(entry.name)' given twice"
            }
            if entry.value.type != parameter.type {
                let t = parameter.type, got = entry.value.type
                return "\(entry.name) must be \(t == .int ? "an" : "a") \(t.rawValue), got \(got == .int ? "an" : "a") \(got.rawValue)"
            }
        }
        for parameter in parameters where !parameter.isOptional && self[parameter.name] == nil {
            return "missing \(parameter.name)"
        }
        return nil
    }

    /// Validates raw `name=text` pairs against `parameters`: every required one present, every
    /// one known and well-typed. `context` names what is being parsed in error messages.
    public static func validate(
        _ raw: [(name: String, text: String)], against parameters: [Parameter], context: String
    ) throws(CoordError) -> Arguments {
        try validate(raw, against: parameters, context: { context })
    }

    /// The same, with `context` made only for an error: the shell reads every command's
    /// arguments, and the name of each (`cart add`) was a string built for nothing.
    @_spi(Host) public static func validate(
        _ raw: [(name: String, text: String)], against parameters: [Parameter], context: () -> String
    ) throws(CoordError) -> Arguments {
        var result = Arguments()
        for (name, text) in raw {
            guard let parameter = parameters.first(where: { $0.name == name }) else {
                let known = parameters.map(\.name)
                throw CoordError.unknownParameter(
                    name, context: context(), suggestion: Suggest.closest(to: name, in: known),
                    known: known)
            }
            if result[name] != nil { throw CoordError.duplicateParameter(name, context: context()) }
            guard let value = parameter.type.parse(text) else {
                throw CoordError.illTypedParameter(
                    name, expected: parameter.type, got: text, context: context())
            }
            result.set(name, value)
        }
        for parameter in parameters where !parameter.isOptional && result[parameter.name] == nil {
            throw CoordError.missingParameter(parameter, context: context())
        }
        // Keep declaration order, whatever order the user typed.
        result.values.sort { a, b in
            (parameters.firstIndex { $0.name == a.name } ?? 0)
                < (parameters.firstIndex { $0.name == b.name } ?? 0)
        }
        return result
    }
}
