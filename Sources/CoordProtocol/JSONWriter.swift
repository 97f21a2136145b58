import Foundation

/// Compact JSON for the protocol's object model (`[String: Any]` of strings, integers,
/// doubles, booleans, arrays, objects and null), written straight into bytes.
///
/// Why not `JSONSerialization`: on Linux it bridges every dictionary and array to its
/// `NSDictionary`/`NSArray` twin before it writes, which `./bench serve` measured at 180–210 µs
/// for a 500-byte reply, several times the command itself; `JSONEncoder` over a `Codable`
/// mirror of the model still took 50 µs. This writer takes a few microseconds. Reading stays
/// with `JSONSerialization` (a parser is not something to write again), and the tests check
/// that it reads back what this writes, for every escape and random documents.
enum JSONWriter {
    static func write(_ value: Any) throws(ProtocolError) -> [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(512)
        try write(value, into: &out, depth: 0)
        return out
    }

    /// Nesting deeper than this is refused rather than followed (a reply is never this deep).
    static let maxDepth = 64

    fileprivate static func write(_ value: Any, into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        guard depth < maxDepth else { throw ProtocolError("internal", "a reply is nested more than \(maxDepth) deep") }
        // The usual types by their exact type first (a compare of two pointers and a cast
        // that cannot fail), then one conformance lookup; a chain of `as?` casts cost several
        // times more, and `as? [Any]` copies a typed array.
        let kind = ObjectIdentifier(type(of: value))
        if kind == Self.jsonType, let json = value as? JSONValue {
            try json.writeJSON(into: &out, depth: depth)
        } else if kind == Self.stringType, let string = value as? String {
            writeString(string, into: &out)
        } else if kind == Self.intType, let int = value as? Int {
            out.append(contentsOf: String(int).utf8)
        } else if kind == Self.boolType, let bool = value as? Bool {
            out.append(contentsOf: bool ? trueBytes : falseBytes)
        } else if kind == Self.objectType, let object = value as? [String: Any] {
            try object.writeJSON(into: &out, depth: depth)
        } else if kind == Self.listType, let list = value as? [Any] {
            try list.writeJSON(into: &out, depth: depth)
        } else if kind == Self.stringsType, let strings = value as? [String] {
            try strings.writeJSON(into: &out, depth: depth)
        } else if kind == Self.nullType {
            out.append(contentsOf: nullBytes)
        } else if kind == Self.objectsType, let objects = value as? [[String: Any]] {
            try objects.writeJSON(into: &out, depth: depth)
        } else if let writable = value as? any JSONWritable {
            try writable.writeJSON(into: &out, depth: depth)
        } else if let integer = value as? any BinaryInteger {
            out.append(contentsOf: String(describing: integer).utf8)
        } else {
            throw ProtocolError("internal", "a reply holds a \(type(of: value)), which JSON cannot carry")
        }
    }

    fileprivate static func write(_ double: Double, into out: inout [UInt8]) throws(ProtocolError) {
        guard double.isFinite else { throw ProtocolError("internal", "a reply holds \(double), which JSON cannot carry") }
        if double == double.rounded(.towardZero), abs(double) < 1e15 {
            out.append(contentsOf: String(Int64(double)).utf8)
        } else {
            out.append(contentsOf: "\(double)".utf8)
        }
    }

    private static let jsonType = ObjectIdentifier(JSONValue.self)
    private static let stringType = ObjectIdentifier(String.self), intType = ObjectIdentifier(Int.self)
    private static let boolType = ObjectIdentifier(Bool.self), objectType = ObjectIdentifier([String: Any].self)
    private static let listType = ObjectIdentifier([Any].self), stringsType = ObjectIdentifier([String].self)
    // A reply's null (`NSNull`) and its lists of notices (`[[String: Any]]`): the first
    // conformance lookup of each cost a worker's first answer ≈ 250,000 instructions.
    private static let nullType = ObjectIdentifier(NSNull.self), objectsType = ObjectIdentifier([[String: Any]].self)
    fileprivate static let trueBytes = Array("true".utf8), falseBytes = Array("false".utf8), nullBytes = Array("null".utf8)
    private static let hex = Array("0123456789abcdef".utf8)

