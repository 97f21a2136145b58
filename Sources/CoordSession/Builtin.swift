import CoordLoading
import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

/// A command of the shell itself, as opposed to a feature's message: declared as one is, by
/// its forms (`BuiltinForm`), from which its usage, its parsing and its completion come.
@MainActor
struct Builtin {
    /// Where Tab finds an argument's values: given the session, the words typed for this
    /// argument so far (a route's, a rest's; otherwise those before it) and the partial word.
    typealias Values = @MainActor @Sendable (Session, _ before: [String], _ word: String) -> [String]

    let name: String
    let summary: String
    let forms: [BuiltinForm]
    let run: @MainActor (Session, BuiltinInvocation) throws -> CommandResult
    /// Takes `--format dot|mermaid|svg` and then prints a picture instead of text.
    let draws: Bool
    /// Reads or changes the scene (its page, its chain, its queue): a script's start page is
    /// opened before it runs. One that does not (`help`, `pages`, `plugins`, `config`, `echo`,
    /// `quit`) reads the app's registry only, so a script of those loads no plugin's image
    /// (see `Session.startRoute`).
    let usesScene: Bool

    init(
        _ name: String, _ summary: String, _ forms: [BuiltinForm] = [BuiltinForm()], draws: Bool = false, usesScene: Bool = true,
        run: @escaping @MainActor (Session, BuiltinInvocation) throws -> CommandResult
    ) {
        self.name = name
        self.summary = summary
        self.forms = forms
        self.draws = draws
        self.usesScene = usesScene
        self.run = run
    }

    /// The builtins of a session; `supervised`: the app runs in a process a front supervises,
    /// which answers `restart` and `plugins upgrade` itself (`FrontCommand`), declared here so
    /// that help and completion show them.
    static func all(supervised: Bool) -> [Builtin] {
        var list = [help, plugins(supervised: supervised)] + rest
        if supervised {
            list.insert(Builtin(FrontCommand.restart.usage, FrontCommand.restart.summary) { _, _ in
                throw FrontCommand.restart.unanswered(supervised: true)
            }, at: list.count - 1)
        }
        return list
    }

    // MARK: Declarations

    private static let loadedNames: Values = { session, _, _ in session.loader.loaded.map(\.origin.name) }

    static let help = Builtin("help", "list commands, a feature's messages, one message or one page", [
        BuiltinForm(),
        BuiltinForm([], [Parameter("prefix", .string), Parameter("verb", .string, optional: true)], values: [
            "prefix": { session, _, _ in session.builtins.map(\.name) + session.app.features.features.map(\.definition.prefix) },
            "verb": { session, before, _ in session.app.features.feature(prefix: before.first ?? "")?.definition.messages.map(\.verb) ?? [] },
        ]),
        BuiltinForm([], [Parameter("route", .route)], values: ["route": { session, before, _ in before.isEmpty ? session.routeNames : [] }]),
    ], usesScene: false, run: help)

    static func plugins(supervised: Bool) -> Builtin {
        let name = Parameter("name", .string)
        var forms = [
            BuiltinForm(),
            BuiltinForm([], [name], values: ["name": loadedNames]),
            BuiltinForm(["load"], [Parameter("path", .string)]),
            BuiltinForm(["rescan"]),
            BuiltinForm(["stats"]),
            BuiltinForm(["stats", "reset"]),
            BuiltinForm(["allow"], [name], values: ["name": { session, _, _ in session.loader.quarantine.map { Array($0.entries().keys) } ?? [] }]),
            BuiltinForm(["grant"], [name, Parameter("what", .string, optional: true)], rest: .words, values: ["name": loadedNames]),
            BuiltinForm(["revoke"], [name, Parameter("what", .string, optional: true)], rest: .words, values: ["name": loadedNames]),
        ]
        forms.append(BuiltinForm([FrontCommand.upgrade.words[1]], listed: supervised))
        let summary = "list loaded and refused plugins, load one, look for new ones, let a quarantined one load again, grant or take back what an outside one asks for, or show what each one's code cost"
        return Builtin("plugins", summary + (supervised ? "; upgrade: \(FrontCommand.upgrade.summary)" : ""), forms, usesScene: false, run: plugins)
    }

