import CoordMacros
import CoordSDK

/// What the cart feature does when asked: `cart add 3 2` is `cartAdd(productID: 3, quantity: 2)`.
@Messages(prefix: "cart")
enum CartMessage: FeatureMessage {
    /// add a product
    /// - Parameter productID: product id (default: the product shown)
    /// - Parameter quantity: how many (default 1)
    case add(productID: Int?, quantity: Int?)
    /// remove a product
    /// - Parameter productID: product id
    case remove(productID: Int)
    /// change a product's quantity
    /// - Parameter productID: product id
    /// - Parameter quantity: how many
    case set(productID: Int, quantity: Int)
    /// show the cart
    case show
    /// apply a promo code
    /// - Parameter code: promo code
    case offer(code: String)
    /// check out (log in first, or be asked to)
    case checkout
}
