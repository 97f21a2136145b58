import CoordMacros
import CoordSDK

/// The pages of the catalog feature.
@Page(feature: "content")
public enum ContentPage: Page, Equatable {
    /// the categories of the catalog
    case catalog
    /// products, all or of one category
    /// - Parameter category: only this category
    case list(category: String?)
    /// one product
    /// - Parameter id: product id
    case product(id: Int)
    /// search results
    /// - Parameter query: words to look for
    case search(query: String)
}
