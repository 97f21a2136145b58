import Foundation

/// What the server sends: answers to requests (`result`, `secret`, `completions`) and what it
/// pushes unasked (`event`, `goodbye`). Built by the server, parsed by `coordsh connect`.
public enum ServerReply: Sendable {
    /// The answer to `hello`: the client's new scene.
    case hello(Hello)
    /// The answer to `run`.
    case result(RunResult)
    /// The command stopped at a password prompt; ask the person and send the same `run` again
    /// with the answer appended to `secrets`.
    case secret(id: Int, prompt: String, confirm: Bool)
    case completions(id: Int, candidates: [String])
    /// The answer to `ping`.
    case pong(id: Int)
    /// Something the client's person should see now: a plugin dropped in, a replay.
    case event(Notice)
    /// A broken rule or a refusal; the server closes the connection after it unless the
    /// request had an id (then only that request failed).
    case error(id: Int?, code: String, message: String)
    /// The server is closing this connection (shutting down, or the client was too slow).
    case goodbye(reason: String)
    /// From a worker to its front only: a newer version of a loaded plugin arrived in a plugin
    /// folder (`text` says which). The front may start a new worker with it and hand the
    /// scenes over; this worker cannot, as a Swift image is never unloaded.
    case upgrade(text: String)

    public struct Hello: Sendable, Equatable {
        public let version: Int
        public let server: String
        public let scene: String
        public let pid: Int
        /// The scene's first page (the configured home) and its text, for the prompt and an
        /// interactive start.
        public let route: String?
        public let page: [String]
        /// The plugins the app loaded: how a supervised front sees that a new worker has the
        /// upgraded plugin (and not only the others).
        public let plugins: [PluginIdentity]
        /// From a worker to its front only: what opening the scene said (start-up warnings,
        /// refused plugins, the resumed login), inside the hello so that the front has them
        /// before its first prompt. A server sends them as `event`s after the hello instead.
        public let notices: [Notice]
        public init(
            version: Int, server: String, scene: String, pid: Int, route: String?, page: [String], plugins: [PluginIdentity] = [],
            notices: [Notice] = []
        ) {
            self.plugins = plugins
            self.notices = notices
            self.version = version
            self.server = server
            self.scene = scene
            self.pid = pid
            self.route = route
            self.page = page
        }
    }

    /// A notice, as every layer passes it (`CoordProtocol.Notice`).
    public typealias Notice = CoordProtocol.Notice

    /// One command's outcome, as the shell would print it: text lines, the `--json` document,
    /// notices, and the exit status with the error line for a failure.
    public struct RunResult: Sendable {
        public let id: Int
        public let status: Int
        public let lines: [String]
        /// Exactly what `coordsh --json` prints for the command (nil when it prints nothing).
        public let document: JSONObject?
        public let notices: [Notice]
        public let error: (code: String, message: String)?
        /// The route of the scene's page after the command, for the prompt.
        public let route: String?
        /// The command was `quit`.
        public let quit: Bool
        /// The line carried a value declared secret (a card number): keep it out of history.
        public let secret: Bool
        /// The scene's login session token after the command (nil when nobody is logged in):
        /// what the client gives back in a `hello` to resume the login in a new scene.
        public let resume: String?
        /// The scene's queued messages as command lines, each with the route of the page that
        /// sent it: what a client gives a new scene to make them wait again.
        public let queued: [(line: String, from: String?)]
        /// The routes `back` would go through, oldest first, ending with `route`: what a client
        /// opens in order to put a new scene where this one is (with `resume` and `queued`).
        public let trail: [String]

        public init(
            id: Int, status: Int, lines: [String], document: JSONObject?, notices: [Notice],
            error: (code: String, message: String)?, route: String?, quit: Bool, secret: Bool, resume: String? = nil,
            queued: [(line: String, from: String?)] = [], trail: [String] = []
        ) {
            self.trail = trail
            self.secret = secret
            self.resume = resume
            self.queued = queued
            self.id = id
            self.status = status
            self.lines = lines
            self.document = document
            self.notices = notices
            self.error = error
            self.route = route
            self.quit = quit
        }
    }

    /// The frame object.
    public var object: [String: Any] {
        switch self {
        case .hello(let h):
            return ["type": "hello", "version": h.version, "server": h.server, "scene": h.scene, "pid": h.pid,
                    "route": h.route ?? NSNull(), "page": h.page, "plugins": h.plugins.map(\.description)]
                .merging(h.notices.isEmpty ? [:] : ["notices": h.notices.map(\.object)]) { $1 }
        case .result(let r):
            var o: [String: Any] = [
                "type": "result", "id": r.id, "ok": r.error == nil, "status": r.status,
                "notices": r.notices.map(\.object), "quit": r.quit, "secret": r.secret,
            ]
            // A failure prints nothing on stdout: it has no `lines` (PROTOCOL.md).
            if r.error == nil { o["lines"] = r.lines }
            o["document"] = r.document.map(JSONValue.object) ?? .null
            o["route"] = r.route ?? NSNull()
            if let resume = r.resume { o["resume"] = resume }
            if r.trail.count > 1 { o["trail"] = r.trail }
            if !r.queued.isEmpty { o["queued"] = r.queued.map { ["line": $0.line, "from": $0.from ?? NSNull()] as [String: Any] } }
            if let error = r.error { o["error"] = ["code": error.code, "message": error.message] }
            return o
        case .secret(let id, let prompt, let confirm):
            return ["type": "secret", "id": id, "prompt": prompt, "confirm": confirm]
        case .completions(let id, let candidates):
            return ["type": "completions", "id": id, "candidates": candidates]
        case .pong(let id):
            return ["type": "pong", "id": id]
        case .event(let notice):
            return notice.object.merging(["type": "event"]) { $1 }
        case .error(let id, let code, let message):
            var o: [String: Any] = ["type": "error", "code": code, "message": message]
            if let id { o["id"] = id }
            return o
        case .goodbye(let reason):
            return ["type": "goodbye", "reason": reason]
        case .upgrade(let text):
            return ["type": "upgrade", "text": text]
        }
    }

