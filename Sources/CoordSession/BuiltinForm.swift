import CoordPicture
@_spi(Host) import CoordSDK
import CoordRuntime

/// One way to call a built-in command, declared as a feature's message is (the SDK's
/// `Parameter`s): its sub-command words, then its arguments in order. Its usage, its parsing
/// and its completion all come from this declaration, so `help`, an error and Tab cannot
/// say different things.
struct BuiltinForm: Sendable {
    /// How the last argument takes what is left of the line.
    enum Rest: Sendable {
        /// The words as they are (`trace COMMAND…`, `plugins grant NAME [WHAT…]`).
        case words
        /// The words joined with spaces (`echo TEXT`).
        case text
    }

    /// Literal words that select this form (`load` in `plugins load PATH`); empty for a form
    /// told apart by its arguments alone.
    let words: [String]
    let arguments: [Parameter]
    /// Set when the last argument takes the rest of the line; a `.route` argument always does
    /// (`open content/product id=7`).
    let rest: Rest?
    /// Where Tab finds each argument's values, by its name (none: nothing to offer).
    let values: [String: Builtin.Values]
    /// False for a form that is parsed but offered nowhere: `plugins upgrade` where nothing
    /// answers it, which says why in one line instead of taking `upgrade` for a plugin's name.
    let listed: Bool

    init(_ words: [String] = [], _ arguments: [Parameter] = [], rest: Rest? = nil, values: [String: Builtin.Values] = [:], listed: Bool = true) {
        self.listed = listed
        self.words = words
        self.arguments = arguments
        self.rest = rest
        self.values = values
    }

    /// `load PATH`, `grant NAME [WHAT…]`, `[PREFIX [VERB]]`: the words, then each argument's
    /// name in capitals, an optional one in brackets (nested, as each needs the one before).
    var usage: String {
        var tail = ""
        for (index, argument) in arguments.enumerated().reversed() {
            var name = argument.name.uppercased()
            if index == arguments.count - 1, rest == .words { name += "…" }
            let inner = tail.isEmpty ? name : "\(name) \(tail)"
            tail = argument.isOptional ? "[\(inner)]" : inner
        }
        return (words + (tail.isEmpty ? [] : [tail])).joined(separator: " ")
    }

    /// Whether `args` start with this form's words.
    func selects(_ args: [String]) -> Bool {
        !words.isEmpty && args.starts(with: words)
    }

    /// The arguments after the form's words, or nil when they do not fit it. A route that
    /// is not one throws its own one-line reason.
    func parse(_ args: [String]) throws(CoordError) -> BuiltinInvocation? {
        var given = Array(args.dropFirst(words.count))
        var values: [String: String] = [:]
        var route: RouteRequest?
        var restWords: [String] = []
        for (index, argument) in arguments.enumerated() {
            let last = index == arguments.count - 1
            if given.isEmpty {
                guard argument.isOptional else { return nil }
                continue
            }
            if argument.type == .route {
                route = try RouteRequest.parse(words: given)
                given.removeAll()
            } else if last, let rest {
                restWords = given
                values[argument.name] = rest == .text ? given.joinedText(separator: " ") : given.first
                given.removeAll()
            } else {
                values[argument.name] = given.removeFirst()
            }
        }
        guard given.isEmpty else { return nil }
        return BuiltinInvocation(form: self, values: values, route: route, rest: restWords)
    }
}

/// A built-in command line parsed by its form: what each handler reads instead of words.
struct BuiltinInvocation {
    let form: BuiltinForm
    /// `--format dot|mermaid|svg`, for a builtin that draws (`tree`, `trace`, `map`).
    var format: PictureFormat?
    /// Each argument given, by name (a `.words` rest argument: its first word).
    let values: [String: String]
    /// The `.route` argument, parsed.
    let route: RouteRequest?
    /// The words the last argument took, when it takes the rest.
    let rest: [String]

    subscript(name: String) -> String? { values[name] }

    /// The sub-command chosen (`load`), or nil for a form without words.
    var subcommand: String? { form.words.first }
}

