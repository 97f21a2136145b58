import CoordSDK
import CoordShop

/// Runs the catalog flow: the catalog, product lists, product pages and searches.
final class ContentCoordinator: Coordinator {
    init() {
        super.init(identifier: ContentPage.feature)
        handle(ContentMessage.self) { [unowned self] message, _ in
            switch message {
            case .list(let category): try show(ContentPage.list(category: category))
            case .show(let id): try show(ContentPage.product(id: id))
            case .search(let text): try show(ContentPage.search(query: text))
            }
            return .handled
        }
    }

    /// Reads what the page shows now, so that an unknown product or a database that cannot be
    /// read fails the command that opened the page, with one line.
    override func makeView(for page: any Page) throws -> PageView {
        guard let page = page as? ContentPage else { return try super.makeView(for: page) }
        let store = try require(Services.content, for: "content/\(page.name)")
        switch page {
        case .catalog:
            return CatalogView(page: page, categories: try store.categories())
        case .list(let category):
            let products = try store.products(category: category)
            if let category, products.isEmpty {
                let known = try store.categories().map(\.name)
                let hint = Suggest.closest(to: category, in: known).map { " (did you mean '\($0)'?)" } ?? ""
                throw CoordError.failed("content list: no category '\(category)'\(hint); 'open content/catalog' lists them")
            }
            return ProductListView(page: page, title: category.map { "Category \($0)" } ?? "All products", products: products)
        case .search(let query):
            guard !query.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CoordError.failed("content search: give some words to look for")
            }
            return ProductListView(page: page, title: "Search: \(query)", products: try store.search(query))
        case .product(let id):
            guard let product = try store.product(id: id) else {
                throw CoordError.failed("content/product: there is no product \(id); 'content list' shows the catalog")
            }
            return ProductView(page: page, product: product)
        }
    }
}

/// The categories with their product counts.
final class CatalogView: PageView {
    let categories: [(name: String, count: Int)]

    init(page: ContentPage, categories: [(name: String, count: Int)]) {
        self.categories = categories
        super.init(page: page)
    }

    override func render() -> Rendering {
        let total = categories.reduce(0) { $0 + $1.count }
        var lines = categories.map { "  \($0.name.padding(toLength: 14, withPad: " ", startingAt: 0)) \($0.count) products" }
        if categories.isEmpty { lines = ["(the catalog is empty: [content] catalog in the config names no catalog; remove the key for the built-in one)"] }
        lines += ["content list [--category C] — list products · content search TEXT — search · content show ID — a product"]
        return Rendering(title: "Catalog (\(total) products)", lines: lines, fields: ["products": String(total)])
    }
}

/// A list of products: a category, everything, or search results.
final class ProductListView: PageView {
    let title: String
    let products: [Product]

    init(page: ContentPage, title: String, products: [Product]) {
        self.title = title
        self.products = products
        super.init(page: page)
    }

    override func render() -> Rendering {
        var lines = products.map { p in
            "  " + "#\(p.id)".padding(toLength: 5, withPad: " ", startingAt: 0)
                + p.name.padding(toLength: 30, withPad: " ", startingAt: 0) + " "
                + String(repeating: " ", count: max(0, 12 - p.price.description.count)) + p.price.description
                + "  \(p.category)"
        }
        if products.isEmpty { lines = ["(nothing found)"] }
        return Rendering(
            title: "\(title) (\(products.count))", lines: lines,
            fields: ["count": String(products.count), "ids": products.map { String($0.id) }.joined(separator: ",")])
    }
}

/// One product and what can be done from its page.
final class ProductView: PageView {
    let product: Product

    init(page: ContentPage, product: Product) {
        self.product = product
        super.init(page: page)
    }

    override func render() -> Rendering {
        // The empty summary left out by hand: a closure handed to `filter` from this main-actor
        // class checks its executor at each call.
        var lines: [String] = []
        lines.reserveCapacity(3)
        lines.append("\(product.price) · \(product.category)")
        if !product.summary.isEmpty { lines.append(product.summary) }
        lines.append("cart add [QTY] — put this product in the cart · back — return")
        return Rendering(
            title: "#\(product.id) \(product.name)",
            lines: lines,
            fields: ["productID": String(product.id), "price": String(product.price.minor), "currency": product.price.currency])
    }
}
