@_spi(Host) @testable import CoordSDK
import Testing

@Suite("Routes and pages")
@MainActor
struct RouteTests {
    @Test("the words form and the URL form parse to the same request")
    func bothForms() throws {
        let words = try RouteRequest.parse("shop/item id=7 note=hi")
        let url = try RouteRequest.parse("coordsh://shop/item?id=7&note=hi")
        #expect(words == url)
        #expect(words.description == "shop/item id=7 note=hi")
        #expect(words.url == "coordsh://shop/item?id=7&note=hi")
    }

    @Test("every page round-trips page → route → page")
    func roundTrip() throws {
        for page: ShopPage in [.home, .item(id: 3, note: nil), .item(id: -1, note: "two words")] {
            let back = try ShopPage.make(from: RouteRequest.parse(page.route.url))
            #expect(back as? ShopPage == page)
        }
    }

    @Test("a missing, ill-typed or unknown parameter is a one-line error naming it")
    func badParameters() throws {
        #expect(throws: CoordError.missingParameter(Parameter("id", .int), context: "shop/item")) {
            try ShopPage.make(from: RouteRequest.parse("shop/item"))
        }
        do {
            _ = try ShopPage.make(from: RouteRequest.parse("shop/item id=seven"))
            Issue.record("ill-typed id accepted")
        } catch {
            #expect(error.message == "shop/item: parameter 'id' must be an int, got 'seven'")
        }
        do {
            _ = try ShopPage.make(from: RouteRequest.parse("shop/item id=1 nite=x"))
            Issue.record("unknown parameter accepted")
        } catch {
            #expect(error.message.contains("unknown parameter 'nite' (did you mean 'note'?)"))
        }
        do {
            _ = try ShopPage.make(from: RouteRequest.parse("shop/itme id=1"))
            Issue.record("unknown page accepted")
        } catch {
            #expect(error.code == "unknown_page")
            #expect(error.message.contains("did you mean 'shop/item'"))
        }
    }

    @Test("malformed routes are refused, each with the reason that fits it")
    func malformed() throws {
        let cases: [(String, String)] = [
            ("", "malformed route '': expected feature/page, e.g. content/catalog"),
            ("shop", "malformed route 'shop': expected feature/page, e.g. content/catalog"),
            ("/item", "malformed route '/item': expected feature/page, e.g. content/catalog"),
            ("shop/", "malformed route 'shop/': expected feature/page, e.g. content/catalog"),
            ("shop/item/x", "malformed route 'shop/item/x': expected feature/page, e.g. content/catalog"),
            ("shop/item id", "malformed route 'shop/item id': expected key=value, got 'id'"),
            ("shop/item =3", "malformed route 'shop/item =3': expected key=value, got '=3'"),
            ("coordsh://shop", "malformed route 'coordsh://shop': expected exactly one page after the feature"),
            ("coordsh://shop/a/b", "malformed route 'coordsh://shop/a/b': expected exactly one page after the feature"),
            ("coordsh:///item", "malformed route 'coordsh:///item': expected coordsh://feature/page?key=value"),
        ]
        for (text, message) in cases {
            let error = #expect(throws: CoordError.self, "\(text)") { try RouteRequest.parse(text) }
            #expect(error?.code == "malformed_route", "\(text)")
            #expect(error?.message == message, "\(text)")
        }
        // Both sides of each boundary: the smallest well-formed routes parse.
        #expect(try RouteRequest.parse("shop/item") == RouteRequest(feature: "shop", page: "item"))
        #expect(try RouteRequest.parse("shop/item id=") == RouteRequest(feature: "shop", page: "item", arguments: [.init("id", "")]))
        #expect(try RouteRequest.parse("coordsh://shop/item") == RouteRequest(feature: "shop", page: "item"))
        let words = #expect(throws: CoordError.self) { try RouteRequest.parse(words: ["coordsh://shop/item", "id=1"]) }
        #expect(words?.message == "malformed route 'coordsh://shop/item id=1': a URL takes its parameters after '?'")
    }

    @Test("a route printed with quoted values reads back from one piece of text, as a route-typed argument arrives")
    func quotedValuesAsText() throws {
        let routes = [
            RouteRequest(feature: "content", page: "search", arguments: [.init("q", "red shoe")]),
            RouteRequest(feature: "content", page: "search", arguments: [.init("q", "it's \\ \"x\"")]),
            RouteRequest(feature: "content", page: "search", arguments: [.init("q", "#tag"), .init("n", "")]),
        ]
        for route in routes {
            #expect(try RouteRequest.parse(route.description) == route, "\(route.description)")
            #expect(ValueType.route.parse(route.description) == .route(route), "\(route.description)")
        }
        let open = #expect(throws: CoordError.self) { try RouteRequest.parse("content/search q=\"red") }
        #expect(open?.message == "malformed route 'content/search q=\"red': a quote is not closed")
    }

    @Test("a route with spaces or tabs around it, Unicode's own spaces too, is the same route; a line break is not a space")
    func spacesAround() throws {
        let plain = try RouteRequest.parse("content/product id=3")
        for text in [" content/product id=3", "content/product id=3\t ", "\u{00A0}\u{3000}content/product id=3\u{2003}"] {
            #expect(try RouteRequest.parse(text) == plain, "\(text.debugDescription)")
        }
        #expect(RouteRequest.trimmingSpaces(" \t\u{00A0} ") == "")
        #expect(RouteRequest.trimmingSpaces("\ncontent/catalog\n") == "\ncontent/catalog\n")
        #expect(RouteRequest.trimmingSpaces(" é/x\u{301} ") == "é/x\u{301}")
        #expect(throws: CoordError.self) { try RouteRequest.parse("  \t ") }
    }

    @Test("message names are interned with their prefix and verb")
    func interning() {
        let a = MessageName("cartAdd"), b = MessageName(prefix: "cart", verb: "add")
        #expect(a == b && a.id == b.id)
        #expect(a.prefix == FeaturePrefix("cart"))
        #expect(a.verb == "add")
        #expect(MessageName("globalDisplay").prefix == .global)
    }

    @Test("a name built from a prefix and a verb routes to the feature its whole name does, odd spellings included")
    func builtNames() {
        let pairs = [
            ("cart", "add"), ("gen0042", "show"), ("", "add"), ("cart", ""), ("cart", "Add"), ("cart", "_add"), ("cart", "1st"),
            ("Cart", "add"), ("caRt", "add"), ("café", "add"), ("cart", "éclair"), ("cart", "ädd"), ("über", "x"), ("cart_2", "zap"),
        ]
        for (prefix, verb) in pairs {
            let built = MessageName(prefix: prefix, verb: verb)
            let whole = MessageName(prefix + verb.prefix(1).uppercased() + verb.dropFirst())
            #expect(built == whole && built.prefix == whole.prefix, "\(prefix) + \(verb)")
            #expect(built.string == whole.string && built.verb == whole.verb, "\(prefix) + \(verb)")
        }
        #expect(MessageName(prefix: "cart", verb: "_add").prefix == FeaturePrefix("cart_add"), "no capital: the whole name is the prefix")
        #expect(MessageName(prefix: "caRt", verb: "add").prefix == FeaturePrefix("ca"))
        #expect(MessageName(prefix: "gen0042", verb: "show").prefix == FeaturePrefix("gen0042"))
    }
}
