import CoordMacros
import CoordSDK
import CoordShop

/// The one page: what the logged-in person wants to buy later.
@Page(feature: "wishlist")
enum WishlistPage: Page {
    /// the products you keep for later
    case list
}

/// `wishlist add [ID]`, `wishlist remove ID`, `wishlist move ID`, `wishlist show`.
@Messages(prefix: "wishlist")
enum WishlistMessage: FeatureMessage {
    /// keep a product for later (without an id: the product page you are on)
    /// - Parameter productID: product number
    case add(productID: Int?)
    /// forget a product
    /// - Parameter productID: product number
    case remove(productID: Int)
    /// put a product in the cart and take it off the list
    /// - Parameter productID: product number
    case move(productID: Int)
    /// show the list
    case show
}

extension Services {
    /// The wishlist store, this plugin's own service (any other plugin may read it).
    static let wishlist = ServiceKey<WishlistStore>("wishlist")
}

final class WishlistPlugin: CoordPlugin {
    var libraries: [LibraryRequirement] { [CoordShopVersion.requirement] }

    @MainActor func register(with registrar: any PluginRegistrar) throws {
        let store = WishlistStore()
        try registrar.register(FeatureDefinition(
            name: "wishlist", summary: "products kept for later",
            pages: WishlistPage.self, messages: WishlistMessage.self,
            needs: [Services.data.key],
            provides: [ServiceProvision(Services.wishlist) { dependencies in store.attach(dependencies) }],
            uses: [.read(table: "products")],
            coordinator: { WishlistCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "wishlist", version: "1.0.0") { WishlistPlugin() }
}
