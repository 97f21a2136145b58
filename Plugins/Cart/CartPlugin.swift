import CoordSDK

/// Registers the cart feature.
final class CartPlugin: CoordPlugin {
    func register(with registrar: any PluginRegistrar) throws {
        let product = Parameter("productID", .int, optional: true, summary: "product id (default: the product shown)")
        try registrar.register(FeatureDefinition(
            name: "cart", prefix: "cart", summary: "fill the cart and check out",
            pages: CartPage.self,
            messages: [
                MessageSpec("add", [product, Parameter("quantity", .int, optional: true, summary: "how many (default 1)")], summary: "add a product"),
                MessageSpec("remove", [Parameter("productID", .int, summary: "product id")], summary: "remove a product"),
                MessageSpec("show", summary: "show the cart"),
                MessageSpec("checkout", summary: "review the order"),
                MessageSpec("offer", [Parameter("code", .string, summary: "promo code")], summary: "show a promo code's offer"),
            ],
            coordinator: { CartCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "cart", version: "0.2.0") { CartPlugin() }
}
