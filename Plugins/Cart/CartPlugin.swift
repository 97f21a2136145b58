import CoordSDK
import CoordShop

/// Registers the cart feature and provides the carts service (payment takes the cart through
/// it).
final class CartPlugin: CoordPlugin {
    /// Built against the shop's shared model: the loader checks its version before `register`.
    var libraries: [LibraryRequirement] { [CoordShopVersion.requirement] }

    @MainActor func register(with registrar: any PluginRegistrar) throws {
        let service = CartService()
        try registrar.register(FeatureDefinition(
            name: "cart", summary: "fill the cart and check out",
            pages: CartPage.self, messages: CartMessage.self,
            needs: [Services.data.key],
            provides: [ServiceProvision(Services.carts) { dependencies in
                service.attach(dependencies)
                return service
            }],
            // Checkout waits for an account system to be there (its handler needs `accounts`).
            uses: [.service("accounts")],
            completions: { parameter, dependencies in
                switch parameter {
                case "productID": (try? dependencies?[Services.content]?.products(category: nil).map { String($0.id) }) ?? []
                case "code": (try? service.offers().filter { !$0.isExpired(today: CartService.today()) }.map(\.code)) ?? []
                default: []
                }
            },
            coordinator: { CartCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "cart", version: "0.3.0") { CartPlugin() }
}