    /// A JSON string: quote, backslash and the control characters escaped, and U+FEFF (which
    /// Foundation's parser drops when it meets it raw, wherever it stands); everything else,
    /// `/` and non-ASCII included, as its UTF-8.
    fileprivate static func writeString(_ string: String, into out: inout [UInt8]) {
        out.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { bytes in
            // Runs that need no escape are copied whole.
            var run = 0
            var index = 0
            while index < bytes.count {
                let byte = bytes[index]
                let escape: [UInt8]?
                switch byte {
                case UInt8(ascii: "\""): escape = [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
                case UInt8(ascii: "\\"): escape = [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
                case 0x0A: escape = [UInt8(ascii: "\\"), UInt8(ascii: "n")]
                case 0x0D: escape = [UInt8(ascii: "\\"), UInt8(ascii: "r")]
                case 0x09: escape = [UInt8(ascii: "\\"), UInt8(ascii: "t")]
                case 0..<0x20:
                    escape = [UInt8(ascii: "\\"), UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
                case 0xEF where index + 2 < bytes.count && bytes[index + 1] == 0xBB && bytes[index + 2] == 0xBF:
                    // U+FEFF (EF BB BF).
                    escape = Array("\\ufeff".utf8)
                default:
                    escape = nil
                }
                guard let escape else {
                    index += 1
                    continue
                }
                out.append(contentsOf: bytes[run..<index])
                out.append(contentsOf: escape)
                index += byte == 0xEF ? 3 : 1
                run = index
            }
            out.append(contentsOf: bytes[run..<bytes.count])
        }
        out.append(UInt8(ascii: "\""))
    }
}

/// A value the writer knows how to write.
private protocol JSONWritable {
    func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError)
}

extension String: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) {
        JSONWriter.writeString(self, into: &out)
    }
}

extension Substring: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) {
        JSONWriter.writeString(String(self), into: &out)
    }
}

extension Bool: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) {
        out.append(contentsOf: self ? JSONWriter.trueBytes : JSONWriter.falseBytes)
    }
}

extension Int: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) {
        out.append(contentsOf: String(self).utf8)
    }
}

extension Double: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        try JSONWriter.write(self, into: &out)
    }
}

extension Array: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        out.append(UInt8(ascii: "["))
        var first = true
        for element in self {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            try JSONWriter.write(element, into: &out, depth: depth + 1)
        }
        out.append(UInt8(ascii: "]"))
    }
}

extension Dictionary: JSONWritable where Key == String {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        out.append(UInt8(ascii: "{"))
        var first = true
        for (key, element) in self {
            if !first { out.append(UInt8(ascii: ",")) }
            first = false
            JSONWriter.writeString(key, into: &out)
            out.append(UInt8(ascii: ":"))
            try JSONWriter.write(element, into: &out, depth: depth + 1)
        }
        out.append(UInt8(ascii: "}"))
    }
}

extension Optional: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        if let wrapped = self {
            try JSONWriter.write(wrapped, into: &out, depth: depth)
        } else {
            out.append(contentsOf: JSONWriter.nullBytes)
        }
    }
}

extension JSONValue: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        switch self {
        case .null: out.append(contentsOf: JSONWriter.nullBytes)
        case .bool(let value): value.writeJSON(into: &out, depth: depth)
        case .int(let value): value.writeJSON(into: &out, depth: depth)
        case .double(let value): try JSONWriter.write(value, into: &out)
        case .string(let value): JSONWriter.writeString(value, into: &out)
        case .array(let values): try values.writeJSON(into: &out, depth: depth)
        case .object(let members): try members.writeJSON(into: &out, depth: depth)
        }
    }
}

extension NSNull: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) {
        out.append(contentsOf: JSONWriter.nullBytes)
    }
}

/// A value that came through Foundation (a parsed document passed on): its booleans are
/// NSNumbers of type "c", which must stay `true`, not become 1.
extension NSNumber: JSONWritable {
    fileprivate func writeJSON(into out: inout [UInt8], depth: Int) throws(ProtocolError) {
        if isJSONBoolean {
            out.append(contentsOf: boolValue ? JSONWriter.trueBytes : JSONWriter.falseBytes)
        } else {
            // Its own digits: a large integer parsed into a double-typed number keeps them.
            guard doubleValue.isFinite else { throw ProtocolError("internal", "a reply holds \(self), which JSON cannot carry") }
            out.append(contentsOf: stringValue.utf8)
        }
    }
}