extension Builtin {
    /// `plugins [NAME | load PATH | …]`: one form as it is, several listed, in brackets when
    /// the bare command is one of them.
    var usage: String {
        let shown = forms.filter(\.listed).map(\.usage).filter { !$0.isEmpty }
        guard !shown.isEmpty else { return name }
        let bare = forms.contains { $0.words.isEmpty && $0.arguments.isEmpty }
        let joined = shown.joined(separator: " | ")
        return "\(name) " + (bare ? "[\(joined)]" : joined)
    }

    /// The form `args` call, parsed: the form whose words they start with (the longest such), else the first
    /// form without words that they fit (one taking a route tried first: a route is also a
    /// word). A line that fits none is a usage error that shows the usage — of the form its
    /// words chose, if any — or, for a command of one form taking a route, why the route is
    /// none.
    func invocation(_ args: [String]) throws -> BuiltinInvocation {
        guard draws else { return try parse(args) }
        var args = args, format: PictureFormat?
        // `--format F` first (`trace --format svg cart add 7`: what follows is the traced
        // command's), or anywhere for a builtin that takes nothing else (`tree --format dot`).
        let takesRest = forms.contains { $0.rest != nil }
        if let at = (takesRest ? (args.first?.hasPrefix("--format") == true ? 0 : nil) : args.firstIndex { $0.hasPrefix("--format") }) {
            let word = args.remove(at: at)
            var value: String?
            if word.hasPrefix("--format=") {
                value = String(word.dropFirst("--format=".count))
            } else if word == "--format", at < args.count {
                value = args.remove(at: at)
            }
            guard let value, let chosen = PictureFormat(rawValue: value) else {
                let given = value.map { ", got '\($0)'" } ?? ""
                throw ShellError("\(name): --format takes dot, mermaid or svg\(given)", code: "usage", status: .usage)
            }
            format = chosen
        }
        var invocation = try parse(args)
        invocation.format = format
        return invocation
    }

    private func parse(_ args: [String]) throws -> BuiltinInvocation {
        // The form with the most of its words given (`plugins stats reset` over `plugins stats`).
        if let form = forms.filter({ $0.selects(args) }).max(by: { $0.words.count < $1.words.count }) {
            guard let parsed = try? form.parse(args) else {
                throw ShellError("usage: \(name) \(form.usage)", code: "usage", status: .usage)
            }
            return parsed
        }
        let open = forms.filter(\.words.isEmpty).sorted { a, b in
            (a.arguments.first?.type == .route ? 0 : 1) < (b.arguments.first?.type == .route ? 0 : 1)
        }
        var routeError: CoordError?
        for form in open {
            do {
                if let parsed = try form.parse(args) { return parsed }
            } catch {
                routeError = routeError ?? error
            }
        }
        if forms.count == 1, let routeError { throw routeError }
        if forms.count == 1, forms[0].arguments.isEmpty, forms[0].words.isEmpty {
            throw ShellError("\(name) takes no arguments, got '\(args.joined(separator: " "))'", code: "extra_argument", status: .usage)
        }
        throw ShellError("usage: \(usage)", code: "usage", status: .usage)
    }

    /// What Tab offers for `word` after `before` (the words after the command's name):
    /// sub-command words, then the values of the argument being typed.
    func completions(_ session: Session, after before: [String], word: String) -> [String] {
        var offers: [String] = []
        if before.isEmpty { offers += forms.filter(\.listed).compactMap(\.words.first) }
        for form in forms where !form.arguments.isEmpty {
            let typed: [String]
            if form.words.isEmpty {
                typed = before
            } else if before.starts(with: form.words) {
                typed = Array(before.dropFirst(form.words.count))
            } else {
                continue
            }
            // Past the last argument only one that takes the rest (or a route) goes on.
            let last = form.arguments.count - 1
            guard typed.count <= last || form.rest != nil || form.arguments[last].type == .route else { continue }
            let argument = form.arguments[min(typed.count, last)]
            // A route's parameters, or a rest's words, see everything typed from its start.
            let from = argument.type == .route || (form.rest != nil && typed.count >= last) ? Array(typed.dropFirst(last)) : typed
            offers += form.values[argument.name]?(session, from, word) ?? []
        }
        return offers
    }
}
