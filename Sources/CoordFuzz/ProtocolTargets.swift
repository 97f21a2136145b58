import CoordProtocol
import Foundation

/// The socket protocol: the frame decoder on any bytes, cut anywhere; every object it yields
/// read as a request and as a reply. What is accepted must write back out and read back the
/// same (the writer is `JSONWriter`, the reader Foundation's); what is refused, one line.
enum ProtocolTargets {
    static let all = [
        FuzzTarget("frames", "length-prefixed JSON frames, cut into pieces at arbitrary points, read as requests and replies", run: frames),
    ]

    static func frames(_ bytes: [UInt8]) -> String? {
        // The first byte says where to cut the rest in two: a frame may arrive in any pieces.
        guard let cut = bytes.first else { return nil }
        let body = Array(bytes.dropFirst())
        let split = body.isEmpty ? 0 : Int(cut) % (body.count + 1)
        var decoder = FrameDecoder()
        var objects: [[String: Any]] = []
        for piece in [body[..<split], body[split...]] {
            decoder.append(piece)
            do {
                while let object = try decoder.next() { objects.append(object) }
            } catch {
                if let broken = Rule.oneLine(error.message, "frame refused") { return broken }
                break
            }
        }
        for object in objects {
            if let broken = request(object) ?? reply(object) { return broken }
        }
        return nil
    }

    /// A request read from an object: written out and read again, the same request.
    static func request(_ object: [String: Any]) -> String? {
        let parsed: ClientRequest
        do {
            parsed = try ClientRequest.parse(object)
        } catch {
            return Rule.oneLine(error.message, "request refused")
        }
        do {
            guard let again = try reread(parsed.object) else { return "request \(parsed): its frame did not read back" }
            return Rule.same(parsed, try ClientRequest.parse(again), "request written and read again")
        } catch {
            return "request \(parsed) written out could not be read again: \(error.message)"
        }
    }

    /// A reply read from an object: written out, read and written again, the same document (a
    /// reply has untyped JSON inside, so the documents are compared, in any key order).
    static func reply(_ object: [String: Any]) -> String? {
        let parsed: ServerReply
        do {
            parsed = try ServerReply.parse(object)
        } catch {
            return Rule.oneLine(error.message, "reply refused")
        }
        do {
            guard let first = try reread(parsed.object) else { return "reply: its frame did not read back" }
            guard let second = try reread(try ServerReply.parse(first).object) else { return "reply: its frame did not read back twice" }
            return sameJSON(first, second) ? nil : "reply written, read and written again changed: \(first) → \(second)"
        } catch {
            // Something the writer refuses (JSON cannot carry it) must be refused in one line.
            return Rule.oneLine(error.message, "reply could not be written")
        }
    }

    /// The object written as a frame and decoded again.
    static func reread(_ object: [String: Any]) throws(ProtocolError) -> [String: Any]? {
        var decoder = FrameDecoder()
        decoder.append(try FrameDecoder.encode(object))
        return try decoder.next()
    }

    /// Two JSON values as Foundation's parser gives them are the same: objects in any key
    /// order, numbers and booleans of the same kind and value.
    static func sameJSON(_ a: Any, _ b: Any) -> Bool {
        switch (a, b) {
        case (let a as [String: Any], let b as [String: Any]):
            return a.count == b.count && a.allSatisfy { key, value in b[key].map { sameJSON(value, $0) } ?? false }
        case (let a as [Any], let b as [Any]):
            return a.count == b.count && zip(a, b).allSatisfy { sameJSON($0, $1) }
        case (let a as String, let b as String):
            return a == b
        case (is NSNull, is NSNull):
            return true
        case (let a as NSNumber, let b as NSNumber):
            return a.isJSONBoolean == b.isJSONBoolean && a == b
        default:
            return false
        }
    }
}
