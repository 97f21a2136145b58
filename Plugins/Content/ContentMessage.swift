import CoordMacros
import CoordSDK

/// What the catalog feature does when asked: `content show 3` is `contentShow(id: 3)`.
@Messages(prefix: "content")
enum ContentMessage: FeatureMessage {
    /// list the products (--category C)
    /// - Parameter category: only this category
    case list(category: String?)
    /// open a product page
    /// - Parameter id: product id
    case show(id: Int)
    /// search the catalog
    /// - Parameter text: words to look for
    case search(text: String)
}
