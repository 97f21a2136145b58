import CoordData
@_spi(Host) import CoordSDK
import CoordShop
import Foundation
import TestSupport
import Testing

/// The shop's services through the real plugin `.so` files, the real loader and a real
/// SQLite file in a temporary folder.
@Suite("Shop services on a temporary database, SQLite and PostgreSQL", .serialized)
@MainActor
final class ServiceTests {
    var hosts: [TestHost] = []

    isolated deinit {
        for host in hosts { host.close() }
    }

    func host(_ backend: Backend, plugins: [String] = BuildProducts.bundledPlugins, databasePath: String? = nil, config: String? = nil) throws -> TestHost {
        let host = try TestHost(plugins: plugins, databasePath: try databasePath ?? backend.freshLocation("service"), config: config)
        hosts.append(host)
        return host
    }

    func service<S>(_ host: TestHost, _ key: ServiceKey<S>) throws -> S {
        try #require(host.app.unsealed(host.app.dependencies, by: host.access)?[key], "\(key.key.name) is not provided")
    }

    /// Creates, confirms and logs in `email` in `scene`, returning the user.
    func registeredUser(_ host: TestHost, _ email: String, in scene: SceneCoordinator) throws -> UserAccount {
        let accounts = try service(host, Services.accounts)
        _ = try accounts.create(email: email, password: host.secrets.password)
        let mail = try #require(try accounts.outbox().last { $0.to == email })
        let code = try #require(mail.body.split(separator: " ").last.map(String.init))
        _ = try accounts.confirm(code: code)
        let user = try accounts.logIn(email: email, password: host.secrets.password)
        scene.provide(Services.user, user, provider: "account")  // as the Account coordinator does
        return user
    }

    func count(_ host: TestHost, _ sql: String) throws -> Int {
        try host.data.read { try $0.int(sql) ?? -1 }
    }