    private static let rest: [Builtin] = [
        Builtin("pages", "list every registered route with its parameters", usesScene: false, run: pages),
        Builtin("open", "open a page: feature/page key=value … or coordsh://feature/page?key=value",
                [BuiltinForm([], [Parameter("route", .route)], values: ["route": { session, before, word in session.routeCompletions(before, word: word) }])], run: open),
        Builtin("back", "go back to the previous page", run: back),
        Builtin("where", "the current route and the chain from the page up to the app", run: whereCommand),
        Builtin("tree", "the coordinator tree (--format dot|mermaid|svg draws it)", draws: true, run: tree),
        Builtin("map", "every feature, its pages and the messages between features, seen and declared (--format dot|mermaid|svg draws it)",
                draws: true, run: map),
        Builtin("deps", "what AppDependency holds at the current coordinator", run: deps),
        Builtin("queue", "queued messages per coordinator", run: queue),
        Builtin("scenes", "the open scenes: one per terminal or client of the app", run: scenes),
        Builtin("trace", "run a command and show every hop of its message (--format dot|mermaid|svg first draws it)",
                [BuiltinForm([], [Parameter("command", .string)], rest: .words, values: ["command": { session, before, word in session.lineCompletions(before, word: word) }])],
                draws: true, run: trace),
        Builtin("config", "which config file is in force, every value and where it came from", usesScene: false, run: config),
        Builtin("echo", "print TEXT (for scripts)", [BuiltinForm([], [Parameter("text", .string)], rest: .text)], usesScene: false, run: echo),
        Builtin("quit", "leave the shell", usesScene: false, run: quit),
    ]

    static func echo(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        let text = call["text"] ?? ""
        return CommandResult(lines: [text], json: ["echo": .string(text)])
    }

    static func help(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        if let route = call.route {
            return try helpRoute(session, "\(route.feature)/\(route.page)")
        }
        if let prefix = call["prefix"], let verb = call["verb"] {
            guard let feature = session.app.features.feature(prefix: prefix) else {
                throw CoordError.unknownFeature(prefix, suggestion: Suggest.closest(to: prefix, in: session.app.features.features.map(\.definition.prefix)))
            }
            return try helpVerb(feature, verb)
        }
        if let prefix = call["prefix"] {
            guard let feature = session.app.features.feature(prefix: prefix) else {
                let known = session.app.features.features.map(\.definition.prefix) + session.builtins.map(\.name)
                if let builtin = session.builtin(named: prefix) {
                    return CommandResult(lines: ["\(builtin.usage)  — \(builtin.summary)"], json: ["command": .string(builtin.name), "usage": .string(builtin.usage), "summary": .string(builtin.summary)])
                }
                throw CoordError.unknownFeature(prefix, suggestion: Suggest.closest(to: prefix, in: known))
            }
            let d = feature.definition
            var lines = ["\(d.prefix) — \(d.summary.isEmpty ? d.name : d.summary)"]
            for spec in d.messages {
                let args = spec.arguments.map { $0.isOptional ? "[\($0.name.uppercased())]" : $0.name.uppercased() }
                lines.append("  \(([d.prefix, spec.verb] + args).joined(separator: " "))".column(36) + " \(spec.summary)")
            }
            lines.append("pages:")
            for page in feature.pageCases { lines.append("  \(d.name)/\(page.signature)".column(36) + " \(page.summary)") }
            return CommandResult(lines: lines, json: [
                "feature": .string(d.name), "prefix": .string(d.prefix),
                "messages": JSONValue(d.messages.map { ["verb": .string($0.verb), "name": .string(d.messageName($0.verb).string), "arguments": .array($0.arguments.map(parameterJSON)), "summary": .string($0.summary)] }),
                "pages": .array(feature.pageCases.map { pageCaseJSON(d.name, $0) }),
            ])
        }
        var lines = ["Commands:"]
        for b in session.builtins { lines.append("  \(b.usage)".column(30) + " \(b.summary)") }
        lines.append("Features (type PREFIX VERB [ARGS], 'help PREFIX' for details):")
        for f in session.app.features.features {
            lines.append("  \(f.definition.prefix)".column(30) + " \(f.definition.messages.map(\.verb).joined(separator: ", "))")
        }
        return CommandResult(lines: lines, json: [
            "commands": JSONValue(session.builtins.map { ["name": .string($0.name), "usage": .string($0.usage), "summary": .string($0.summary)] }),
            "features": JSONValue(session.app.features.features.map { ["prefix": .string($0.definition.prefix), "verbs": JSONValue($0.definition.messages.map(\.verb))] }),
        ])
    }

