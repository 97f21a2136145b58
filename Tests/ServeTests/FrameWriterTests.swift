import CoordProtocol
import Foundation
import Testing

/// The frames the server writes are read by clients with ordinary JSON parsers (Python's in
/// client.py, Foundation's in `coordsh connect`): whatever the writer is given must come back
/// from a parser as the same document. Foundation's own writer is the judge of "the same".
@Suite("protocol frames")
struct FrameWriterTests {
    struct FrameFailure: Error {
        let description: String
        init(_ description: String) { self.description = description }
    }

    /// The document as Foundation writes it with sorted keys: equal text, equal document.
    func canonical(_ object: [String: Any]) throws -> String {
        String(decoding: try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]), as: UTF8.self)
    }

    func roundTrip(_ object: [String: Any]) throws -> [String: Any] {
        var decoder = FrameDecoder()
        decoder.append(try FrameDecoder.encode(object))
        let parsed = try #require(try decoder.next())
        #expect(decoder.pendingBytes == 0)
        return parsed
    }

    @Test("every escape: quotes, backslashes, each control character, slashes, non-ASCII")
    func escapes() throws {
        let controls = String(String.UnicodeScalarView((0..<0x20).compactMap(Unicode.Scalar.init)))
        let object: [String: Any] = [
            "controls": controls, "quote\"key": "say \"hi\" \\ back\\slash", "path": "a/b/../c",
            "text": "café ── 日本 🛒 \u{2028}\u{7F}", "empty": "", "bom": "\u{FEFF}a\u{FEFF}b\u{FEFF}",
        ]
        #expect(try canonical(roundTrip(object)) == canonical(object))
    }

    @Test("numbers, booleans and null keep their kind: true is not 1, 3 is not true")
    func kinds() throws {
        let object: [String: Any] = [
            "yes": true, "no": false, "one": 1, "zero": 0, "min": Int.min + 1, "max": Int.max, "half": 0.5,
            "tiny": 1e-7, "big": 1.5e300, "whole": 3.0, "null": NSNull(), "none": String?.none as Any,
            "some": String?.some("x") as Any, "small": Int8(-5), "nested": [[1, [true, "x"]], ["k": [String: Any]()]],
        ]
        let parsed = try roundTrip(object)
        #expect((parsed["yes"] as? NSNumber).map { String(cString: $0.objCType) } == "c")
        #expect((parsed["one"] as? NSNumber).map { String(cString: $0.objCType) } != "c")
        #expect(parsed["none"] is NSNull && parsed["some"] as? String == "x")
        var expected = object
        expected["none"] = NSNull()
        expected["some"] = "x"
        expected["small"] = -5
        #expect(try canonical(parsed) == canonical(expected))
        // A parsed document passed on as it is (its numbers are NSNumbers) is written alike.
        let again = try canonical(roundTrip(parsed)), wanted = try canonical(expected)
        #expect(again == wanted)
    }

    @Test("a result's document crosses the socket typed: booleans stay booleans, whole doubles numbers, null and nesting kept; a document that is not an object is a protocol error")
    func typedDocument() throws {
        let document: JSONObject = [
            "ok": true, "count": 3, "price": 12.5, "gone": .null, "names": JSONValue(["a", "b"]),
            "page": ["route": "content/product", "fields": ["id": "7"], "lines": []],
        ]
        let sent = ServerReply.result(.init(id: 4, status: 0, lines: ["x"], document: document, notices: [], error: nil, route: nil, quit: false, secret: false))
        guard case .result(let received) = try ServerReply.parse(try roundTrip(sent.object)) else { throw FrameFailure("not a result") }
        #expect(received.document == document)
        #expect(received.document?["ok"]?.bool == true && received.document?["ok"]?.int == nil, "true is not 1")
        #expect(received.document?["page"]?["fields"]?["id"]?.string == "7")
        var frame = sent.object
        frame["document"] = ["not", "an", "object"]
        #expect(throws: ProtocolError.self) { try ServerReply.parse(frame) }
    }

    @Test("what JSON cannot carry is a one-line error, not a trap or a broken frame")
    func refused() throws {
        for bad: [String: Any] in [["x": Double.nan], ["x": Double.infinity], ["x": Date()]] {
            #expect(throws: ProtocolError.self) { try FrameDecoder.encode(bad) }
        }
        var deep: Any = "bottom"
        for _ in 0..<100 { deep = [deep] }
        let error = #expect(throws: ProtocolError.self) { try FrameDecoder.encode(["deep": deep]) }
        #expect(error?.message.contains("\n") == false)
    }

    @Test("random documents come back the same (a failure prints the document)", arguments: 0..<200)
    func randomDocuments(round: Int) throws {
        var generator = SystemRandomNumberGenerator()
        let object = randomObject(&generator, depth: 0)
        let written = String(decoding: try FrameDecoder.encode(object).dropFirst(4), as: UTF8.self)
        let back = try canonical(roundTrip(object)), expected = try canonical(object)
        #expect(back == expected, "written: \(written)")
    }

    func randomObject(_ g: inout SystemRandomNumberGenerator, depth: Int) -> [String: Any] {
        var object: [String: Any] = [:]
        for _ in 0..<Int(g.next() % 6) { object[randomString(&g)] = randomValue(&g, depth: depth + 1) }
        return object
    }

    func randomValue(_ g: inout SystemRandomNumberGenerator, depth: Int) -> Any {
        switch g.next() % (depth > 3 ? 5 : 7) {
        case 0: return randomString(&g)
        case 1: return Int(bitPattern: UInt(g.next())) >> Int(g.next() % 64)
        case 2: return g.next() % 2 == 0
        case 3: return Double(Int64(bitPattern: g.next()) >> 20) / Double(1 << Int(g.next() % 30))
        case 4: return NSNull()
        case 5: return (0..<Int(g.next() % 4)).map { _ in randomValue(&g, depth: depth + 1) }
        default: return randomObject(&g, depth: depth)
        }
    }

    /// Printable and control ASCII, Latin, CJK, emoji and the JSON specials, mixed.
    func randomString(_ g: inout SystemRandomNumberGenerator) -> String {
        let pool: [Unicode.Scalar] = (0..<0x80).compactMap(Unicode.Scalar.init) + ["é", "ß", "日", "本", "🛒", "\u{2028}", "\u{FEFF}", "\"", "\\", "/"]
        return String(String.UnicodeScalarView((0..<Int(g.next() % 12)).map { _ in pool[Int(g.next() % UInt64(pool.count))] }))
    }
}
