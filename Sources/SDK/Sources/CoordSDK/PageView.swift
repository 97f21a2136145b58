/// The headless view controller: renders one page as text and turns the user's input into
/// messages that start their trip up the chain here.
///
/// A page view never navigates by itself; it sends a message (`cartAdd`, `globalDisplay`) and
/// lets its coordinator or someone above it decide.
@MainActor
open class PageView: Responder {
    /// Isolated like `Responder`'s; written out for the module interface (see there).
    isolated deinit {}

    /// The page this view shows.
    public let page: any Page
    /// Its route, made once: showing, rendering and reporting a page each asked for it, and a
    /// route is made afresh from the page's arguments each time (four times a command).
    @_spi(Host) public let pageRoute: RouteRequest

    /// A view of `page`; the coordinator that shows it makes it in `makeView(for:)`.
    public init(page: any Page) {
        self.page = page
        pageRoute = page.route
        super.init(identifier: pageRoute.description)
        becomePage()
    }

    open override var chainDescription: String { "page \(pageRoute)" }

    /// The coordinator that shows this view.
    public var coordinator: Coordinator? { parent as? Coordinator }

    /// What the user sees. The default shows the page's route and arguments; features override
    /// it with their content.
    open func render() -> Rendering {
        Rendering(title: pageRoute.description, lines: [])
    }
}

/// A page as text, with an optional structured form for `--json`.
public struct Rendering: Sendable, Equatable {
    /// One line that names the page (the shell's heading).
    public var title: String
    /// The body, one string per line.
    public var lines: [String]
    /// Structured fields for machines; keys are stable names, values printable.
    public var fields: [String: String]

    /// What a page shows: the title as its heading, the lines as text, the fields for `--json`.
    public init(title: String, lines: [String], fields: [String: String] = [:]) {
        self.title = title
        self.lines = lines
        self.fields = fields
    }
}
