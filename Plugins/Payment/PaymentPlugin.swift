import CoordSDK
import CoordShop

/// Registers the payment feature and provides the payments service.
final class PaymentPlugin: CoordPlugin {
    /// Built against the shop's shared model: the loader checks its version before `register`.
    var libraries: [LibraryRequirement] { [CoordShopVersion.requirement] }

    @MainActor func register(with registrar: any PluginRegistrar) throws {
        let service = PaymentService()
        try registrar.register(FeatureDefinition(
            name: "payment", summary: "pay and see receipts",
            pages: PaymentPage.self, messages: PaymentMessage.self,
            needs: [Services.data.key],
            provides: [ServiceProvision(Services.payments, guarded: true) { dependencies in
                service.attach(dependencies)
                return service
            }],
            completions: { parameter, dependencies in
                guard parameter == "orderID", let user = dependencies?[Services.user] else { return [] }
                return (try? service.orders(user: user).map { String($0.orderID) }) ?? []
            },
            coordinator: { PaymentCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "payment", version: "0.3.0") { PaymentPlugin() }
}
