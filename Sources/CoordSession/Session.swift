import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

/// One session: a scene of the app and the commands its person types. The terminal shell has
/// one; each client of `coordsh serve` another. It knows nothing about terminals, sockets or
/// output formats: `Shell` and the server do the I/O.
@MainActor
public final class Session {
    /// Who is at the other end of a served session, from the socket's peer credentials.
    public struct Peer: Sendable {
        public let pid: Int32
        public let uid: UInt32
        public init(pid: Int32, uid: UInt32) {
            self.pid = pid
            self.uid = uid
        }
    }

    public unowned let host: AppHost
    public let scene: SceneCoordinator
    public let peer: Peer?
    /// Events (queued, replayed, dropped messages, notes) reported in this scene since the
    /// last command. Unchecked, as `startRoute`: read or changed on the main actor in one step
    /// (an append, a take), never held across a call into plugin code; each command touches both.
    @exclusivity(unchecked) private(set) var pendingEvents: [DispatchEvent] = []
    let builtins: [Builtin]
    /// Where each builtin stands in `builtins`, by name: every command looks its first word up
    /// here, and a scan of the list, copying each builtin to compare its name, was 2 % of a
    /// batch script.
    private let builtinIndex: [String: Int]
    /// The page trail last reported, and the scene's stamp then (see `pageTrail(limit:)`).
    var trailCache: (stamp: [Int], routes: [String])?

    public var app: AppCoordinator { host.app }
    public var loader: PluginLoader { host.loader }
    public var config: Config { host.config }
    var databaseOverride: String? { host.databaseOverride }

    init(host: AppHost, identifier: String, peer: Peer?) {
        self.host = host
        self.peer = peer
        self.scene = host.app.makeScene(identifier: identifier)
        self.builtins = Builtin.all(supervised: host.hasFront)
        self.builtinIndex = Dictionary(builtins.enumerated().map { ($1.name, $0) }, uniquingKeysWith: { first, _ in first })
        scene.eventSink = { [weak self] event in self?.pendingEvents.append(event) }
    }

    /// Adds an event that did not come from this scene (an app-wide one), to be told with the
    /// next command's result.
    public func tell(_ event: DispatchEvent) {
        pendingEvents.append(event)
    }

    /// The page a script starts on (`[shell] home`), opened — not rendered — before the first
    /// command that uses the scene: a script of commands that read only the app's registry
    /// (`help`, `pages`, …; `Builtin.usesScene`) loads no plugin's image at all, where opening
    /// it at start loaded the home page's plugin for nothing (issue 41). Opening it then does
    /// what opening it at start did: a page that cannot open leaves the scene without one.
    @exclusivity(unchecked) package var startRoute: RouteRequest?

    /// The page the user is on, or nil before any page was opened.
    public var currentView: PageView? { scene.currentView }

    /// Opens `startRoute` if it is still waiting.
    package func openStartPage() {
        guard let request = startRoute else { return }
        startRoute = nil
        _ = try? open(request, trace: nil, rendering: false)
    }

    /// `content/product id=7`, or nil.
    /// A script's start page not yet opened (`startRoute`) is the route it is on: a command
    /// that did not need the scene reports the same route as before it was deferred.
    public var currentRoute: String? { currentView.map { $0.pageRoute.description } ?? startRoute?.description }

    /// The builtin command `name`, if there is one.
    func builtin(named name: String) -> Builtin? {
        builtinIndex[name].map { builtins[$0] }
    }

    /// Runs one line. Blank lines and `#` comments do nothing.
    public func execute(_ line: String) throws(ShellError) -> CommandResult {
        let words: [String]
        do {
            words = try Words.split(line)
        } catch {
            throw ShellError("unterminated quote in: \(line)", code: "syntax", status: .usage)
        }
        guard let first = words.first, !first.hasPrefix("#") else { return CommandResult() }
        return try execute(words: words)
    }

    func execute(words: [String]) throws(ShellError) -> CommandResult {
        let name = words[0], rest = Array(words.dropFirst())
        host.running = self
        host.stats?.client = scene.identifier
        // What the command's handlers cost reaches the figures (and `serve --metrics`) as it ends.
        defer { host.stats?.settle() }
        do {
            if let builtin = builtin(named: name) {
                if builtin.usesScene { openStartPage() }
                let before = scene.displayCount
                var result = try builtin.run(self, builtin.invocation(rest))
                // A builtin that changed the page (`plugins load` resuming a waiting checkout)
                // shows it, as a message would.
                if scene.displayCount != before, result.page == nil, let view = currentView {
                    result.show(view)
                }
                return result
            }
            if let feature = app.features.feature(prefix: name) {
                openStartPage()
                return try sendFeatureMessage(feature, rest, trace: nil)
            }
        } catch let error as ShellError {
            throw error
        } catch let error as CoordError {
            throw ShellError(error.message, code: error.code, status: Self.status(of: error))
        } catch {
            throw ShellError("\(error)", code: "failed", status: .failure)
        }
        let known = builtins.map(\.name) + app.features.features.map(\.definition.prefix)
        let hint = Suggest.closest(to: name, in: known).map { " (did you mean '\(([$0] + rest).joined(separator: " "))'?)" } ?? ""
        throw ShellError("unknown command '\(name)'\(hint); 'help' lists the commands", code: "unknown_command", status: .usage)
    }

    static func status(of error: CoordError) -> ShellError.Status {
        switch error {
        case .unknownFeature, .unknownPage, .unknownParameter, .duplicateParameter, .missingParameter,
            .illTypedParameter, .malformedRoute, .unknownMessage, .unknownVerb:
            return .usage
        default:
            return .failure
        }
    }

