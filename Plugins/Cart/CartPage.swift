import CoordMacros
import CoordSDK

/// The pages of the cart feature.
@Page(feature: "cart")
public enum CartPage: Page, Equatable {
    /// what is in the cart
    case cart
    /// review the order before paying
    /// - Parameter key: the checkout's idempotency key
    case checkout(key: String)
    /// what a promo code gives
    /// - Parameter code: promo code
    case offer(code: String)
}
