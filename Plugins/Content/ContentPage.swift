import CoordSDK

/// The pages of the catalog feature.
public enum ContentPage: Page, Equatable {
    case catalog
    case list(category: String?)
    case product(id: Int)
    case search(query: String)

    public static let feature = "content"

    public static let cases: [PageCase] = [
        PageCase("catalog", summary: "the categories of the catalog") { _ in ContentPage.catalog },
        PageCase("list", [Parameter("category", .string, optional: true, summary: "only this category")], summary: "products, all or of one category") {
            ContentPage.list(category: $0.string("category"))
        },
        PageCase("product", [Parameter("id", .int, summary: "product id")], summary: "one product") {
            ContentPage.product(id: try $0.requireInt("id"))
        },
        PageCase("search", [Parameter("query", .string, summary: "words to look for")], summary: "search results") {
            ContentPage.search(query: try $0.requireString("query"))
        },
    ]

    public var name: String {
        switch self {
        case .catalog: "catalog"
        case .list: "list"
        case .product: "product"
        case .search: "search"
        }
    }

    public var arguments: Arguments {
        switch self {
        case .catalog, .list(nil): Arguments()
        case .list(let category?): Arguments([("category", .string(category))])
        case .product(let id): Arguments([("id", .int(id))])
        case .search(let query): Arguments([("query", .string(query))])
        }
    }
}
