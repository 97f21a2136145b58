import Foundation

/// What a client may send, parsed from a frame's object. Field names and meanings are those
/// of PROTOCOL.md; anything else is a `ProtocolError` naming the field.
public enum ClientRequest: Equatable, Sendable {
    /// The first frame of every connection. `resume` is a login session token to put back in
    /// the new scene (a supervised shell restoring its session in a new app process). `scene`
    /// names the scene; only a worker heeds it, from its front, so that a scene restored in a
    /// new worker keeps its name and its guest cart (a server names its clients' scenes itself).
    /// `peer` is, from a front too, the pid of the client whose scene it is: what `scenes`
    /// shows (the worker's own peer is the front).
    case hello(version: Int, client: String, resume: String? = nil, scene: String? = nil, peer: Int? = nil)
    /// Runs one command line in the client's scene. `secrets` answers, in order, the password
    /// prompts the command stopped at before (see `ServerReply.secret`). `document: false`: the
    /// client prints text, so the result carries no `--json` document (building, sending and
    /// reading it was most of a served command's cost).
    case run(id: Int, line: String, secrets: [String], document: Bool = true)
    /// Tab completion: candidates for `word`, the partial word at the end of `line`.
    case complete(id: Int, line: String, word: String)
    /// Is the server there? Answered with `pong` by the process that owns the socket, never
    /// waiting for the app: a supervised server answers while its app runs another client's
    /// long command (a health check, a client deciding whether to wait).
    case ping(id: Int)
    /// The client is leaving; the server closes the scene.
    case bye

    /// The longest command line a `run` may carry, in characters.
    public static let maxLineLength = 64 * 1024

    public static func parse(_ object: [String: Any]) throws(ProtocolError) -> ClientRequest {
        let fields = Fields(object)
        switch try fields.string("type") {
        case "hello":
            return .hello(
                version: try fields.int("version"), client: try fields.optionalString("client") ?? "",
                resume: try fields.optionalString("resume"), scene: try fields.optionalString("scene"),
                peer: try fields.optionalInt("peer"))
        case "run":
            let line = try fields.string("line")
            guard line.count <= maxLineLength else {
                throw ProtocolError("request", "'line' is longer than \(maxLineLength) characters")
            }
            return .run(
                id: try fields.int("id"), line: line, secrets: try fields.optionalStrings("secrets") ?? [],
                document: fields.object["document"] == nil ? true : try fields.bool("document"))
        case "complete":
            return .complete(id: try fields.int("id"), line: try fields.string("line"), word: try fields.string("word"))
        case "ping":
            return .ping(id: try fields.int("id"))
        case "bye":
            return .bye
        case let other:
            throw ProtocolError("request", "unknown request type '\(Fields.clip(other))'")
        }
    }

    /// The frame object of this request (what a client sends).
    public var object: [String: Any] {
        switch self {
        case .hello(let version, let client, let resume, let scene, let peer):
            var object: [String: Any] = ["type": "hello", "version": version, "client": client]
            object["resume"] = resume
            object["scene"] = scene
            object["peer"] = peer
            return object
        case .run(let id, let line, let secrets, let document):
            var object: [String: Any] = ["type": "run", "id": id, "line": line]
            if !secrets.isEmpty { object["secrets"] = secrets }
            if !document { object["document"] = false }
            return object
        case .complete(let id, let line, let word): return ["type": "complete", "id": id, "line": line, "word": word]
        case .ping(let id): return ["type": "ping", "id": id]
        case .bye: return ["type": "bye"]
        }
    }
}

/// Typed reads of a frame object's fields, each failure one line naming the field.
struct Fields {
    let object: [String: Any]
    init(_ object: [String: Any]) { self.object = object }

    func string(_ name: String) throws(ProtocolError) -> String {
        guard let value = object[name] else { throw ProtocolError("request", "missing field '\(name)'") }
        guard let text = value as? String else { throw ProtocolError("request", "field '\(name)' must be a string") }
        return text
    }

    func optionalString(_ name: String) throws(ProtocolError) -> String? {
        guard let value = object[name], !isJSONNull(value) else { return nil }
        guard let text = value as? String else { throw ProtocolError("request", "field '\(name)' must be a string") }
        return text
    }

    func int(_ name: String) throws(ProtocolError) -> Int {
        guard let value = object[name] else { throw ProtocolError("request", "missing field '\(name)'") }
        // `Int(exactly:)`, not `as? Int`: the bridging cast finds its way through conformance
        // lookups (a worker's first request paid ≈ 700,000 instructions for them).
        guard let number = value as? NSNumber, number.isJSONInteger, let integer = Int(exactly: number) else {
            throw ProtocolError("request", "field '\(name)' must be an integer")
        }
        return integer
    }

    func optionalInt(_ name: String) throws(ProtocolError) -> Int? {
        guard object[name] != nil else { return nil }
        return try int(name)
    }

    func bool(_ name: String) throws(ProtocolError) -> Bool {
        guard let number = object[name] as? NSNumber, number.isJSONBoolean, let value = Bool(exactly: number) else {
            throw ProtocolError("request", "field '\(name)' must be true or false")
        }
        return value
    }

    /// A flag that may be left out: true or false, or a number that is exactly one of them
    /// (what `as? Bool` took); false when absent or anything else. Read from the number
    /// itself: the bridging cast to `Bool` looked its way up through the conformance records.
    func flag(_ name: String) -> Bool {
        (object[name] as? NSNumber).flatMap { Bool(exactly: $0) } ?? false
    }

    func optionalStrings(_ name: String) throws(ProtocolError) -> [String]? {
        guard let value = object[name] else { return nil }
        guard let list = value as? [Any], list.allSatisfy({ $0 is String }) else {
            throw ProtocolError("request", "field '\(name)' must be a list of strings")
        }
        return list.compactMap { $0 as? String }
    }

    static func clip(_ text: String) -> String { ProtocolError.clip(text) }
}
