import CoordSDK
import Foundation

/// Orders and payments on the app's SQLite store: the Payment feature's `PaymentManaging`.
///
/// Paying takes the user's latest checkout from the carts service and, in one transaction,
/// creates the order under the checkout's idempotency key, records the payment and empties
/// the cart. The key is UNIQUE in the orders table and the checkout is marked paid in the
/// same transaction, so a retried or repeated payment can never charge twice, and a kill at
/// any moment leaves either everything or nothing.
@MainActor
final class PaymentService: PaymentManaging {
    static let migrations = [
        Migration("v1", sql: [
            """
            CREATE TABLE orders (
                id INTEGER PRIMARY KEY,
                user_id INTEGER NOT NULL,
                email TEXT NOT NULL,
                idempotency_key TEXT NOT NULL UNIQUE,
                subtotal INTEGER NOT NULL,
                discount INTEGER NOT NULL,
                total INTEGER NOT NULL CHECK (total >= 0),
                currency TEXT NOT NULL,
                offer_code TEXT,
                created_at TEXT NOT NULL DEFAULT (datetime('now'))
            )
            """,
            """
            CREATE TABLE order_lines (
                order_id INTEGER NOT NULL REFERENCES orders(id),
                product_id INTEGER NOT NULL,
                name TEXT NOT NULL,
                unit_price INTEGER NOT NULL,
                quantity INTEGER NOT NULL CHECK (quantity > 0)
            )
            """,
            """
            CREATE TABLE payments (
                id INTEGER PRIMARY KEY,
                order_id INTEGER NOT NULL UNIQUE REFERENCES orders(id),
                amount INTEGER NOT NULL,
                currency TEXT NOT NULL,
                card_brand TEXT NOT NULL,
                card_last4 TEXT NOT NULL,
                status TEXT NOT NULL CHECK (status = 'captured'),
                paid_at TEXT NOT NULL DEFAULT (datetime('now'))
            )
            """,
            "CREATE INDEX orders_user ON orders(user_id)",
        ]),
    ]

    private lazy var store = FeatureStore(feature: "payment", migrations: Self.migrations)
    private var dependencies: AppDependency { store.dependencies }

    /// Called on every dependency rebuild (see `FeatureStore.attach`).
    func attach(_ dependencies: AppDependency) {
        store.attach(dependencies)
    }

    func pay(cardNumber: String, user: UserAccount) throws -> Int64 {
        let card: Card
        do {
            card = try Card(cardNumber)
        } catch .invalid(let reason) {
            throw CoordError.failed("payment pay: \(reason)")
        }
        guard let carts = dependencies[Services.carts] else {
            throw CoordError.failed("payment pay: paying needs the cart, and no loaded plugin provides 'carts'")
        }
        return try store.data().write { db in
            guard let checkout = try carts.latestCheckout(for: user.id, in: db) else {
                throw CoordError.failed("payment pay: nothing to pay; 'cart checkout' first")
            }
            if let paid = try checkout.orderID ?? db.row("SELECT id FROM orders WHERE idempotency_key = ?", [SQLValue(checkout.key)])?.int64("id") {
                throw CoordError.failed("payment pay: this checkout is already paid (order \(paid)); nothing was charged. 'payment receipt \(paid)' shows it")
            }
            let summary = try carts.summary(for: .user(user.id), in: db)
            guard !summary.isEmpty else { throw CoordError.failed("payment pay: the cart is empty; nothing was charged") }
            guard !card.isDeclined else {
                throw CoordError.failed("payment pay: card \(card.brand) …\(card.last4) was declined; nothing was charged")
            }
            try db.execute(
                """
                INSERT INTO orders (user_id, email, idempotency_key, subtotal, discount, total, currency, offer_code)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """,
                [SQLValue(user.id), SQLValue(user.email), SQLValue(checkout.key), SQLValue(summary.subtotal.minor),
                 SQLValue(summary.discount.minor), SQLValue(summary.total.minor), SQLValue(summary.currency), SQLValue(summary.offerCode)])
            let orderID = db.lastInsertedRowID
            for line in summary.lines {
                try db.execute(
                    "INSERT INTO order_lines (order_id, product_id, name, unit_price, quantity) VALUES (?, ?, ?, ?, ?)",
                    [SQLValue(orderID), SQLValue(line.product.id), SQLValue(line.product.name), SQLValue(line.product.price.minor), SQLValue(line.quantity)])
            }
            try db.execute(
                "INSERT INTO payments (order_id, amount, currency, card_brand, card_last4, status) VALUES (?, ?, ?, ?, ?, 'captured')",
                [SQLValue(orderID), SQLValue(summary.total.minor), SQLValue(summary.currency), SQLValue(card.brand), SQLValue(card.last4)])
            try carts.completeCheckout(checkout, orderID: orderID, in: db)
            return orderID
        }
    }

    func receipt(orderID: Int64, user: UserAccount) throws -> Receipt {
        try store.data().read { db in
            guard let order = try db.row(
                """
                SELECT o.*, p.card_brand, p.card_last4, p.paid_at FROM orders o JOIN payments p ON p.order_id = o.id
                WHERE o.id = ? AND o.user_id = ?
                """, [SQLValue(orderID), SQLValue(user.id)])
            else {
                throw CoordError.failed("payment receipt: \(user.email) has no order \(orderID); 'payment orders' lists them")
            }
            let currency = order.string("currency")
            let lines = try db.rows("SELECT * FROM order_lines WHERE order_id = ? ORDER BY rowid", [SQLValue(orderID)]).map {
                Receipt.Line(productID: $0.int("product_id"), name: $0.string("name"), unitPrice: Money(minor: $0.int("unit_price"), currency: currency), quantity: $0.int("quantity"))
            }
            return Receipt(
                orderID: orderID, email: order.string("email"), lines: lines,
                subtotal: Money(minor: order.int("subtotal"), currency: currency),
                discount: Money(minor: order.int("discount"), currency: currency),
                total: Money(minor: order.int("total"), currency: currency), offerCode: order.optionalString("offer_code"),
                card: "\(order.string("card_brand")) …\(order.string("card_last4"))", paidAt: order.string("paid_at"))
        }
    }

    func orders(user: UserAccount) throws -> [(orderID: Int64, total: Money, paidAt: String)] {
        try store.data().read { db in
            try db.rows(
                "SELECT o.id, o.total, o.currency, p.paid_at FROM orders o JOIN payments p ON p.order_id = o.id WHERE o.user_id = ? ORDER BY o.id",
                [SQLValue(user.id)]
            ).map { ($0.int64("id"), Money(minor: $0.int("total"), currency: $0.string("currency")), $0.string("paid_at")) }
        }
    }
}
