import CoordSDK

/// The pages of the cart feature.
public enum CartPage: Page, Equatable {
    case cart
    /// The checkout of the cart, under its idempotency key.
    case checkout(key: String)
    case offer(code: String)

    public static let feature = "cart"

    public static let cases: [PageCase] = [
        PageCase("cart", summary: "what is in the cart") { _ in CartPage.cart },
        PageCase("checkout", [Parameter("key", .string, summary: "the checkout's idempotency key")], summary: "review the order before paying") {
            CartPage.checkout(key: try $0.requireString("key"))
        },
        PageCase("offer", [Parameter("code", .string, summary: "promo code")], summary: "what a promo code gives") {
            CartPage.offer(code: try $0.requireString("code"))
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
        case .cart: Arguments()
        case .checkout(let key): Arguments([("key", .string(key))])
        case .offer(let code): Arguments([("code", .string(code))])
        }
    }
}
