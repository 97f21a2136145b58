import CoordSDK

/// Runs the catalog flow: the catalog, product pages and searches.
final class ContentCoordinator: Coordinator {
    static let list = MessageName("contentList")
    static let show = MessageName("contentShow")
    static let search = MessageName("contentSearch")

    init() {
        super.init(identifier: ContentPage.feature)
        handle(Self.list) { [unowned self] _ in
            try root(ContentPage.catalog)
            return .handled
        }
        handle(Self.show) { [unowned self] message in
            try show(ContentPage.product(id: message.arguments.int("id")!))
            return .handled
        }
        handle(Self.search) { [unowned self] message in
            try show(ContentPage.search(query: message.arguments.string("text")!))
            return .handled
        }
    }

    override func makeView(for page: any Page) throws -> PageView {
        guard let page = page as? ContentPage else { return try super.makeView(for: page) }
        return ContentView(page: page)
    }
}

/// Shows a catalog page and what can be done from it.
final class ContentView: PageView {
    override func render() -> Rendering {
        switch page as? ContentPage {
        case .product(let id):
            return Rendering(
                title: "Product \(id)", lines: ["cart add — put this product in the cart", "back — return"],
                fields: ["productID": String(id)])
        case .search(let query):
            return Rendering(title: "Search: \(query)", lines: ["content show ID — open a product"], fields: ["query": query])
        case .catalog, nil:
            return Rendering(title: "Catalog", lines: ["content show ID — open a product", "content search TEXT — search"])
        }
    }
}
