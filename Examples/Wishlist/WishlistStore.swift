import CoordSDK
import CoordShop

/// The wishlist's table, reached through the app's data store (SQLite or PostgreSQL).
@MainActor
final class WishlistStore {
    private let store = FeatureStore(feature: "wishlist", migrations: [
        Migration("v1", sql: [
            "CREATE TABLE wishlist_items (user_id INTEGER NOT NULL, product_id INTEGER NOT NULL, PRIMARY KEY (user_id, product_id))",
        ]),
    ])

    /// Called by the provider at every dependency rebuild: the migration runs once the data
    /// store is there.
    func attach(_ dependencies: AppDependency) -> WishlistStore {
        store.attach(dependencies)
        return self
    }

    func add(_ productID: Int, for userID: Int64) throws {
        try store.data().write { db in
            try db.execute("INSERT INTO wishlist_items (user_id, product_id) VALUES (?, ?) ON CONFLICT DO NOTHING", userID, productID)
        }
    }

    /// True when the product was on the list.
    func remove(_ productID: Int, for userID: Int64) throws -> Bool {
        try store.data().write { db in
            try db.execute("DELETE FROM wishlist_items WHERE user_id = ? AND product_id = ?", userID, productID)
            return db.changes > 0
        }
    }

    /// The person's list with each product's name and price, read in one query from the
    /// catalog's table (declared: `uses: [.read(table: "products")]`); nil for a product no
    /// longer in the catalog.
    func items(for userID: Int64) throws -> [(productID: Int, name: String?, price: Money?)] {
        try store.data().read { db in
            try db.rows(
                """
                SELECT w.product_id, p.name, p.price, p.currency FROM wishlist_items w
                LEFT JOIN products p ON p.id = w.product_id WHERE w.user_id = ? ORDER BY w.product_id
                """, userID
            ).map { row in
                let name = row.optionalString("name")
                return (row.int("product_id"), name, name.map { _ in Money(minor: row.int("price"), currency: row.string("currency")) })
            }
        }
    }
}
