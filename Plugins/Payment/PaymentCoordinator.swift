import CoordSDK

/// Runs the payment flow. Each message opens its page; the shop issue adds the ledger.
final class PaymentCoordinator: Coordinator {
    init() {
        super.init(identifier: PaymentPage.feature)
        handle(MessageName("paymentMethod")) { [unowned self] _ in
            try show(PaymentPage.method)
            return .handled
        }
        handle(MessageName("paymentReceipt")) { [unowned self] message in
            try show(PaymentPage.receipt(orderID: message.arguments.int("orderID")!))
            return .handled
        }
    }
}

/// Registers the payment feature.
final class PaymentPlugin: CoordPlugin {
    func register(with registrar: any PluginRegistrar) throws {
        try registrar.register(FeatureDefinition(
            name: "payment", prefix: "payment", summary: "pay for orders and see receipts",
            pages: PaymentPage.self,
            messages: [
                MessageSpec("method", summary: "choose how to pay"),
                MessageSpec("receipt", [Parameter("orderID", .int, summary: "order number")], summary: "show a receipt"),
            ],
            coordinator: { PaymentCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "payment", version: "0.2.0") { PaymentPlugin() }
}
