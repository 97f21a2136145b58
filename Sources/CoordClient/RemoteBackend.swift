import CoordProtocol
@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// The shell's session on a scene of a `coordsh serve`: every line goes over the socket and
/// comes back as the same `Reply` the shell prints for a local one.
@MainActor
package final class RemoteBackend: ShellBackend {
    package let connection: ServerConnection
    package let hello: ServerReply.Hello
    /// Answers the server's password prompts here, at this terminal or from `--password-env`;
    /// only the answer crosses the socket, in the request that needs it.
    let secrets: any SecretPrompting
    package private(set) var route: String?
    /// The scene's login session token after the last command.
    package private(set) var resumeToken: String?
    /// The routes `back` goes through after the last command, ending with `route`.
    package private(set) var trail: [String] = []
    /// The scene's queued messages after the last command, as command lines.
    package private(set) var queuedCommands: [(line: String, from: String?)] = []
    /// Whether results come with their `--json` documents: a shell that prints text turns
    /// this off, and the server neither builds nor sends them.
    package var documents = true
    /// The last line run and whether the server found a secret value in it.
    private var lastSecret: (line: String, secret: Bool)?

    package convenience init(path: String, secrets: any SecretPrompting) throws {
        try self.init(connection: ServerConnection(path: path), secrets: secrets, resume: nil)
    }

    /// Says hello on a connection already made (a supervised front's socketpair to its
    /// worker), with the login session to resume in the new scene and the scene's name, if any.
    package convenience init(connection: ServerConnection, secrets: any SecretPrompting, resume: String? = nil, scene: String? = nil, peer: Int32? = nil) throws {
        try Self.sendHello(on: connection, resume: resume, scene: scene, peer: peer)
        FrameDecoder.warmUp()
        let hello = try Self.hello(from: connection.receive(), path: connection.path)
        self.init(connection: connection, hello: hello, secrets: secrets, resume: resume)
    }

    /// A scene whose hello was sent and answered elsewhere: a front that reads every scene's
    /// frames as they come took the answer (see `sendHello`, `hello(from:path:)`).
    package init(connection: ServerConnection, hello: ServerReply.Hello, secrets: any SecretPrompting, resume: String?) {
        self.connection = connection
        self.hello = hello
        self.secrets = secrets
        resumeToken = resume
        route = hello.route
        connection.keep(hello.notices)
    }

    /// The first frame of a scene: the protocol version, the login to resume, the scene's
    /// name and the person's client pid.
    package static func sendHello(on connection: ServerConnection, resume: String?, scene: String?, peer: Int32?) throws {
        do {
            try connection.write(.hello(version: WireProtocol.version, client: "coordsh connect", resume: resume, scene: scene, peer: peer.map(Int.init)))
        } catch {
            // A server that refuses a peer (another uid, full) answers and closes before our
            // hello is written: its reason is still there to read, and better than EPIPE.
            guard case .error(_, _, let message)? = try? connection.receive() else { throw error }
            throw ServerConnection.Failure(description: "the server at \(connection.path) refused: \(message)")
        }
    }

    /// The server's answer to a hello, or why there is no scene.
    package static func hello(from reply: ServerReply, path: String) throws -> ServerReply.Hello {
        switch reply {
        case .hello(let hello):
            return hello
        case .error(_, _, let message):
            throw ServerConnection.Failure(description: "the server at \(path) refused: \(message)")
        case .goodbye(let reason):
            throw ServerConnection.Failure(description: "the server at \(path) refused: \(reason)")
        default:
            throw ServerConnection.Failure(description: "the server at \(path) did not answer hello")
        }
    }

    /// Sends `line` with the password answers given so far, without waiting: the request's
    /// id, whose answer `absorb` takes in when it is a result. `id`: the one to use (a front
    /// relaying its client's request uses the client's, so that the answer passes back as it
    /// came).
    package func send(_ line: String, answers: [String], id: Int? = nil, document: Bool? = nil) throws -> Int {
        let id = id ?? connection.newID()
        try connection.write(.run(id: id, line: line, secrets: answers, document: document ?? documents))
        return id
    }

    /// Keeps the scene's place (route, login, queue, trail) from the result of `line`.
    package func absorb(_ result: ServerReply.RunResult, line: String) {
        route = result.route
        resumeToken = result.resume
        queuedCommands = result.queued
        trail = result.trail.isEmpty ? result.route.map { [$0] } ?? [] : result.trail
        lastSecret = (line, result.secret)
    }

    /// One request and its answer: `line` with the password answers given so far. The
    /// scene's place (route, login, queue) is kept from a result.
    package func exchange(_ line: String, answers: [String], document: Bool? = nil) throws -> ServerReply {
        let id = try send(line, answers: answers, document: document)
        let answer = try connection.answer(to: id)
        if case .result(let result) = answer { absorb(result, line: line) }
        return answer
    }

    /// Asks for completions without waiting: the request's id.
    package func sendCompletion(line: String, word: String, id: Int? = nil) throws -> Int {
        let id = id ?? connection.newID()
        try connection.write(.complete(id: id, line: line, word: word))
        return id
    }

    package func run(_ line: String) -> Reply {
        run(line, document: nil)
    }

    /// `run`, with the document asked for or not whatever `documents` says.
    package func run(_ line: String, document: Bool?) -> Reply {
        var answers: [String] = []
        do {
            while true {
                switch try exchange(line, answers: answers, document: document) {
                case .secret(_, let prompt, let confirm):
                    do {
                        answers.append(try secrets.secret(prompt, confirm: confirm))
                    } catch {
                        return Reply(error: ShellError("\(error)", code: "failed", status: .failure))
                    }
                case .result(let result):
                    return Self.reply(result)
                case .error(_, let code, let message):
                    return Reply(error: ShellError(message, code: code, status: .failure))
                default:
                    return Reply(error: ShellError("the server answered out of turn", code: "protocol", status: .failure))
                }
            }
        } catch {
            // The connection is gone: say so once and end the session (batch mode exits 1).
            var reply = Reply(error: ShellError("\(error)", code: "connection", status: .failure))
            reply.result.quit = true
            return reply
        }
    }

    /// The reply as the server's own shell would have printed it.
    static func reply(_ result: ServerReply.RunResult) -> Reply {
        let notices = result.notices
        if let error = result.error {
            let status: ShellError.Status = result.status == 2 ? .usage : .failure
            var reply = Reply(notices: notices, error: ShellError(error.message, code: error.code, status: status))
            reply.result.quit = result.quit
            return reply
        }
        var document = result.document ?? [:]
        document["ok"] = nil
        document["events"] = nil
        var commandResult = CommandResult(lines: result.lines, json: document)
        commandResult.quit = result.quit
        return Reply(result: commandResult, notices: notices)
    }

    package func completions(line: String, word: String) -> [String] {
        guard let id = try? sendCompletion(line: line, word: word),
            case .completions(_, let candidates)? = try? connection.answer(to: id)
        else { return [] }
        return candidates
    }

    package func isSecret(_ line: String) -> Bool {
        guard let lastSecret, lastSecret.line == line else { return false }
        return lastSecret.secret
    }

    package var startPage: [String]? { hello.page.isEmpty ? nil : hello.page }
    package var watchDescriptor: Int32? { connection.descriptor }

    package func takePushed() -> [Reply.Notice] {
        connection.takePushed()
    }

    /// A served app's grants are its operator's (the config's `[plugins.grants]`): a client
    /// is not asked.
    package func grantRequests() -> [GrantRequest] { [] }

    /// What the app's plugins ask for, as its `plugins` command lists it: a supervised
    /// shell's front asks its person about them.
    package func workerGrantRequests() -> [GrantRequest] {
        (run("plugins", document: true).result.json["asks"]?.array ?? []).compactMap(GrantRequest.init(json:))
    }

    package var remembersGrants: Bool { false }

    package func answer(_ request: GrantRequest, granted: Bool) -> Reply {
        Reply(error: ShellError("a served app's grants are its operator's: the config's [plugins.grants]", code: "grants", status: .failure))
    }
}
