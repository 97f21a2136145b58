import CoordSDK
import CoordShop

/// Runs the payment flow: pay the checkout, then show the receipt.
///
/// A successful payment shows the receipt with `display(_:)`: `globalDisplay` of
/// `payment/receipt orderID=…` up the chain, as any page would to show another feature's page.
final class PaymentCoordinator: Coordinator {
    init() {
        super.init(identifier: PaymentPage.feature)
        handle(PaymentMessage.self) { [unowned self] message, _ in
            switch message {
            case .pay(let cardNumber):
                let user = try loggedIn("payment pay")
                let orderID = try require(Services.payments, for: "payment pay").pay(cardNumber: cardNumber.text, user: user)
                report(.note("paid: order \(orderID)"))
                try display(PaymentPage.receipt(orderID: Int(orderID)))
            case .receipt(let orderID):
                try show(PaymentPage.receipt(orderID: orderID))
            case .orders:
                try show(PaymentPage.orders)
            }
            return .handled
        }
    }

    private func loggedIn(_ context: String) throws -> UserAccount {
        guard let user = dependencies?[Services.user] else {
            throw CoordError.failed("\(context): nobody is logged in; 'account login EMAIL' first")
        }
        return user
    }

    override func makeView(for page: any Page) throws -> PageView {
        guard let page = page as? PaymentPage else { return try super.makeView(for: page) }
        switch page {
        case .method:
            return PaymentView(page: page, rendering: Rendering(title: "Pay", lines: [
                "payment pay CARD_NUMBER — pay the checkout (spaces between groups are fine)",
                "test cards: \(Card.approvedTestCard) is approved, \(Card.declinedTestCard) is declined",
            ]))
        case .receipt(let orderID):
            let receipt = try require(Services.payments, for: "payment/receipt").receipt(orderID: Int64(orderID), user: try loggedIn("payment receipt"))
            return PaymentView(page: page, rendering: Self.render(receipt))
        case .orders:
            let user = try loggedIn("payment orders")
            let orders = try require(Services.payments, for: "payment/orders").orders(user: user)
            return PaymentView(page: page, rendering: Rendering(
                title: "Orders of \(user.email) (\(orders.count))",
                lines: orders.isEmpty ? ["(none yet)"] : orders.map { "  order \($0.orderID)  \($0.total)  paid \($0.paidAt) UTC" },
                fields: ["orders": orders.map { String($0.orderID) }.joined(separator: ",")]))
        }
    }

    static func render(_ receipt: Receipt) -> Rendering {
        var lines = receipt.lines.map {
            "  " + "#\($0.productID)".padding(toLength: 5, withPad: " ", startingAt: 0)
                + "\($0.name.padding(toLength: 30, withPad: " ", startingAt: 0)) \($0.quantity) × \($0.unitPrice)"
        }
        lines.append("  subtotal \(receipt.subtotal)")
        if let code = receipt.offerCode { lines.append("  offer \(code) −\(receipt.discount)") }
        lines.append("  total \(receipt.total) paid with \(receipt.card) on \(receipt.paidAt) UTC")
        return Rendering(
            title: "Receipt for order \(receipt.orderID) (\(receipt.email))", lines: lines,
            fields: ["orderID": String(receipt.orderID), "total": String(receipt.total.minor), "currency": receipt.total.currency])
    }
}

/// A payment page: its text is worked out when the page opens.
final class PaymentView: PageView {
    let rendering: Rendering

    init(page: PaymentPage, rendering: Rendering) {
        self.rendering = rendering
        super.init(page: page)
    }

    override func render() -> Rendering { rendering }
}
