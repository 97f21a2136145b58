import CoordProtocol
@_spi(Host) import CoordSDK

/// Everything one command line produced, before anybody prints it: the shell prints it to a
/// terminal or as `--json`, the server sends it to a client, whose shell prints it the same
/// way. One value for both is what keeps `coordsh connect` looking like the shell itself.
public struct Reply {
    /// Something the user is told besides the result: a note, or a warning for a message that
    /// will never be delivered — the protocol's own type, so that it crosses a socket as it is.
    public typealias Notice = CoordProtocol.Notice

    /// The result's text lines and JSON document (empty for a failure).
    public var result: CommandResult
    public var notices: [Notice]
    public var error: ShellError?
    /// A password prompt the command stopped at, for a session whose person is on the other
    /// side of a socket (see `RemoteSecrets`).
    public var secretNeeded: SecretRequest?

    public init(result: CommandResult = CommandResult(), notices: [Notice] = [], error: ShellError? = nil) {
        self.result = result
        self.notices = notices
        self.error = error
    }

    /// 0, or the failure's exit status.
    public var status: Int32 { error?.status.rawValue ?? 0 }

    /// The `--json` document, or nil when the command printed nothing (a blank line, a
    /// comment) and produced no error.
    public var document: JSONObject? {
        if let error {
            return ["ok": false, "error": ["code": .string(error.code), "message": .string(error.message)]]
        }
        guard !(result.lines.isEmpty && !result.hasDocumentKeys && notices.isEmpty) else { return nil }
        var document = result.document
        document["ok"] = true
        if !notices.isEmpty { document["events"] = JSONValue(notices.map(\.text)) }
        return document
    }
}

/// A password the command asked for and a served session could not ask for there and then.
public struct SecretRequest: Equatable, Sendable {
    public let prompt: String
    /// Ask twice and require both to match (a new password).
    public let confirm: Bool

    public init(prompt: String, confirm: Bool) {
        self.prompt = prompt
        self.confirm = confirm
    }
}

extension Session {
    /// Runs one line and collects what it produced, with the events of this scene reported
    /// meanwhile. Never throws: a failure is the reply's `error`.
    public func run(_ line: String) -> Reply {
        do {
            let result = try execute(line)
            return Reply(result: result, notices: drainEvents().map(Reply.Notice.init))
        } catch {
            return Reply(notices: drainEvents().map(Reply.Notice.init), error: error)
        }
    }
}

extension Notice {
    /// A dispatch event as the person is told it.
    public init(_ event: DispatchEvent) {
        self.init(text: event.description, isWarning: event.isFailure)
    }
}
