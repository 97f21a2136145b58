import CoordSDK
import Foundation

/// Carts on the app's SQLite store: the Cart feature's `CartManaging`.
///
/// A cart belongs to a user or to a guest (nobody logged in; each scene has its own guest cart,
/// see `GuestCart`). The first time a user's cart is touched in a scene whose guest cart has
/// lines, those lines move into the user's cart in the same transaction: the guest cart is
/// merged at login. Prices come from the catalog service
/// whenever a cart is shown or paid, so a cart never holds a stale price.
@MainActor
final class CartService: CartManaging {
    /// One promo code of the `[cart]` section of the config.
    struct Offer: Decodable, Equatable {
        let code: String
        let percent: Int?
        let amount: Int?
        /// The last day (UTC, `YYYY-MM-DD`) the code works.
        let expires: String

        var summary: String {
            if let percent { return "\(percent)% off, until \(expires)" }
            return "\(Money(minor: amount ?? 0, currency: "").description.trimmingCharacters(in: .whitespaces)) off, until \(expires)"
        }

        func isExpired(today: String) -> Bool { today > expires }

        func discount(on subtotal: Money) -> Money {
            if let percent { return Money(minor: subtotal.minor * min(100, percent) / 100, currency: subtotal.currency) }
            return Money(minor: min(subtotal.minor, amount ?? 0), currency: subtotal.currency)
        }
    }

    struct Settings: Decodable {
        var offers: [Offer]?
    }

    static let maximumQuantity = 999

    static let migrations = [
        Migration("v1", sql: [
            """
            CREATE TABLE carts (
                owner TEXT PRIMARY KEY,
                offer_code TEXT,
                updated_at TEXT NOT NULL DEFAULT (datetime('now'))
            )
            """,
            """
            CREATE TABLE cart_lines (
                owner TEXT NOT NULL REFERENCES carts(owner) ON DELETE CASCADE,
                product_id INTEGER NOT NULL,
                quantity INTEGER NOT NULL CHECK (quantity BETWEEN 1 AND \(maximumQuantity)),
                position INTEGER NOT NULL,
                PRIMARY KEY (owner, product_id)
            )
            """,
            """
            CREATE TABLE checkouts (
                key TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL,
                created_at TEXT NOT NULL DEFAULT (datetime('now')),
                order_id INTEGER UNIQUE
            )
            """,
            "CREATE INDEX checkouts_user ON checkouts(user_id, created_at)",
        ]),
    ]

    private lazy var store = FeatureStore(feature: "cart", migrations: Self.migrations)
    private var dependencies: AppDependency { store.dependencies }

    /// Called on every dependency rebuild (see `FeatureStore.attach`).
    func attach(_ dependencies: AppDependency) {
        store.attach(dependencies)
    }

    private func content(_ context: String) throws -> any ContentManaging {
        guard let content = dependencies[Services.content] else {
            throw CoordError.failed("\(context): the cart needs the catalog, and no loaded plugin provides 'content'")
        }
        return content
    }

