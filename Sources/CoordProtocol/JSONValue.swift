import Foundation

/// One JSON value, typed: what a command's `--json` document and a result's `document` are
/// made of, from the builtin that builds it to the client that prints it. A value of this
/// type can hold nothing JSON cannot carry, is `Sendable` as it is, and is read with
/// accessors instead of casts (`document["plugins"]?.array`).
public enum JSONValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case int(Int)
    case double(Double)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// The string, when this is one.
    public var string: String? { if case .string(let value) = self { value } else { nil } }
    /// The integer, when this is one (a double with no fraction counts, as JSON has one number type).
    public var int: Int? {
        switch self {
        case .int(let value): value
        case .double(let value) where value == value.rounded() && abs(value) < 1e15: Int(value)
        default: nil
        }
    }
    /// The number, when this is one.
    public var double: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        default: nil
        }
    }
    /// The boolean, when this is one (never a number: `1` is not `true`).
    public var bool: Bool? { if case .bool(let value) = self { value } else { nil } }
    /// The elements, when this is an array.
    public var array: [JSONValue]? { if case .array(let value) = self { value } else { nil } }
    /// The members, when this is an object.
    public var object: JSONObject? { if case .object(let value) = self { value } else { nil } }
    /// The strings of an array of strings (nil if anything else is in it).
    public var strings: [String]? {
        guard let array else { return nil }
        let strings = array.compactMap(\.string)
        return strings.count == array.count ? strings : nil
    }

    /// The member `key` of an object; nil for a missing member or a value that is no object.
    public subscript(key: String) -> JSONValue? { object?[key] }

    /// A list of strings.
    public init(_ strings: [String]) { self = .array(strings.map(JSONValue.string)) }
    /// A list of objects.
    public init(_ objects: [JSONObject]) { self = .array(objects.map(JSONValue.object)) }
    /// A string, or null for nil.
    public init(_ string: String?) { self = string.map(JSONValue.string) ?? .null }
    /// An integer, or null for nil.
    public init(_ int: Int?) { self = int.map(JSONValue.int) ?? .null }

    /// What Foundation's parser gave (a frame's `document`): every value checked, booleans
    /// told from numbers by their type code (Foundation gives both as NSNumber).
    public init(parsing value: Any) throws(ProtocolError) {
        // The parser's own Swift types first: asked whether a string, a list or an object is
        // an `NSNumber`, the runtime bridged it to Foundation's class to find out.
        switch value {
        case _ where isJSONNull(value):
            self = .null
        case let string as String:
            self = .string(string)
        case let array as [Any]:
            var values: [JSONValue] = []
            values.reserveCapacity(array.count)
            for element in array { values.append(try JSONValue(parsing: element)) }
            self = .array(values)
        case let object as [String: Any]:
            var members: JSONObject = [:]
            for (key, element) in object { members[key] = try JSONValue(parsing: element) }
            self = .object(members)
        case let number as NSNumber:
            if number.isJSONBoolean {
                self = .bool(number.boolValue)
            } else if number.isJSONInteger, let int = Int(exactly: number) {
                self = .int(int)
            } else {
                self = .double(number.doubleValue)
            }
        default:
            throw ProtocolError("reply", "a document holds a \(type(of: value)), which is not JSON")
        }
    }

    /// The value as Foundation's JSON objects, for `JSONSerialization` (the shell prints
    /// `--json` with sorted keys through it).
    public var foundationObject: Any {
        switch self {
        case .null: NSNull()
        case .bool(let value): value
        case .int(let value): value
        case .double(let value): value
        case .string(let value): value
        case .array(let values): values.map(\.foundationObject)
        case .object(let members): members.mapValues(\.foundationObject)
        }
    }
}

/// A JSON object: a `--json` document, a result's `document`, a page's fields.
public typealias JSONObject = [String: JSONValue]

extension JSONValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(floatLiteral value: Double) { self = .double(value) }
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSONValue)...) { self = .object(JSONObject(elements, uniquingKeysWith: { $1 })) }
    public init(nilLiteral: ()) { self = .null }
}

extension JSONValue: CustomStringConvertible {
    /// Compact JSON, as a frame carries it.
    public var description: String {
        (try? JSONWriter.write(self)).map { String(decoding: $0, as: UTF8.self) } ?? "null"
    }
}
