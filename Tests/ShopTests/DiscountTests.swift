import Foundation
import TestSupport
import Testing

/// Money rules a receipt alone would not show, through the real binary and the order as it is
/// stored.
@Suite("Discounts as stored")
struct DiscountTests {
    @Test("a fixed-amount promo larger than the cart: the order's stored discount is the subtotal, never more, and the total is zero")
    func fixedAmountLargerThanCart() throws {
        let home = try makeTemporaryDirectory("bigpromo")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let config = home + "/coordsh.toml"
        try """
            [cart]
            offers = [{ code = "HUGE", amount = 100000, expires = "2099-12-31" }]

            """.write(toFile: config, atomically: true, encoding: .utf8)
        let database = home + "/shop.sqlite"
        let script = """
            account create ann@example.com
            account outbox
            """
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": "long enough password", "NO_COLOR": "1"]
        let base = ["--config", config, "--db", database, "--password-env", "PW"]
        let created = try run(BuildProducts.coordsh, base, input: script, environment: environment)
        let code = try #require(created.stdout.components(separatedBy: "Your confirmation code is ").dropFirst().first.map { String($0.prefix(6)) })
        let bought = try run(
            BuildProducts.coordsh,
            base + ["-c", "account confirm \(code)", "-c", "account login ann@example.com", "-c", "cart add 39", "-c", "cart offer HUGE",
                    "-c", "cart checkout", "-c", "payment pay 4242424242424242"],
            environment: environment)
        #expect(bought.status == 0, "\(bought.stderr)")
        #expect(bought.stdout.contains("Receipt for order 1"), "\(bought.stdout)")
        let order = try run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            print(sqlite3.connect(sys.argv[1]).execute("SELECT subtotal, discount, total FROM orders").fetchall())
            """, database], environment: ["HOME": home])
        #expect(order.stdout == "[(900, 900, 0)]\n", "subtotal, discount, total as stored: \(order.stdout)\(order.stderr)")
    }
}
