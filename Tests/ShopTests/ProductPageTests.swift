import Foundation
import TestSupport
import Testing

/// The product page as a person reads it, through the real binary and the real Content plugin.
@Suite("The product page")
struct ProductPageTests {
    @Test("a product's description is a line of its page; a product without one gets no empty line in its place")
    func emptyDescription() throws {
        let home = try ShopHome("productpage")
        defer { home.remove() }
        let described = try home.coordsh(["-c", "content show 2"])
        #expect(described.status == 0, "\(described.stderr)")
        let title = "── #2 Road Running Shoes ──", price = "79.00 EUR · shoes"
        let hint = "cart add [QTY] — put this product in the cart · back — return"
        #expect(described.stdout == [title, price, "Light cushioning for daily miles", hint, ""].joined(separator: "\n"))

        // Another process empties the description, as a catalog edit would.
        let edit = try home.edit(["UPDATE products SET description = '' WHERE id = 2"])
        #expect(edit.status == 0, "\(edit.stderr)")
        let bare = try home.coordsh(["-c", "content show 2"])
        #expect(bare.status == 0, "\(bare.stderr)")
        #expect(bare.stdout == [title, price, hint, ""].joined(separator: "\n"))
    }
}