    /// `help cart add`: usage, what it does, each argument with its type and description.
    static func helpVerb(_ feature: Feature, _ verb: String) throws -> CommandResult {
        let d = feature.definition
        guard let spec = feature.message(verb: verb) else {
            throw CoordError.unknownVerb(prefix: d.prefix, verb: verb, suggestion: Suggest.closest(to: verb, in: d.messages.map(\.verb)))
        }
        let usage = ([d.prefix, spec.verb] + spec.arguments.map { $0.isOptional ? "[\($0.name.uppercased())]" : $0.name.uppercased() })
            .joined(separator: " ")
        var lines = ["usage: \(usage)", "  \(spec.summary)", "  sends \(d.messageName(verb)) up the chain from the current page"]
        if !spec.arguments.isEmpty { lines.append("arguments (positional, NAME=VALUE or --NAME VALUE):") }
        for p in spec.arguments { lines.append(argumentLine(p)) }
        return CommandResult(lines: lines, json: [
            "usage": .string(usage), "name": .string(d.messageName(verb).string), "summary": .string(spec.summary),
            "arguments": .array(spec.arguments.map(parameterJSON)),
        ])
    }

    /// `help content/product`: the page, its parameters, and how to open it.
    static func helpRoute(_ session: Session, _ text: String) throws -> CommandResult {
        let parts = text.split(separator: "/", maxSplits: 1).map(String.init)
        let features = session.app.features
        guard parts.count == 2, let feature = features.feature(named: parts[0]) else {
            throw CoordError.unknownFeature(parts[0], suggestion: Suggest.closest(to: parts[0], in: features.features.map(\.name)))
        }
        guard let page = feature.pageCases.first(where: { $0.name == parts[1] }) else {
            throw CoordError.unknownPage(feature: parts[0], page: parts[1], suggestion: Suggest.closest(to: parts[1], in: feature.pageCases.map(\.name)))
        }
        let example = ([text] + page.parameters.filter { !$0.isOptional }.map { "\($0.name)=…" }).joined(separator: " ")
        var lines = ["page \(feature.name)/\(page.signature)", "  \(page.summary)", "  open \(example)"]
        if !page.parameters.isEmpty { lines.append("parameters:") }
        for p in page.parameters { lines.append(argumentLine(p)) }
        return CommandResult(lines: lines, json: pageCaseJSON(feature.name, page).object ?? [:])
    }

    static func argumentLine(_ p: Parameter) -> String {
        let head = "  \(p.name) (\(p.type.rawValue)\(p.isOptional ? ", optional" : "")\(p.isSecret ? ", secret: kept out of history" : ""))"
        return head + String(repeating: " ", count: max(1, 37 - head.count)) + p.summary
    }

    /// A refused plugin file in a `--json` document.
    static func refusalJSON(_ refusal: PluginRefusal) -> JSONObject {
        ["file": .string(refusal.path), "kind": .string(refusal.kind.rawValue), "reason": .string(refusal.reason)]
    }

    static func parameterJSON(_ p: Parameter) -> JSONValue {
        ["name": .string(p.name), "type": .string(p.type.rawValue), "optional": .bool(p.isOptional), "summary": .string(p.summary)]
    }

    static func pageCaseJSON(_ feature: String, _ page: PageCase) -> JSONValue {
        ["route": .string("\(feature)/\(page.name)"), "parameters": .array(page.parameters.map(parameterJSON)), "summary": .string(page.summary)]
    }

    /// `read products (granted), service secrets (not granted)`.
    static func usesText(_ session: Session, _ feature: Feature) -> String {
        let granted = session.host.access.grants.granted(feature.uses, origin: feature.origin)
        return feature.uses.map { "\($0) (\(granted.contains($0) ? "granted" : "not granted"))" }.joined(separator: ", ")
    }