    static func today() -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        return formatter.string(from: Date())
    }

    func offers() throws -> [Offer] {
        try dependencies[HostEnvironment.key]?.settings("cart", as: Settings.self)?.offers ?? []
    }

    /// The offer for `code`, or a one-line error for an unknown or expired one.
    func offer(_ code: String) throws -> Offer {
        let offers = try offers()
        guard let offer = offers.first(where: { $0.code.caseInsensitiveCompare(code) == .orderedSame }) else {
            throw CoordError.failed("cart offer: unknown promo code '\(code)'")
        }
        guard !offer.isExpired(today: Self.today()) else {
            throw CoordError.failed("cart offer: promo code '\(offer.code)' expired on \(offer.expires)")
        }
        return offer
    }

    // MARK: Changing a cart

    func add(_ productID: Int, quantity: Int, for owner: CartOwner, mergingGuest guest: CartOwner?) throws {
        try Self.check(quantity: quantity, context: "cart add")
        let content = try content("cart add")
        try store.data().write { db in
            guard try content.product(id: productID, in: db) != nil else {
                throw CoordError.failed("cart add: there is no product \(productID); 'content list' shows the catalog")
            }
            try prepare(owner, merging: guest, db)
            let current = try db.int("SELECT quantity FROM cart_lines WHERE owner = ? AND product_id = ?", [SQLValue(owner.description), SQLValue(productID)]) ?? 0
            guard current + quantity <= Self.maximumQuantity else {
                throw CoordError.failed("cart add: at most \(Self.maximumQuantity) of product \(productID) per cart (the cart has \(current))")
            }
            try upsert(owner, productID, current + quantity, db)
        }
    }

    func set(_ productID: Int, quantity: Int, for owner: CartOwner, mergingGuest guest: CartOwner?) throws {
        try Self.check(quantity: quantity, context: "cart set")
        try store.data().write { db in
            try prepare(owner, merging: guest, db)
            guard try db.int("SELECT quantity FROM cart_lines WHERE owner = ? AND product_id = ?", [SQLValue(owner.description), SQLValue(productID)]) != nil else {
                throw CoordError.failed("cart set: product \(productID) is not in the cart; use 'cart add \(productID) \(quantity)'")
            }
            try upsert(owner, productID, quantity, db)
        }
    }

    func remove(_ productID: Int, for owner: CartOwner, mergingGuest guest: CartOwner?) throws {
        try store.data().write { db in
            try prepare(owner, merging: guest, db)
            try db.execute("DELETE FROM cart_lines WHERE owner = ? AND product_id = ?", [SQLValue(owner.description), SQLValue(productID)])
            guard db.changes == 1 else { throw CoordError.failed("cart remove: product \(productID) is not in the cart") }
        }
    }

    func apply(offer code: String, for owner: CartOwner, mergingGuest guest: CartOwner?) throws -> Offer {
        let offer = try offer(code)
        try store.data().write { db in
            try prepare(owner, merging: guest, db)
            try db.execute("UPDATE carts SET offer_code = ?, updated_at = datetime('now') WHERE owner = ?", [SQLValue(offer.code), SQLValue(owner.description)])
        }
        return offer
    }

    private static func check(quantity: Int, context: String) throws {
        guard (1...maximumQuantity).contains(quantity) else {
            throw CoordError.failed("\(context): the quantity must be between 1 and \(maximumQuantity), got \(quantity)")
        }
    }

    private func upsert(_ owner: CartOwner, _ productID: Int, _ quantity: Int, _ db: any SQLDatabase) throws {
        try db.execute(
            """
            INSERT INTO cart_lines (owner, product_id, quantity, position)
            VALUES (?1, ?2, ?3, (SELECT coalesce(max(position), 0) + 1 FROM cart_lines WHERE owner = ?1))
            ON CONFLICT (owner, product_id) DO UPDATE SET quantity = excluded.quantity
            """, [SQLValue(owner.description), SQLValue(productID), SQLValue(quantity)])
        try db.execute("UPDATE carts SET updated_at = datetime('now') WHERE owner = ?", [SQLValue(owner.description)])
    }

    /// Makes sure the owner's cart row exists and, for a user, takes over the lines of the
    /// scene's guest cart.
    private func prepare(_ owner: CartOwner, merging guestOwner: CartOwner?, _ db: any SQLDatabase) throws {
        try db.execute("INSERT OR IGNORE INTO carts (owner) VALUES (?)", [SQLValue(owner.description)])
        guard case .user = owner, let guestOwner, guestOwner.isGuest else { return }
        let guest = guestOwner.description
        let lines = try db.rows("SELECT product_id, quantity FROM cart_lines WHERE owner = ? ORDER BY position", [SQLValue(guest)])
        guard !lines.isEmpty else { return }
        for line in lines {
            let current = try db.int("SELECT quantity FROM cart_lines WHERE owner = ? AND product_id = ?", [SQLValue(owner.description), line["product_id"]]) ?? 0
            try upsert(owner, line.int("product_id"), min(Self.maximumQuantity, current + line.int("quantity")), db)
        }
        try db.execute(
            "UPDATE carts SET offer_code = coalesce(offer_code, (SELECT offer_code FROM carts WHERE owner = ?)) WHERE owner = ?",
            [SQLValue(guest), SQLValue(owner.description)])
        try db.execute("DELETE FROM cart_lines WHERE owner = ?", [SQLValue(guest)])
        try db.execute("UPDATE carts SET offer_code = NULL WHERE owner = ?", [SQLValue(guest)])
    }

    // MARK: Reading a cart

    func summary(for owner: CartOwner, mergingGuest guest: CartOwner?) throws -> CartSummary {
        let data = try store.data()
        // Looking at a user's cart while the scene's guest cart has lines is when they are
        // merged (a write); otherwise a read, so a read-only database can still be looked at.
        if case .user = owner, let guest, guest.isGuest,
            try data.read({ try $0.int("SELECT count(*) FROM cart_lines WHERE owner = ?", [SQLValue(guest.description)]) ?? 0 }) > 0 {
            return try data.write { db in
                try prepare(owner, merging: guest, db)
                return try price(owner, db)
            }
        }
        return try data.read { try price(owner, $0) }
    }

    func summary(for owner: CartOwner, in db: any SQLDatabase) throws -> CartSummary {
        try store.requireReady()
        try prepare(owner, merging: nil, db)
        return try price(owner, db)
    }

    /// Deletes a guest cart that belonged to one scene only (its client went away).
    func discard(_ guest: CartOwner) throws {
        guard guest.isGuest, guest != .sharedGuest else { return }
        try store.data().write { db in
            try db.execute("DELETE FROM cart_lines WHERE owner = ?", [SQLValue(guest.description)])
            try db.execute("DELETE FROM carts WHERE owner = ?", [SQLValue(guest.description)])
        }
    }

    /// The owner's lines priced from the catalog, with the offer applied; reads only.
    private func price(_ owner: CartOwner, _ db: any SQLDatabase) throws -> CartSummary {
        let content = try content("cart")
        var lines: [CartLine] = []
        for row in try db.rows("SELECT product_id, quantity FROM cart_lines WHERE owner = ? ORDER BY position", [SQLValue(owner.description)]) {
            guard let product = try content.product(id: row.int("product_id"), in: db) else {
                throw CoordError.failed("cart: product \(row.int("product_id")) is no longer in the catalog; 'cart remove \(row.int("product_id"))'")
            }
            lines.append(CartLine(product: product, quantity: row.int("quantity")))
        }
        let currency = lines.first?.product.price.currency ?? "EUR"
        let subtotal = Money(minor: lines.reduce(0) { $0 + $1.total.minor }, currency: currency)
        var code = try db.row("SELECT offer_code FROM carts WHERE owner = ?", [SQLValue(owner.description)])?.optionalString("offer_code")
        var discount = Money.zero(currency)
        if let current = code {
            if let offer = try offers().first(where: { $0.code == current }), !offer.isExpired(today: Self.today()) {
                discount = offer.discount(on: subtotal)
            } else {
                code = nil  // expired or no longer configured: it no longer applies
            }
        }
        return CartSummary(owner: owner, lines: lines, offerCode: code, discount: discount, currency: currency)
    }

    // MARK: Checkout

    /// The user's open checkout, or a new one with a fresh idempotency key.
    func beginCheckout(for userID: Int64) throws -> Checkout {
        try store.data().write { db in
            if let open = try db.row("SELECT key FROM checkouts WHERE user_id = ? AND order_id IS NULL ORDER BY created_at DESC, rowid DESC", [SQLValue(userID)]) {
                return Checkout(key: open.string("key"), userID: userID, orderID: nil)
            }
            let key = UUID().uuidString.lowercased()
            try db.execute("INSERT INTO checkouts (key, user_id) VALUES (?, ?)", [SQLValue(key), SQLValue(userID)])
            return Checkout(key: key, userID: userID, orderID: nil)
        }
    }

    func latestCheckout(for userID: Int64, in db: any SQLDatabase) throws -> Checkout? {
        try store.requireReady()
        return try db.row("SELECT key, order_id FROM checkouts WHERE user_id = ? ORDER BY created_at DESC, rowid DESC", [SQLValue(userID)]).map {
            Checkout(key: $0.string("key"), userID: userID, orderID: $0["order_id"].int64)
        }
    }

    func completeCheckout(_ checkout: Checkout, orderID: Int64, in db: any SQLDatabase) throws {
        try store.requireReady()
        try db.execute("UPDATE checkouts SET order_id = ? WHERE key = ? AND order_id IS NULL", [SQLValue(orderID), SQLValue(checkout.key)])
        guard db.changes == 1 else { throw CoordError.failed("checkout \(checkout.key) was already paid") }
        let owner = CartOwner.user(checkout.userID).description
        try db.execute("DELETE FROM cart_lines WHERE owner = ?", [SQLValue(owner)])
        try db.execute("UPDATE carts SET offer_code = NULL, updated_at = datetime('now') WHERE owner = ?", [SQLValue(owner)])
    }
}
