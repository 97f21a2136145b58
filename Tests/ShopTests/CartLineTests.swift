import Foundation
import TestSupport
import Testing

/// A cart line as a person reads it, through the real binary and the real Cart plugin: its
/// columns line up whatever the product's name.
@Suite("Cart lines")
struct CartLineTests {
    @Test("a name longer than its column is cut to it, a shorter one (accented too) padded: the quantities and prices stay in line")
    func nameColumn() throws {
        let home = try ShopHome("cartline")
        defer { home.remove() }
        let seeded = try home.coordsh(["-c", "content show 2"])
        #expect(seeded.status == 0, "\(seeded.stderr)")
        // Another process renames two products, as a catalog edit would.
        let edit = try home.edit([
            "UPDATE products SET name = 'Extra Long Trail Running Shoes With Gore-Tex' WHERE id = 2",
            "UPDATE products SET name = 'Café Crème Boots' WHERE id = 3",
        ])
        #expect(edit.status == 0, "\(edit.stderr)")
        let cart = try home.coordsh(["-c", "cart add 2", "-c", "cart add 3 2"])
        #expect(cart.status == 0, "\(cart.stderr)")
        let lines = cart.stdout.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
        #expect(lines.contains("  #2   Extra Long Trail Running Shoes 1 × 79.00 EUR = 79.00 EUR"), "\(cart.stdout)")
        #expect(lines.contains("  #3   Café Crème Boots               2 × 129.00 EUR = 258.00 EUR"), "\(cart.stdout)")
    }
}
