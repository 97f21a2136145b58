import CoordSDK

/// What one shell command produced: text for people and a JSON document for machines.
///
/// Every command builds both from the same data, so `--json` can never drift from what the
/// text shows.
public struct CommandResult {
    /// Lines for stdout in text mode.
    public var lines: [String]
    /// The document `--json` prints: a dictionary of JSON-compatible Foundation values.
    public var json: [String: Any]
    /// Set by `quit`.
    public var quit = false

    public init(lines: [String] = [], json: [String: Any] = [:]) {
        self.lines = lines
        self.json = json
    }

    /// Adds the page `view` shows, as text and as the `page` document. The view renders once:
    /// rendering may read the database (the cart prices its lines).
    @MainActor mutating func show(_ view: PageView) {
        let rendering = view.render()
        lines += Self.lines(of: rendering)
        var page: [String: Any] = [
            "route": view.page.route.description, "url": view.page.route.url,
            "title": rendering.title, "lines": rendering.lines,
        ]
        if !rendering.fields.isEmpty { page["fields"] = rendering.fields }
        json["page"] = page
    }

    /// A rendering as the shell prints it: the title as a heading, then the body.
    static func lines(of rendering: Rendering) -> [String] {
        ["── \(rendering.title) ──"] + rendering.lines
    }
}

/// A command that did not work, with the exit status batch mode ends with.
public struct ShellError: Error, CustomStringConvertible {
    public enum Status: Int32, Sendable {
        /// The command itself was wrong: unknown command, route or parameter, bad argument.
        case usage = 2
        /// The command was well formed but failed when it ran.
        case failure = 1
    }

    public let message: String
    public let code: String
    public let status: Status

    /// `message` becomes one line: what it quotes back (a word typed, a value sent) has its
    /// line breaks and control characters escaped (see `CoordError.oneLine`).
    public init(_ message: String, code: String, status: Status) {
        self.message = CoordError.oneLine(message)
        self.code = code
        self.status = status
    }

    public var description: String { message }
}
