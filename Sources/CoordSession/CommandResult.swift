import CoordProtocol
@_spi(Host) import CoordSDK

/// What one shell command produced: text for people and a JSON document for machines.
///
/// Every command builds both from the same data, so `--json` can never drift from what the
/// text shows.
public struct CommandResult {
    /// Lines for stdout in text mode.
    public var lines: [String]
    /// The `--json` document's keys other than `page`.
    public var json: JSONObject
    /// The page the command showed, rendered once; nil when it showed none.
    public private(set) var page: ShownPage?
    /// Set by `quit`.
    public var quit = false
    /// The message a command sent and what became of it (`handled`, `queued`): the document's
    /// `message` and `outcome`, kept as two strings until a document is asked for — a script
    /// run as text never asks, and the dictionary made for every command was ≈ 1 % of one.
    private var sent: (message: String, outcome: String)?

    public init(lines: [String] = [], json: JSONObject = [:]) {
        self.lines = lines
        self.json = json
    }

    /// The result of sending `message`, before any page it showed.
    init(sent message: String, outcome: String) {
        self.init()
        sent = (message, outcome)
    }

    /// Whether the document has keys other than `ok` (a blank line's result has none).
    var hasDocumentKeys: Bool { sent != nil || !json.isEmpty || page != nil }

    /// Adds the page `view` shows, as text and for the `page` document. The view renders once:
    /// rendering may read the database (the cart prices its lines).
    @MainActor mutating func show(_ view: PageView) {
        let shown = ShownPage(route: view.pageRoute, rendering: view.measuredRender())
        Self.append(shown.rendering, to: &lines)
        page = shown
    }

    /// The `--json` document (without `ok`): built only when something asks for it — a script
    /// run as text never does.
    public var document: JSONObject {
        var document = json
        if let sent {
            if document["message"] == nil { document["message"] = .string(sent.message) }
            if document["outcome"] == nil { document["outcome"] = .string(sent.outcome) }
        }
        if let page { document["page"] = .object(page.document) }
        return document
    }

    /// A rendering as the shell prints it: the title as a heading, then the body.
    static func lines(of rendering: Rendering) -> [String] {
        var lines: [String] = []
        append(rendering, to: &lines)
        return lines
    }

    /// The page's title line and lines added to `lines` with one allocation (a one-line array
    /// joined with the page's, then appended, made two more and copied the lines twice).
    private static func append(_ rendering: Rendering, to lines: inout [String]) {
        lines.reserveCapacity(lines.count + 1 + rendering.lines.count)
        // Its storage sized once: an interpolation guesses from its literals, and a title
        // longer than the guess made it grow (and copy) at every page.
        var title = String()
        title.reserveCapacity(rendering.title.utf8.count + 14)
        title += "── "
        title += rendering.title
        title += " ──"
        lines.append(title)
        lines.append(contentsOf: rendering.lines)
    }
}

/// A page a command showed: where it is and what it rendered.
public struct ShownPage {
    public let route: RouteRequest
    public let rendering: Rendering

    /// The `page` object of the `--json` document.
    var document: JSONObject {
        var page: JSONObject = [
            "route": .string(route.description), "url": .string(route.url), "title": .string(rendering.title), "lines": JSONValue(rendering.lines),
        ]
        if !rendering.fields.isEmpty { page["fields"] = .object(rendering.fields.mapValues(JSONValue.string)) }
        return page
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
