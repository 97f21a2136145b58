import CoordSDK
import CoordShop

/// Shows the cart, the checkout summary or a promo code's offer. The cart is read when the
/// page is rendered, so it is always the stored one (after a merge at login, too) — except
/// right after the command that showed it, which hands over the cart as it left it.
final class CartView: PageView {
    let offer: CartService.Offer?
    /// The cart the showing command computed, and the scene's display count just after that
    /// showing: only the rendering of that very showing uses it, never one after another page
    /// was shown.
    private var computed: (cart: CartSummary, shown: Int?)?

    /// The page as its own type: `page as? CartPage` was a dynamic cast at every rendering.
    private let cartPage: CartPage

    init(page: CartPage, offer: CartService.Offer?) {
        self.offer = offer
        cartPage = page
        super.init(page: page)
    }

    /// The next rendering, if it is of this showing, shows `cart` without reading it again.
    func render(from cart: CartSummary) {
        computed = (cart, scene?.displayCount)
    }

    override func render() -> Rendering {
        switch cartPage {
        case .offer(let code):
            return Rendering(
                title: "Offer \(offer?.code ?? code)", lines: [offer?.summary ?? "", "cart offer \(offer?.code ?? code) — apply it to the cart"],
                fields: ["code": offer?.code ?? code])
        case .checkout(let key):
            guard let summary = summary() else { return failed("Checkout") }
            var fields = Self.fields(summary)
            fields["checkout"] = key
            return Rendering(
                title: "Checkout (\(summary.itemCount) item\(summary.itemCount == 1 ? "" : "s"), \(summary.total))",
                lines: Self.lines(summary, then: "payment pay CARD_NUMBER — pay \(summary.total) (checkout \(key.prefix(8)))"),
                fields: fields)
        case .cart:
            guard let summary = summary() else { return failed("Cart") }
            let count = summary.itemCount
            return Rendering(
                title: "Cart (\(count) item\(count == 1 ? "" : "s"))",
                lines: summary.isEmpty ? ["(empty)"] : Self.lines(summary, then: "cart checkout — check out"),
                fields: Self.fields(summary))
        }
    }

    private var readError: String?

    private func summary() -> CartSummary? {
        if let computed {
            self.computed = nil
            if computed.shown == scene?.displayCount { return computed.cart }
        }
        do {
            guard let carts = dependencies?[Services.carts] else {
                readError = "no loaded plugin provides 'carts'"
                return nil
            }
            return try carts.summary(for: CartCoordinator.owner(dependencies), mergingGuest: CartCoordinator.guest(dependencies))
        } catch {
            readError = "\(error)"
            return nil
        }
    }

    private func failed(_ title: String) -> Rendering {
        Rendering(title: title, lines: ["(cannot read the cart: \(readError ?? "unknown error"))"])
    }

    /// The cart's lines and sums, then `last` (what to do next) in the same array.
    static func lines(_ summary: CartSummary, then last: String) -> [String] {
        // A loop, not `map`: a closure handed to the standard library from this main-actor
        // class checks its executor at each call.
        var lines: [String] = []
        lines.reserveCapacity(summary.lines.count + 4)
        for line in summary.lines {
            // One string, its storage sized once: `+` between the columns made one per piece.
            var text = "  "
            text.reserveCapacity(96)
            text.appendColumn("#\(line.product.id)", 5)
            text.appendColumn(line.product.name, 30)
            text += " \(line.quantity) × \(line.product.price) = \(line.total)"
            lines.append(text)
        }
        if !summary.isEmpty {
            lines.append("  subtotal \(summary.subtotal)")
            if let code = summary.offerCode { lines.append("  offer \(code) −\(summary.discount)") }
            lines.append("  total \(summary.total)")
        }
        lines.append(last)
        return lines
    }

    static func fields(_ summary: CartSummary) -> [String: String] {
        var fields = ["items": String(summary.itemCount), "total": String(summary.total.minor), "currency": summary.currency]
        if let code = summary.offerCode { fields["offer"] = code }
        return fields
    }
}