    /// A result's `document`: an object, null or absent.
    static func document(in object: [String: Any]) throws(ProtocolError) -> JSONObject? {
        guard let value = object["document"], !isJSONNull(value) else { return nil }
        guard case .object(let document) = try JSONValue(parsing: value) else {
            throw ProtocolError("reply", "a result's document must be an object")
        }
        return document
    }

    /// The `notices` list of a result or a hello.
    static func notices(in object: [String: Any]) throws(ProtocolError) -> [Notice] {
        try (object["notices"] as? [Any] ?? []).map { item throws(ProtocolError) -> Notice in
            guard let n = item as? [String: Any] else { throw ProtocolError("reply", "a notice must be an object") }
            return Notice(text: try Fields(n).string("text"), isWarning: try Fields(n).bool("warning"), kind: try Notice.kind(in: n))
        }
    }

    /// The `plugins` of a hello: each "NAME VERSION", or the frame is malformed.
    static func plugins(in fields: Fields) throws(ProtocolError) -> [PluginIdentity] {
        try (fields.optionalStrings("plugins") ?? []).map { text throws(ProtocolError) -> PluginIdentity in
            guard let plugin = PluginIdentity(wire: text) else {
                throw ProtocolError("reply", "a plugin in a hello must be \"NAME VERSION\", not '\(Fields.clip(text))'")
            }
            return plugin
        }
    }

    /// Reads a frame the server sent. A client must not trust it blindly either: a field of
    /// the wrong type is a `ProtocolError`.
    ///
    /// `documents: false` leaves a result's `document` unread (nil): a front that passes the
    /// frame on as it came needs the scene's place from a result, not what it printed.
    public static func parse(_ object: [String: Any], documents: Bool = true) throws(ProtocolError) -> ServerReply {
        let f = Fields(object)
        switch try f.string("type") {
        case "hello":
            return .hello(Hello(version: try f.int("version"), server: try f.optionalString("server") ?? "",
                                scene: try f.string("scene"), pid: try f.optionalInt("pid") ?? 0,
                                route: try f.optionalString("route"), page: try f.optionalStrings("page") ?? [],
                                plugins: try plugins(in: f), notices: try notices(in: object)))
        case "result":
            var error: (code: String, message: String)?
            if let e = object["error"] as? [String: Any] {
                let ef = Fields(e)
                error = (try ef.string("code"), try ef.string("message"))
            }
            let notices = try notices(in: object)
            return .result(RunResult(
                id: try f.int("id"), status: try f.int("status"), lines: try f.optionalStrings("lines") ?? [],
                document: documents ? try document(in: object) : nil, notices: notices, error: error,
                route: try f.optionalString("route"), quit: f.flag("quit"),
                secret: f.flag("secret"), resume: try f.optionalString("resume"),
                queued: try (object["queued"] as? [Any] ?? []).map { item throws(ProtocolError) -> (line: String, from: String?) in
                    guard let entry = item as? [String: Any] else { throw ProtocolError("reply", "a queued entry must be an object") }
                    return (try Fields(entry).string("line"), try Fields(entry).optionalString("from"))
                }, trail: try f.optionalStrings("trail") ?? []))
        case "secret":
            return .secret(id: try f.int("id"), prompt: try f.string("prompt"), confirm: try f.bool("confirm"))
        case "completions":
            return .completions(id: try f.int("id"), candidates: try f.optionalStrings("candidates") ?? [])
        case "pong":
            return .pong(id: try f.int("id"))
        case "event":
            return .event(Notice(text: try f.string("text"), isWarning: f.flag("warning"), kind: try Notice.kind(in: object)))
        case "error":
            return .error(id: try f.optionalInt("id"), code: try f.string("code"), message: try f.string("message"))
        case "goodbye":
            return .goodbye(reason: try f.optionalString("reason") ?? "")
        case "upgrade":
            return .upgrade(text: try f.string("text"))
        case let other:
            throw ProtocolError("reply", "unknown reply type '\(Fields.clip(other))'")
        }
    }
}

extension ServerReply {
    /// The id of the request this frame answers; nil for a push or a connection-level fault.
    public var requestID: Int? {
        switch self {
        case .result(let result): result.id
        case .secret(let id, _, _), .completions(let id, _), .pong(let id): id
        case .error(let id, _, _): id
        case .hello, .event, .goodbye, .upgrade: nil
        }
    }

    /// The frame's `type`, for a log line.
    public var typeName: String {
        switch self {
        case .hello: "hello"
        case .result: "result"
        case .secret: "secret"
        case .completions: "completions"
        case .pong: "pong"
        case .event: "event"
        case .error: "error"
        case .goodbye: "goodbye"
        case .upgrade: "upgrade"
        }
    }
}
