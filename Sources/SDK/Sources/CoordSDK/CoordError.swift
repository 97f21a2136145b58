/// Every error the SDK reports to a user, each with a one-line message.
///
/// The shell prints `message` as is, so each case says what was wrong, with which input, and
/// where it can, what was probably meant. `code` is a stable machine-readable name for `--json`.
public enum CoordError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A route or command named a feature nobody registered; `suggestion` is the closest name.
    case unknownFeature(String, suggestion: String?)
    /// A route named a page its feature does not have; `suggestion` is the closest page.
    case unknownPage(feature: String, page: String, suggestion: String?)
    /// A route or message gave a parameter nobody declared (`known` lists the declared ones).
    case unknownParameter(String, context: String, suggestion: String?, known: [String])
    /// The same parameter was given twice.
    case duplicateParameter(String, context: String)
    /// A required parameter was not given: the message names it and its type.
    case missingParameter(Parameter, context: String)
    /// A value that does not read as its declared type (`id=seven` for an `Int`).
    case illTypedParameter(String, expected: ValueType, got: String, context: String)
    /// A route that does not parse (`feature/page key=value …`, or a `coordsh://` URL).
    case malformedRoute(String, reason: String)
    /// A message whose prefix no feature routes; `suggestion` is the closest command.
    case unknownMessage(String, suggestion: String?)
    /// A feature's prefix with a verb it does not declare (`cart ad`).
    case unknownVerb(prefix: String, verb: String, suggestion: String?)
    /// A message went up the whole chain (`path`, level by level) and nobody handled it.
    case unhandledMessage(String, path: [String])
    /// A message sent by code did not match the receiving feature's declaration; refused at
    /// the feature's door before any handler ran. `expected` is the declared signature.
    case malformedMessage(String, reason: String, expected: String)
    /// The level whose handler passed the message on left the tree while handling it (it
    /// stopped its own coordinator, closed its own page), and no level had handled it.
    case leftTree(message: String, level: String)
    /// A level's queue of waiting messages is full: the message is refused rather than kept
    /// without bound while a service stays missing.
    case queueFull(message: String, at: String, capacity: Int)
    /// A feature could not be registered (a name, prefix or route another feature has).
    case registration(String)
    /// A coordinator was used before it was started in a scene.
    case notStarted(String)
    /// A plugin misbehaved in a way the host caught (its entry, its registration).
    case plugin(String)
    /// A handler's own failure (unknown product, empty cart, …), said in the plugin's words.
    case failed(String)
    /// The data store could not do what was asked: locked, read-only, not a database.
    case database(String)
    /// Plugin code reached for something it did not declare or was not granted (another
    /// feature's table, a guarded service): refused before anything ran. `plugin` names the
    /// plugin to grant it to, when known.
    case notGranted(Capability, context: String, plugin: String?)

    /// A stable machine-readable name for the failure (`unknown_feature`, `not_granted`, …):
    /// what `--json` and the protocol carry, so scripts never match on the message text.
    public var code: String {
        switch self {
        case .unknownFeature: "unknown_feature"
        case .unknownPage: "unknown_page"
        case .unknownParameter: "unknown_parameter"
        case .duplicateParameter: "duplicate_parameter"
        case .missingParameter: "missing_parameter"
        case .illTypedParameter: "ill_typed_parameter"
        case .malformedRoute: "malformed_route"
        case .unknownMessage: "unknown_message"
        case .unknownVerb: "unknown_verb"
        case .unhandledMessage: "unhandled_message"
        case .malformedMessage: "malformed_message"
        case .leftTree: "left_tree"
        case .queueFull: "queue_full"
        case .registration: "registration"
        case .notStarted: "not_started"
        case .plugin: "plugin"
        case .failed: "failed"
        case .database: "database"
        case .notGranted: "not_granted"
        }
    }

    /// The error in one line: what a person typed or a plugin sent is quoted back in it, and a
    /// line break or another control character there is shown escaped (`\r`, `\u{1B}`), so
    /// that the error stays one line and cannot move the terminal's cursor.
    public var message: String { Self.oneLine(text) }

    /// `text` with every line break and control character written as an escape.
    public static func oneLine(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: isControl) else { return text }
        var line = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\n": line += "\\n"
            case "\r": line += "\\r"
            case "\t": line += "\\t"
            case _ where isControl(scalar): line += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
            default: line.unicodeScalars.append(scalar)
            }
        }
        return line
    }

    /// C0 and C1 controls, DEL, and the Unicode line and paragraph separators: what breaks a
    /// line (Swift's `isNewline` counts all of these) or steers a terminal.
    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }

    private var text: String {
        func hint(_ s: String?) -> String { s.map { " (did you mean '\($0)'?)" } ?? "" }
        switch self {
        case .unknownFeature(let f, let s):
            return "unknown feature '\(f)'\(hint(s)); 'plugins' lists the loaded ones"
        case .unknownPage(let f, let p, let s):
            return "unknown page '\(f)/\(p)'\(hint(s.map { "\(f)/\($0)" })); 'pages' lists every route"
        case .unknownParameter(let n, let c, let s, let known):
            let list = known.isEmpty ? "it takes no parameters" : "it takes \(known.joined(separator: ", "))"
            return "\(c): unknown parameter '\(n)'\(hint(s)); \(list)"
        case .duplicateParameter(let n, let c):
            return "\(c): parameter '\(n)' given twice"
        case .missingParameter(let p, let c):
            return "\(c): missing parameter '\(p.name)' (\(p.type.rawValue))"
        case .illTypedParameter(let n, let t, let got, let c):
            return "\(c): parameter '\(n)' must be \(t == .int ? "an" : "a") \(t.rawValue), got '\(got)'"
        case .malformedRoute(let r, let reason):
            return "malformed route '\(r)': \(reason)"
        case .unknownMessage(let m, let s):
            return "unknown message '\(m)'\(hint(s))"
        case .unknownVerb(let p, let v, let s):
            return "'\(p)' has no command '\(v)'\(hint(s.map { "\(p) \($0)" })); try 'help \(p)'"
        case .unhandledMessage(let m, let path):
            return "nobody handled '\(m)' (it went \(path.joined(separator: " → ")))"
        case .malformedMessage(let m, let reason, let expected):
            return "\(m): \(reason) (expected \(expected))"
        case .leftTree(let m, let level):
            return "'\(m)' went no further: \(level) left the tree while handling it, and nobody had handled it"
        case .queueFull(let m, let at, let capacity):
            return "cannot queue '\(m)' at \(at): its queue is full (\(capacity) messages)"
        case .registration(let s), .plugin(let s), .failed(let s), .database(let s):
            return s
        case .notStarted(let c):
            return "coordinator '\(c)' is not started"
        case .notGranted(let capability, let context, let plugin):
            let how = plugin.map { "the plugin '\($0)' must declare it and be granted it ('plugins grant \($0) \(capability)' at a terminal, or the config's [plugins.grants] \($0) = [\"\(capability)\"])" }
                ?? "the feature must declare it and be granted it"
            return "\(context): refused '\(capability)': \(how)"
        }
    }

    public var description: String { message }
}
