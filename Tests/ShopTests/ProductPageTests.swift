import Foundation
import TestSupport
import Testing

/// The product page as a person reads it, through the real binary and the real Content plugin.
@Suite("The product page")
struct ProductPageTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    func coordsh(_ home: String, _ arguments: [String]) throws -> RunResult {
        try run(
            BuildProducts.coordsh, ["--config", Self.config] + arguments,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
    }

    @Test("a product's description is a line of its page; a product without one gets no empty line in its place")
    func emptyDescription() throws {
        let home = try makeTemporaryDirectory("productpage")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        let described = try coordsh(home, ["--db", db, "-c", "content show 2"])
        #expect(described.status == 0, "\(described.stderr)")
        let title = "── #2 Road Running Shoes ──", price = "79.00 EUR · shoes"
        let hint = "cart add [QTY] — put this product in the cart · back — return"
        #expect(described.stdout == [title, price, "Light cushioning for daily miles", hint, ""].joined(separator: "\n"))

        // Another process empties the description, as a catalog edit would.
        let edit = try run("/usr/bin/env", [
            "python3", "-c",
            "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute(\"UPDATE products SET description = '' WHERE id = 2\"); c.commit()",
            db,
        ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let bare = try coordsh(home, ["--db", db, "-c", "content show 2"])
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stdout == [title, price, hint, ""].joined(separator: "\n"))
    }
}
