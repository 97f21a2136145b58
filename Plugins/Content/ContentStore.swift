import CoordSDK
import CoordShop
import Foundation

/// The catalog on the app's SQLite store: the Content feature's `ContentManaging`.
///
/// Its table is created by its own migrations and filled the first time the store is used on
/// an empty database: from the catalog file the config names (`[content] catalog`), or, with
/// no such key, from the shipped catalog compiled into this plugin (so that a coordsh with no
/// config file anywhere is a working shop). `catalog = ""` seeds nothing.
@MainActor
final class ContentStore: ContentManaging {
    /// The `[content]` section of the config.
    struct Settings: Decodable {
        var catalog: String?
    }

    /// The catalog file's shape.
    struct CatalogFile: Decodable {
        struct Item: Decodable {
            let id: Int
            let name: String
            let category: String
            let price: Int
            let description: String?
        }
        let currency: String
        let products: [Item]
    }

    static let migrations = [
        Migration("v1", sql: [
            """
            CREATE TABLE products (
                id INTEGER PRIMARY KEY,
                name TEXT NOT NULL,
                category TEXT NOT NULL,
                price INTEGER NOT NULL CHECK (price >= 0),
                currency TEXT NOT NULL,
                description TEXT NOT NULL DEFAULT ''
            )
            """,
            "CREATE INDEX products_category ON products(category)",
        ]),
    ]

    private lazy var store = FeatureStore(feature: "content", migrations: Self.migrations, setUp: { [unowned self] in try seedIfEmpty($0) })
    private var dependencies: AppDependency { store.dependencies }

    /// Called on every dependency rebuild (see `FeatureStore.attach`).
    func attach(_ dependencies: AppDependency) {
        store.attach(dependencies)
    }

    /// Fills an empty catalog from the configured file, all in one transaction.
    private func seedIfEmpty(_ data: any DataManaging) throws {
        guard try data.read({ try $0.int("SELECT count(*) FROM products") }) == 0 else { return }
        let environment = dependencies[HostEnvironment.key]
        let file = try environment?.settings("content", as: Settings.self)?.catalog
        let catalog: CatalogFile
        switch file {
        case nil:
            do {
                catalog = try JSONDecoder().decode(CatalogFile.self, from: Data(PackageResources.catalog_json))
            } catch {
                throw CoordError.failed("the built-in catalog: \(DecodingProblem.describe(error))")
            }
        case ""?:
            return
        case let file?:
            let path = environment?.resolve(file) ?? file
            guard let bytes = FileManager.default.contents(atPath: path) else {
                let why = FileManager.default.fileExists(atPath: path) ? "cannot be read" : "no such file"
                throw CoordError.failed("catalog \(path): \(why) ([content] catalog in the config names it; remove the key for the built-in catalog)")
            }
            do {
                catalog = try JSONDecoder().decode(CatalogFile.self, from: bytes)
            } catch {
                throw CoordError.failed("catalog \(path): \(DecodingProblem.describe(error))")
            }
        }
        try data.write { db in
            guard try db.int("SELECT count(*) FROM products") == 0 else { return }
            for item in catalog.products {
                try db.execute(
                    "INSERT INTO products (id, name, category, price, currency, description) VALUES (?, ?, ?, ?, ?, ?)",
                    [SQLValue(item.id), SQLValue(item.name), SQLValue(item.category), SQLValue(item.price),
                     SQLValue(catalog.currency), SQLValue(item.description ?? "")])
            }
        }
    }


    /// Nonisolated: it reads only the row, and handed to `map` as a method of this main-actor
    /// class it would check its executor at each call (every line a cart prices).
    private nonisolated static func product(_ row: SQLRow) -> Product {
        Product(
            id: row.int("id"), name: row.string("name"), category: row.string("category"),
            price: Money(minor: row.int("price"), currency: row.string("currency")), summary: row.string("description"))
    }

    func product(id: Int) throws -> Product? {
        try store.data().read { try product(id: id, in: $0) }
    }

    func product(id: Int, in db: any SQLDatabase) throws -> Product? {
        let db = try store.adopt(db)
        return try db.row("SELECT * FROM products WHERE id = ?", [SQLValue(id)]).map(Self.product)
    }

    func products(category: String?) throws -> [Product] {
        try store.data().read { db in
            if let category {
                return try db.rows("SELECT * FROM products WHERE lower(category) = lower(?) ORDER BY id", [SQLValue(category)]).map(Self.product)
            }
            return try db.rows("SELECT * FROM products ORDER BY id", []).map(Self.product)
        }
    }

    func search(_ text: String) throws -> [Product] {
        let words = text.split(whereSeparator: \.isWhitespace).map(String.init)
        guard !words.isEmpty else { return [] }
        var clauses: [String] = [], arguments: [SQLValue] = []
        for word in words {
            let pattern = "%" + word.replacingOccurrences(of: "\\", with: "\\\\")
                .replacingOccurrences(of: "%", with: "\\%").replacingOccurrences(of: "_", with: "\\_") + "%"
            // lower() on both sides: SQLite's LIKE ignores ASCII case, PostgreSQL's does not.
            clauses.append("(lower(name) LIKE lower(?) ESCAPE '\\' OR lower(category) LIKE lower(?) ESCAPE '\\' OR lower(description) LIKE lower(?) ESCAPE '\\')")
            arguments += [SQLValue(pattern), SQLValue(pattern), SQLValue(pattern)]
        }
        let sql = "SELECT * FROM products WHERE \(clauses.joined(separator: " AND ")) ORDER BY id"
        return try store.data().read { try $0.rows(sql, arguments).map(Self.product) }
    }

    func categories() throws -> [(name: String, count: Int)] {
        try store.data().read { db in
            try db.rows("SELECT category, count(*) AS n FROM products GROUP BY category ORDER BY category", []).map {
                ($0.string("category"), $0.int("n"))
            }
        }
    }
}