    /// `plugins NAME`: where it is from, whether it is bundled, and per feature what it
    /// declares it uses and what of that it was granted.
    static func pluginDetail(_ session: Session, _ plugin: LoadedPlugin) -> CommandResult {
        let grants = session.host.access.grants
        var lines = ["\(plugin.origin.name) \(plugin.origin.version)  \(plugin.origin.path)",
                     grants.isBundled(plugin.origin) ? "bundled with coordsh: what it declares is granted"
                        : "outside plugin: granted what it declares and the person gave it (at a terminal, 'plugins grant', or [plugins.grants])"]
        var features: [JSONObject] = []
        for name in plugin.features {
            guard let feature = session.app.features.feature(named: name) else { continue }
            let granted = grants.granted(feature.uses, origin: feature.origin)
            lines.append("feature \(name) (prefix \(feature.definition.prefix)): " + (feature.uses.isEmpty ? "uses nothing beyond its own tables" : "uses " + usesText(session, feature)))
            let ungranted = feature.uses.filter { !granted.contains($0) }
            if !ungranted.isEmpty {
                lines.append("  to grant: 'plugins grant \(plugin.origin.name)' at a terminal, or the config's [plugins.grants] \(plugin.origin.name) = [\(ungranted.map { "\"\($0)\"" }.joined(separator: ", "))]")
            }
            features.append(["name": .string(name), "uses": JSONValue(feature.uses.map(\.description)), "granted": JSONValue(granted.map(\.description))])
        }
        return CommandResult(lines: lines, json: [
            "name": .string(plugin.origin.name), "version": .string(plugin.origin.version), "file": .string(plugin.origin.path),
            "bundled": .bool(grants.isBundled(plugin.origin)), "features": JSONValue(features),
        ])
    }

    static func plugins(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        if call.subcommand == FrontCommand.upgrade.words[1] { throw FrontCommand.upgrade.unanswered(supervised: session.host.hasFront) }
        if call.subcommand == "stats" { return try pluginStats(session, reset: call.form.words.count == 2) }
        if call.subcommand == "rescan" {
            let (loaded, refused) = session.loader.rescan()
            var lines = loaded.map { "loaded plugin \($0.origin.name) \($0.origin.version) from \($0.origin.path)" }
            lines += refused.map(\.description)
            if lines.isEmpty { lines = ["no new or changed plugins in \(session.loader.directories.joined(separator: ", "))"] }
            return CommandResult(lines: lines, json: [
                "loaded": JSONValue(loaded.map { ["name": .string($0.origin.name), "version": .string($0.origin.version), "file": .string($0.origin.path)] }),
                "refused": JSONValue(refused.map(refusalJSON)),
            ])
        }
        if let verb = call.subcommand.flatMap(GrantCommand.Verb.init(rawValue:)) {
            let rest = [call["name"] ?? ""] + call.rest
            let plugin = rest.first.flatMap { session.grantView(of: $0) }
            let (found, capabilities) = try GrantCommand.resolve(verb, rest, plugin: plugin)
            let result = try GrantCommand.apply(
                verb, found, capabilities, store: session.host.grantStore, configured: session.host.access.grants.configured[found.name] ?? [])
            session.host.regrant()
            return result
        }
        if call.subcommand == "allow", let name = call["name"] {
            guard let quarantine = session.loader.quarantine, (try? quarantine.remove(name)) == true else {
                throw ShellError("plugins allow: no plugin named '\(name)' is quarantined", code: "not_quarantined", status: .failure)
            }
            var lines = ["plugin \(name) is no longer quarantined"]
            // Load it now from where it was refused.
            for refusal in session.loader.refused where refusal.kind == .quarantined && refusal.plugin == name {
                do {
                    let plugin = try session.loader.load(refusal.path)
                    lines.append("loaded plugin \(plugin.origin.name) \(plugin.origin.version) from \(plugin.origin.path)")
                } catch {
                    lines.append(error.description)
                }
            }
            return CommandResult(lines: lines, json: ["allowed": .string(name)])
        }
        if call.subcommand == "load", let path = call["path"] {
            do {
                let plugin = try session.loader.load(path)
                return CommandResult(lines: ["loaded plugin \(plugin.origin.name) \(plugin.origin.version) from \(plugin.origin.path)"], json: ["loaded": .string(plugin.origin.name)])
            } catch {
                throw ShellError(error.description, code: error.kind.rawValue, status: .failure)
            }
        }
        if let name = call["name"] {
            guard let plugin = session.loader.loaded.first(where: { $0.origin.name == name }) else {
                throw ShellError("no plugin named '\(name)' is loaded; 'plugins' lists them", code: "unknown_plugin", status: .failure)
            }
            return pluginDetail(session, plugin)
        }
        var lines: [String] = []
        var loaded: [JSONObject] = []
        for plugin in session.loader.loaded {
            for name in plugin.features {
                guard let feature = session.app.features.feature(named: name) else { continue }
                let pages = feature.pageCases.count
                // Swift images are never unloaded: a plugin whose file was removed or renamed
                // stays loaded, and says so.
                let gone = !FileManager.default.fileExists(atPath: plugin.origin.path)
                // A plugin registered from the registry cache is loaded when first needed.
                let state = plugin.isLoaded
                    ? (gone ? "  (file gone since it was loaded; loaded until coordsh restarts)" : "")
                    : "  registered, loaded on first use"
                lines.append("\(plugin.origin.name) \(plugin.origin.version)  prefix \(feature.definition.prefix)  \(pages) page\(pages == 1 ? "" : "s")  \(plugin.origin.path)" + state)
                if !feature.uses.isEmpty { lines.append("  uses " + usesText(session, feature)) }
                loaded.append([
                    "name": .string(plugin.origin.name), "version": .string(plugin.origin.version), "prefix": .string(feature.definition.prefix),
                    "pages": .int(pages), "file": .string(plugin.origin.path), "vetted": plugin.vettedNow ? "now" : "cached", "fileGone": .bool(gone),
                    "loaded": .bool(plugin.isLoaded), "uses": JSONValue(feature.uses.map(\.description)),
                    "granted": JSONValue(session.host.access.grants.granted(feature.uses, origin: feature.origin).map(\.description)),
                    "bundled": .bool(session.host.access.grants.isBundled(feature.origin)),
                ])
            }
        }
        if loaded.isEmpty { lines.append("no plugins loaded") }
        for refusal in session.loader.refused { lines.append("refused \(refusal.path): \(refusal.reason)") }
        return CommandResult(lines: lines, json: [
            "vetting_processes": .int(session.loader.vettingChildren),
            "images_loaded": .int(session.loader.imagesLoaded),
            "files_opened": .int(session.loader.filesOpened),
            "plugins": JSONValue(loaded),
            "refused": JSONValue(session.loader.refused.map(refusalJSON)),
            "asks": JSONValue(session.grantRequests().map(\.json)),
        ])
    }

    static func pages(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        let routes = session.app.features.routes
        return CommandResult(
            lines: routes.map { "\($0.feature.name)/\($0.page.signature)" },
            json: ["pages": .array(routes.map { pageCaseJSON($0.feature.name, $0.page) })])
    }

    static func open(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        guard let route = call.route else { throw ShellError("usage: open ROUTE (e.g. open content/product id=7)", code: "usage", status: .usage) }
        return try session.open(route, trace: nil)
    }

    static func back(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        guard session.scene.back(), let view = session.currentView else {
            throw ShellError("nowhere to go back to", code: "no_history", status: .failure)
        }
        var result = CommandResult()
        result.show(view)
        return result
    }

    static func whereCommand(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        let start: Responder = session.currentView ?? session.scene
        let chain = start.chain.map(\.chainDescription)
        let route = session.currentRoute
        return CommandResult(
            lines: ["route: \(route ?? "(no page)")"] + chain.enumerated().map { "  \($0.offset + 1). \($0.element)" },
            json: ["route": JSONValue(route), "chain": JSONValue(chain)])
    }

    static func tree(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        var lines: [String] = []
        func node(_ c: Coordinator) -> JSONValue {
            ["id": .string(c.identifier), "started": .bool(c.isStarted), "pages": JSONValue(c.viewStack.map { $0.page.route.description }),
             "children": .array(c.children.map(node))]
        }
        // The app and the caller's own scene: other scenes are other people's sessions.
        lines.append(session.app.chainDescription)
        session.scene.walk(1) { coordinator, depth in
            let active = coordinator === session.scene.activeCoordinator ? " *" : ""
            let pages = coordinator.viewStack.map { $0.page.route.description }
            let stack = pages.isEmpty ? "" : "  [\(pages.joined(separator: " › "))]"
            lines.append(String(repeating: "  ", count: depth) + coordinator.chainDescription + stack + active)
        }
        let others = session.app.scenes.count - 1
        if others > 0 { lines.append("  (\(others) other scene\(others == 1 ? "" : "s"); 'scenes' lists them)") }
        let app: JSONValue = ["id": .string(session.app.identifier), "started": .bool(session.app.isStarted), "pages": [], "children": [node(session.scene)]]
        return CommandResult(lines: lines, json: ["tree": app, "otherScenes": .int(others)])
            .drawn(call.format) { treeDiagram(session, otherScenes: others) }
    }

    static func deps(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        let coordinator = session.scene.activeCoordinator ?? session.scene
        let entries = coordinator.dependencies?.entries ?? []
        var lines = ["at \(coordinator.chainDescription):"]
        lines += entries.isEmpty ? ["  (no services)"] : entries.map { "  \($0.key)  from \($0.provider)  (\($0.type))" }
        return CommandResult(lines: lines, json: [
            "coordinator": .string(coordinator.identifier),
            "services": JSONValue(entries.map { ["key": .string($0.key), "provider": .string($0.provider), "type": .string($0.type)] }),
        ])
    }

    /// `scenes`: every open scene of the app — its id, who is at the other end, where it is and
    /// who is logged in there. The caller's is marked.
    static func scenes(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        var lines: [String] = []
        var json: [JSONObject] = []
        for other in session.host.sessions {
            let pid = other.peer.map { Int($0.pid) } ?? Int(getpid())
            let route = other.currentRoute ?? "-"
            let user = other.loggedIn
            let mark = other === session ? " *" : ""
            lines.append("\(other.scene.identifier)".column(10) + " pid \(pid)".column(12) + " \(route)".column(28) + " \(user ?? "(guest)")\(mark)")
            var entry: JSONObject = ["id": .string(other.scene.identifier), "pid": .int(pid), "route": .string(route), "you": .bool(other === session)]
            entry["user"] = user.map(JSONValue.string)
            json.append(entry)
        }
        return CommandResult(lines: lines, json: ["scenes": JSONValue(json)])
    }

    static func queue(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        var lines: [String] = []
        var json: [JSONObject] = []
        for level in session.queueHolders {
            let queued = level.queuedMessages
            guard !queued.isEmpty else { continue }
            lines.append("\(level.chainDescription): \(queued.count)/\(level.queueCapacity)")
            for entry in queued {
                lines.append("  \(entry.message) waiting for \(entry.waitingFor.joined(separator: ", "))")
            }
            json.append(["level": .string(level.chainDescription), "capacity": .int(level.queueCapacity),
                         "messages": JSONValue(queued.map { ["message": .string($0.message.name.string), "waitingFor": JSONValue($0.waitingFor)] })])
        }
        if lines.isEmpty { lines = ["no queued messages"] }
        return CommandResult(lines: lines, json: ["queues": JSONValue(json)])
    }

    static func trace(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        guard let name = call.rest.first else { throw ShellError("usage: trace COMMAND… (e.g. trace cart add 7)", code: "usage", status: .usage) }
        let rest = Array(call.rest.dropFirst())
        let message: Message
        var result: CommandResult
        let trace: DispatchTrace
        if name == "open" {
            let request = try RouteRequest.parse(words: rest)
            trace = DispatchTrace(message: "globalDisplay(page: \(request))")
            result = try session.open(request, trace: trace)
        } else if let feature = session.app.features.feature(prefix: name) {
            message = try session.message(for: feature, rest)
            trace = DispatchTrace(message: message.description)
            result = try session.send(message, from: message.sender ?? session.scene, trace: trace)
        } else {
            throw ShellError("trace takes a feature command or open, e.g. 'trace cart add 7'", code: "usage", status: .usage)
        }
        var lines = ["trace \(trace.message):"]
        lines += trace.hops.enumerated().map { "  \($0.offset + 1). \($0.element.level) — \($0.element.action)" }
        result.lines = lines + result.lines
        result.json["trace"] = JSONValue(trace.hops.map { ["level": .string($0.level), "action": .string($0.action.description)] })
        return result.drawn(call.format) { traceDiagram(trace) }
    }

    static func quit(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        var result = CommandResult(json: ["quit": true])
        result.quit = true
        return result
    }
}

extension String {
    /// Pads to `width` for a column, never cutting: a longer text gets one space.
    func column(_ width: Int) -> String {
        count < width ? padding(toLength: width, withPad: " ", startingAt: 0) : self + " "
    }
}