    /// Reported as skipped, with the reason, when this run has no PostgreSQL: every test
    /// here then ran on SQLite alone.
    @Test("the same service tests on PostgreSQL", .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
    func postgresqlCovered() {
        #expect(Backend.available.contains(.postgresql))
    }

    @Test("the catalog is seeded once from config/catalog.json: at least 50 products in minor units", arguments: Backend.available)
    func catalogSeeded(backend: Backend) throws {
        let host = try host(backend)
        let content = try service(host, Services.content)
        let products = try content.products(category: nil)
        #expect(products.count >= 50)
        #expect(Set(products.map(\.price.currency)) == ["EUR"])
        #expect(try content.categories().count >= 5)
        #expect(try content.search("red shoes").map(\.name) == ["Red Sneakers"])
        #expect(try content.search("100%").isEmpty)  // LIKE wildcards in user text are literal
        // A second host on the same file does not seed again.
        let again = try self.host(backend, databasePath: host.data.location)
        #expect(try service(again, Services.content).products(category: nil).count == products.count)
    }

    @Test("passwords are stored as salted scrypt hashes, never as text", arguments: Backend.available)
    func passwordsHashed(backend: Backend) throws {
        let host = try host(backend)
        let accounts = try service(host, Services.accounts)
        _ = try accounts.create(email: "a@example.com", password: "same password")
        _ = try accounts.create(email: "b@example.com", password: "same password")
        let rows = try host.data.read { try $0.rows("SELECT * FROM users ORDER BY id", []) }
        #expect(rows.count == 2)
        #expect(rows.allSatisfy { $0.string("password_kdf").hasPrefix("scrypt$") })
        #expect(rows[0]["password_salt"] != rows[1]["password_salt"])
        #expect(rows[0]["password_hash"] != rows[1]["password_hash"])
        // No stored value holds the password, in any table.
        for row in rows { #expect(!row.values.contains { ($0.bytes.map { String(decoding: $0, as: UTF8.self) } ?? "").contains("same password") }) }
        if backend == .sqlite {
            // Nor any byte of the file and its log.
            let file = try Data(contentsOf: URL(fileURLWithPath: host.data.location))
                + ((try? Data(contentsOf: URL(fileURLWithPath: host.data.location + "-wal"))) ?? Data())
            #expect(file.range(of: Data("same password".utf8)) == nil)
        }
        #expect(throws: CoordError.self) { try accounts.logIn(email: "a@example.com", password: "other password") }
    }

    @Test("an account stored before hashing moved into the host still logs in (scrypt N=2^15 r=8 p=1, vector from Python's hashlib)", arguments: Backend.available)
    func earlierHashesVerify(backend: Backend) throws {
        let host = try host(backend)
        let accounts = try service(host, Services.accounts)
        _ = try accounts.create(email: "new@example.com", password: "another password")
        // hashlib.scrypt(b"correct horse battery", salt=bytes(range(16)), n=32768, r=8, p=1, dklen=32)
        let digest = "c72e940880b3f15bff3fa26a3a49140f80ce9a1c4dd2d5d27bab10014071ba94"
        let bytes = stride(from: 0, to: digest.count, by: 2).compactMap {
            UInt8(digest.dropFirst($0).prefix(2), radix: 16)
        }
        try host.data.write { db in
            try db.execute(
                "INSERT INTO users (email, password_kdf, password_salt, password_hash, confirmed_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
                ["old@example.com", "scrypt$15$8$1", SQLValue((0..<16).map { UInt8($0) }), SQLValue(bytes), .now, .now])
        }
        #expect(try accounts.logIn(email: "old@example.com", password: "correct horse battery").email == "old@example.com")
        #expect(throws: CoordError.self) { try accounts.logIn(email: "old@example.com", password: "correct horse batterY") }
    }

    @Test("a scene's guest cart is kept and merged into the user's cart at login there; another scene's guest cart is not", arguments: Backend.available)
    func guestCartMerged(backend: Backend) throws {
        let host = try host(backend)
        let carts = try service(host, Services.carts)
        // The user already has 2 of product 5; the guest adds 3 of it and 1 of product 6.
        let scene = host.app.makeScene(identifier: "t")
        let other = host.app.makeScene(identifier: "u")
        scene.provide(Services.visitor, SceneVisitor(key: "guest:t", endsWithScene: true), provider: "host")
        other.provide(Services.visitor, SceneVisitor(key: "guest:u", endsWithScene: true), provider: "host")
        let user = try registeredUser(host, "m@example.com", in: scene)
        func send(_ name: String, _ args: [(String, Value)], in scene: SceneCoordinator) throws {
            let cart = try #require(host.app.features.feature(named: "cart"))
            _ = try scene.coordinator(for: cart).send(Message(MessageName(name), Arguments(args), from: scene))
        }
        try send("cartAdd", [("productID", .int(5)), ("quantity", .int(2))], in: scene)
        scene.provide(Services.user, nil, provider: "account")  // logged out
        try send("cartAdd", [("productID", .int(5)), ("quantity", .int(3))], in: scene)
        try send("cartAdd", [("productID", .int(6)), ("quantity", .int(1))], in: scene)
        try send("cartAdd", [("productID", .int(7)), ("quantity", .int(1))], in: other)
        #expect(try carts.summary(for: .guest("guest:t"), mergingGuest: nil).itemCount == 4)
        scene.provide(Services.user, user, provider: "account")  // logged in again
        let merged = try carts.summary(for: .user(user.id), mergingGuest: .guest("guest:t"))
        #expect(merged.lines.map { [$0.product.id, $0.quantity] } == [[5, 5], [6, 1]])
        #expect(try carts.summary(for: .guest("guest:t"), mergingGuest: nil).isEmpty)
        #expect(try carts.summary(for: .guest("guest:u"), mergingGuest: nil).itemCount == 1)
        #expect(try carts.summary(for: .sharedGuest, mergingGuest: nil).isEmpty)
        // The other client leaves: its guest cart goes with its scene; the merged one stays.
        host.app.closeScene(other)
        #expect(try count(host, "SELECT count(*) FROM cart_lines WHERE owner = 'guest:u'") == 0)
        #expect(try count(host, "SELECT count(*) FROM carts WHERE owner = 'guest:u'") == 0)
        #expect(try count(host, "SELECT count(*) FROM cart_lines WHERE owner = 'user:\(user.id)'") == 2)
    }

    @Test("paying twice never charges twice, and a failing payment leaves nothing half-written", arguments: Backend.available)
    func paymentIdempotentAndAtomic(backend: Backend) throws {
        let host = try host(backend)
        let scene = host.app.makeScene(identifier: "t")
        let user = try registeredUser(host, "p@example.com", in: scene)
        let cart = try #require(host.app.features.feature(named: "cart"))
        let coordinator = scene.coordinator(for: cart)
        _ = try coordinator.send(Message(MessageName("cartAdd"), Arguments([("productID", .int(3)), ("quantity", .int(2))]), from: scene))
        _ = try coordinator.send(Message(MessageName("cartCheckout"), from: scene))
        let payments = try service(host, Services.payments)

        // Make the payment fail half-way: a product in the cart disappears from the catalog.
        try host.data.write { try $0.execute("UPDATE products SET id = 1003 WHERE id = 3") }
        #expect(throws: CoordError.self) { try payments.pay(cardNumber: "4242424242424242", user: user) }
        #expect(try count(host, "SELECT count(*) FROM orders") == 0)
        #expect(try count(host, "SELECT count(*) FROM payments") == 0)
        #expect(try count(host, "SELECT count(*) FROM cart_lines") == 1)
        #expect(try count(host, "SELECT count(*) FROM checkouts WHERE order_id IS NULL") == 1)
        try host.data.write { try $0.execute("UPDATE products SET id = 3 WHERE id = 1003") }

        let order = try payments.pay(cardNumber: "4242 4242 4242 4242", user: user)
        let again = #expect(throws: CoordError.self) { try payments.pay(cardNumber: "4242424242424242", user: user) }
        #expect(again?.message.contains("already paid (order \(order))") == true)
        #expect(try count(host, "SELECT count(*) FROM orders") == 1)
        #expect(try count(host, "SELECT count(*) FROM payments") == 1)
        #expect(try count(host, "SELECT count(*) FROM cart_lines") == 0)
        let receipt = try payments.receipt(orderID: order, user: user)
        #expect(receipt.total == Money(minor: 25800, currency: "EUR"))
        #expect(receipt.card == "Visa …4242")
    }

    @Test("promo codes: percent and fixed amounts, unknown and expired codes refused", arguments: Backend.available)
    func promoCodes(backend: Backend) throws {
        let host = try host(backend)
        let scene = host.app.makeScene(identifier: "t")
        let cart = try #require(host.app.features.feature(named: "cart"))
        let coordinator = scene.coordinator(for: cart)
        func send(_ name: String, _ args: [(String, Value)] = []) throws {
            _ = try coordinator.send(Message(MessageName(name), Arguments(args), from: scene))
        }
        try send("cartAdd", [("productID", .int(1)), ("quantity", .int(1))])  // 89.00
        let carts = try service(host, Services.carts)
        try send("cartOffer", [("code", .string("WELCOME10"))])
        #expect(try carts.summary(for: .sharedGuest, mergingGuest: nil).total.minor == 8010)
        try send("cartOffer", [("code", .string("FIVEOFF"))])
        #expect(try carts.summary(for: .sharedGuest, mergingGuest: nil).total.minor == 8400)
        for code in ["SUMMER20", "NOPE"] {
            #expect(throws: CoordError.self) { try send("cartOffer", [("code", .string(code))]) }
        }
        #expect(try carts.summary(for: .sharedGuest, mergingGuest: nil).offerCode == "FIVEOFF")
    }

    @Test("shop rules on both sides of each boundary: 999 of a product, a promo's last day, percent and amount offers never below zero, the Luhn check", arguments: Backend.available)
    func boundaries(backend: Backend) throws {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd"
        let today = formatter.string(from: Date()), yesterday = formatter.string(from: Date().addingTimeInterval(-86_400))
        let host = try host(backend, config: """
            [cart]
            offers = [
                { code = "LASTDAY", percent = 10, expires = "\(today)" },
                { code = "GONE", percent = 10, expires = "\(yesterday)" },
                { code = "ALL", percent = 150, expires = "2099-12-31" },
                { code = "BIG", amount = 100000, expires = "2099-12-31" },
            ]
            """)
        let scene = host.app.makeScene(identifier: "t")
        let user = try registeredUser(host, "b@example.com", in: scene)
        let coordinator = scene.coordinator(for: try #require(host.app.features.feature(named: "cart")))
        func send(_ name: String, _ args: [(String, Value)] = []) throws {
            _ = try coordinator.send(Message(MessageName(name), Arguments(args), from: scene))
        }
        func error(_ name: String, _ args: [(String, Value)] = []) -> String? {
            (#expect(throws: CoordError.self) { try send(name, args) })?.message
        }
        let carts = try service(host, Services.carts)
        let owner = CartOwner.user(user.id)
        // 999 of one product is the most: 998 + 1 goes in, one more does not.
        try send("cartAdd", [("productID", .int(1)), ("quantity", .int(998))])
        try send("cartAdd", [("productID", .int(1)), ("quantity", .int(1))])
        #expect(try carts.summary(for: owner, mergingGuest: nil).itemCount == 999)
        #expect(error("cartAdd", [("productID", .int(1)), ("quantity", .int(1))]) == "cart add: at most 999 of product 1 per cart (the cart has 999)")
        try send("cartSet", [("productID", .int(1)), ("quantity", .int(1))])  // 89.00
        // A promo works through its last day (UTC) and not the day after.
        try send("cartOffer", [("code", .string("LASTDAY"))])
        #expect(try carts.summary(for: owner, mergingGuest: nil).total.minor == 8010)
        #expect(error("cartOffer", [("code", .string("GONE"))]) == "cart offer: promo code 'GONE' expired on \(yesterday)")
        // More than 100 % off, or a fixed amount above the subtotal: the total is zero, not less.
        try send("cartOffer", [("code", .string("ALL"))])
        #expect(try carts.summary(for: owner, mergingGuest: nil).total.minor == 0)
        #expect(try carts.summary(for: owner, mergingGuest: nil).discount.minor == 8900)
        try send("cartOffer", [("code", .string("BIG"))])
        #expect(try carts.summary(for: owner, mergingGuest: nil).total.minor == 0)
        // Luhn: a valid number other than the test cards is approved; one digit off is refused.
        try send("cartOffer", [("code", .string("LASTDAY"))])
        try send("cartCheckout")
        let payments = try service(host, Services.payments)
        let refused = #expect(throws: CoordError.self) { try payments.pay(cardNumber: "4111 1111 1111 1112", user: user) }
        #expect(refused?.message == "payment pay: card number …1112 is not valid (Luhn check failed)")
        let declined = #expect(throws: CoordError.self) { try payments.pay(cardNumber: "4000 0000 0000 0002", user: user) }
        #expect(declined?.message.hasPrefix("payment pay: card ") == true && declined?.message.hasSuffix("was declined; nothing was charged") == true)
        let order = try payments.pay(cardNumber: "4111 1111 1111 1111", user: user)
        #expect(try payments.receipt(orderID: order, user: user).total.minor == 8010)
        // The card is charged the total after the offer, not the subtotal.
        #expect(try count(host, "SELECT amount FROM payments") == 8010)
        #expect(try count(host, "SELECT subtotal FROM orders") == 8900)
    }

    @Test("without the Account plugin a checkout waits and says why; loading it shows the login; logging in resumes it", arguments: Backend.available)
    func checkoutWaitsForAccountProvider(backend: Backend) throws {
        let host = try host(backend, plugins: ["Content", "Cart", "Payment"])
        var events: [DispatchEvent] = []
        host.app.eventSink = { events.append($0) }
        let scene = host.app.makeScene(identifier: "t")
        try scene.display(host.app.features.page(for: RouteRequest.parse("content/product id=9")))
        let page = try #require(scene.currentView)
        #expect(try page.send(Message(MessageName("cartAdd"), from: page)) == .handled)
        #expect(try page.send(Message(MessageName("cartCheckout"), from: page)) == .queued)
        let waiting = events.compactMap { if case .queued(_, _, _, let reason) = $0 { reason } else { nil } }
        #expect(waiting.last?.contains("needs an account provider") == true)

        try host.loader.load(BuildProducts.plugin("Account"))
        #expect(scene.currentView?.page.route.description == "account/login")

        let accounts = try service(host, Services.accounts)
        _ = try accounts.create(email: "w@example.com", password: host.secrets.password)
        let code = try #require(try accounts.outbox().last?.body.split(separator: " ").last.map(String.init))
        _ = try accounts.confirm(code: code)
        let login = try #require(scene.currentView)
        #expect(try login.send(Message(MessageName("accountLogin"), Arguments([("email", .string("w@example.com"))]), from: login)) == .handled)
        #expect(scene.currentView?.page.route.feature == "cart")
        #expect(scene.currentView?.page.name == "checkout")
        #expect(events.contains { if case .replayed(let m, _) = $0 { m.hasPrefix("cartCheckout") } else { false } })
        #expect(host.secrets.prompts == ["Password for w@example.com"])
    }
}