    /// Takes and clears the events reported since the last call.
    public func drainEvents() -> [DispatchEvent] {
        defer { pendingEvents.removeAll() }
        return pendingEvents
    }

    // MARK: Messages

    /// Builds the message for `prefix verb args…` from what the feature registered.
    func message(for feature: Feature, _ words: [String]) throws -> Message {
        let prefix = feature.prefix.string
        guard let verb = words.first else {
            let verbs = feature.definition.messages.map(\.verb).joined(separator: ", ")
            throw ShellError("'\(prefix)' needs a command: \(verbs)", code: "missing_verb", status: .usage)
        }
        guard let (spec, name) = feature.declaredMessage(verb: verb) else {
            throw CoordError.unknownVerb(
                prefix: prefix, verb: verb, suggestion: Suggest.closest(to: verb, in: feature.definition.messages.map(\.verb)))
        }
        let arguments = try Self.parseArguments(Array(words.dropFirst()), spec.arguments, context: "\(prefix) \(verb)")
        return Message(name, arguments, from: currentView ?? scene)
    }

    /// Positional words fill the declared arguments in order; `name=value`, `--name value` and
    /// `--name=value` name one (`content list --category shoes`).
    nonisolated package static func parseArguments(_ words: [String], _ parameters: [Parameter], context: @autoclosure () -> String) throws -> Arguments {
        var raw: [(name: String, text: String)] = []
        var position = 0
        var skipNext = false
        for (index, word) in words.enumerated() {
            if skipNext {
                skipNext = false
                continue
            }
            if word.hasPrefix("--"), word.count > 2 {
                let option = word.dropFirst(2)
                let name = String(String.UnicodeScalarView(option.unicodeScalars.prefix { $0 != "=" }))
                guard let parameter = parameters.first(where: { $0.name == name }) else {
                    let suggestion = Suggest.closest(to: name, in: parameters.map(\.name)).map { " (did you mean '--\($0)'?)" } ?? ""
                    throw ShellError("\(context()): unknown option '--\(name)'\(suggestion)", code: "unknown_parameter", status: .usage)
                }
                if let eq = option.unicodeScalars.firstIndex(of: "=") {
                    raw.append((name, String(String.UnicodeScalarView(option.unicodeScalars[option.unicodeScalars.index(after: eq)...]))))
                } else if parameter.type == .bool {
                    raw.append((name, "true"))
                } else {
                    guard index + 1 < words.count else {
                        throw ShellError("\(context()): option '--\(name)' needs a value", code: "missing_parameter", status: .usage)
                    }
                    raw.append((name, words[index + 1]))
                    skipNext = true
                }
                continue
            }
            let scalars = word.unicodeScalars
            if let eq = scalars.firstIndex(of: "="), eq != scalars.startIndex,
                parameters.contains(where: { $0.name == String(String.UnicodeScalarView(scalars[..<eq])) }) {
                raw.append((String(String.UnicodeScalarView(scalars[..<eq])), String(String.UnicodeScalarView(scalars[scalars.index(after: eq)...]))))
                continue
            }
            while position < parameters.count, raw.contains(where: { $0.name == parameters[position].name }) { position += 1 }
            guard position < parameters.count else {
                let usage = parameters.isEmpty ? "it takes no arguments" : "it takes \(parameters.map(\.signature).joined(separator: " "))"
                throw ShellError("\(context()): unexpected argument '\(word)'; \(usage)", code: "extra_argument", status: .usage)
            }
            if parameters[position].type == .string, position == parameters.count - 1 {
                // The last string argument takes the rest of the line: `content search red shoes`.
                raw.append((parameters[position].name, words[index...].joined(separator: " ")))
                position += 1
                break
            }
            raw.append((parameters[position].name, word))
            position += 1
        }
        return try Arguments.validate(raw, against: parameters, context: context)
    }

    func sendFeatureMessage(_ feature: Feature, _ words: [String], trace: DispatchTrace?) throws -> CommandResult {
        let message = try message(for: feature, words)
        return try send(message, from: message.sender ?? scene, trace: trace)
    }

    /// `rendering: false` navigates without rendering the page (which may read the database):
    /// for a page nobody is shown, the home page of a script.
    func send(_ message: Message, from sender: Responder, trace: DispatchTrace?, rendering: Bool = true) throws -> CommandResult {
        let before = scene.displayCount
        let outcome = try trace.map { try sender.send(message, trace: $0) } ?? sender.send(message)
        var result = CommandResult(sent: message.name.string, outcome: outcome == .handled ? "handled" : "queued")
        if outcome == .queued, !pendingEvents.contains(where: { if case .queued = $0 { true } else { false } }) {
            result.lines.append("\(message.name) is queued; see 'queue'")
        }
        if rendering, let view = currentView, scene.displayCount != before {
            result.show(view)
        }
        return result
    }

    // MARK: Pages

    /// Opens `request` by sending `globalDisplay` from the current page, as a page view would.
    package func open(_ request: RouteRequest, trace: DispatchTrace?, rendering: Bool = true) throws -> CommandResult {
        let message = Message(AppCoordinator.globalDisplay, Arguments([("page", .route(request))]), from: currentView ?? scene)
        var result = try send(message, from: currentView ?? scene, trace: trace, rendering: rendering)
        if rendering, result.page == nil, let view = currentView {
            result.show(view)
        }
        return result
    }

    /// The page as text, for the interactive start.
    func render(_ view: PageView) -> [String] {
        CommandResult.lines(of: view.measuredRender())
    }
}
