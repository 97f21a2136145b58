/// A page of a feature: each plugin's Page enum conforms, one case per screen, with the
/// screen's inputs as associated values (`case product(id: Int)`).
///
/// The shell has to list, complete, parse and open every page of plugins it has never seen,
/// so a Page type describes its cases as data (`cases`) and converts itself to and from a
/// `Route`. The contract suite checks that every case round-trips.
public protocol Page: Sendable {
    /// The feature this page belongs to (the plugin's feature name, e.g. `content`).
    static var feature: String { get }
    /// Every case of the enum, with its route name, typed parameters and a constructor.
    static var cases: [PageCase] { get }
    /// The route name of this value's case (`product`).
    var name: String { get }
    /// The associated values as named, typed arguments (`id=7`).
    var arguments: Arguments { get }
    /// The feature this value belongs to: `Self.feature`, which is what a Page enum has
    /// (given for you). A page of a feature described at run time (a C plugin's) says it
    /// per value.
    var pageFeature: String { get }
}

extension Page {
    /// `Self.feature`: every case of an enum belongs to the one feature.
    public var pageFeature: String { Self.feature }

    /// `content/product id=7`.
    public var route: RouteRequest {
        RouteRequest(
            feature: pageFeature, page: name,
            arguments: arguments.values.map { RouteRequest.Pair($0.name, $0.value.description) })
    }

    /// Builds a page of this type from a route, with one-line errors for an unknown page or a
    /// missing, unknown or ill-typed parameter.
    public static func make(from request: RouteRequest) throws(CoordError) -> any Page {
        guard let pageCase = cases.first(where: { $0.name == request.page }) else {
            throw .unknownPage(
                feature: request.feature, page: request.page,
                suggestion: Suggest.closest(to: request.page, in: cases.map(\.name)))
        }
        return try pageCase.make(request)
    }
}

/// The description of one Page case: its route name, parameters, a summary for help, and how
/// to construct it from validated arguments.
public struct PageCase: Sendable {
    /// The route's page name (`product` in `content/product`): lowercase, unique in the feature.
    public let name: String
    /// What the route takes, with types: the host validates a route against them before
    /// `construct` runs, so `construct` may unwrap what they guarantee.
    public let parameters: [Parameter]
    /// One line for `help content/product` and `pages`.
    public let summary: String
    let construct: @Sendable (Arguments) throws -> any Page

    /// One case of a hand-written Page (`@Page` writes these for you).
    ///
    ///     PageCase("item", [Parameter("id", .int, summary: "item number")], summary: "one item") { arguments in
    ///         WeatherPage.item(id: try arguments.requireInt("id"), days: nil)
    ///     }
    ///
    /// - Parameters:
    ///   - name: the route's page name.
    ///   - parameters: what the route takes, with types.
    ///   - summary: one line for `pages` and help.
    ///   - construct: builds the enum case from arguments that have already been validated
    ///     against `parameters`; read required ones with `requireInt`/`requireString` (they
    ///     cannot fail there, and never trap).
    public init(
        _ name: String, _ parameters: [Parameter] = [], summary: String = "",
        construct: @escaping @Sendable (Arguments) throws -> any Page
    ) {
        self.name = name
        self.parameters = parameters
        self.summary = summary
        self.construct = construct
    }

    /// Validates `request` against this case's parameters and constructs the page.
    public func make(_ request: RouteRequest) throws(CoordError) -> any Page {
        let arguments = try Arguments.validate(
            request.arguments.map { ($0.name, $0.text) }, against: parameters,
            context: "\(request.feature)/\(name)")
        do {
            return try construct(arguments)
        } catch let error as CoordError {
            throw error
        } catch {
            throw .failed("\(request.feature)/\(name): \(error)")
        }
    }

    /// `product id:int` — for `pages` and help.
    public var signature: String {
        ([name] + parameters.map(\.signature)).joined(separator: " ")
    }
}
