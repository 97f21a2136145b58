import CoordSDK

/// The pages of the cart feature.
public enum CartPage: Page, Equatable {
    case cart
    case checkout
    case offer(code: String)

    public static let feature = "cart"

    public static let cases: [PageCase] = [
        PageCase("cart", summary: "what is in the cart") { _ in CartPage.cart },
        PageCase("checkout", summary: "review the order before paying") { _ in CartPage.checkout },
        PageCase("offer", [Parameter("code", .string, summary: "promo code")], summary: "a promo code's offer") {
            CartPage.offer(code: $0.string("code")!)
        },
    ]

    public var name: String {
        switch self {
        case .cart: "cart"
        case .checkout: "checkout"
        case .offer: "offer"
        }
    }

    public var arguments: Arguments {
        switch self {
        case .cart, .checkout: Arguments()
        case .offer(let code): Arguments([("code", .string(code))])
        }
    }
}
