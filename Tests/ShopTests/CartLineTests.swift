import Foundation
import TestSupport
import Testing

/// A cart line as a person reads it, through the real binary and the real Cart plugin: its
/// columns line up whatever the product's name.
@Suite("Cart lines")
struct CartLineTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    func coordsh(_ home: String, _ arguments: [String]) throws -> RunResult {
        try run(
            BuildProducts.coordsh, ["--config", Self.config] + arguments,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
    }

    @Test("a name longer than its column is cut to it, a shorter one (accented too) padded: the quantities and prices stay in line")
    func nameColumn() throws {
        let home = try makeTemporaryDirectory("cartline")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        let seeded = try coordsh(home, ["--db", db, "-c", "content show 2"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        // Another process renames two products, as a catalog edit would.
        let edit = try run("/usr/bin/env", [
            "python3", "-c",
            """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1])
            c.execute("UPDATE products SET name = 'Extra Long Trail Running Shoes With Gore-Tex' WHERE id = 2")
            c.execute("UPDATE products SET name = 'Café Crème Boots' WHERE id = 3")
            c.commit()
            """,
            db,
        ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let cart = try coordsh(home, ["--db", db, "-c", "cart add 2", "-c", "cart add 3 2"])
        #expect(cart.status == 0, "\(cart.stderr)")
        let lines = cart.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("  #2   Extra Long Trail Running Shoes 1 × 79.00 EUR = 79.00 EUR"), "\(cart.stdout)")
        #expect(lines.contains("  #3   Café Crème Boots               2 × 129.00 EUR = 258.00 EUR"), "\(cart.stdout)")
    }
}
