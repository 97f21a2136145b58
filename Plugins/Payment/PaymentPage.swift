import CoordSDK

/// The pages of the payment feature.
public enum PaymentPage: Page, Equatable {
    case method
    case receipt(orderID: Int)
    case orders

    public static let feature = "payment"

    public static let cases: [PageCase] = [
        PageCase("method", summary: "how to pay, and the test cards") { _ in PaymentPage.method },
        PageCase("receipt", [Parameter("orderID", .int, summary: "order number")], summary: "the receipt of a paid order") {
            PaymentPage.receipt(orderID: try $0.requireInt("orderID"))
        },
        PageCase("orders", summary: "your paid orders") { _ in PaymentPage.orders },
    ]

    public var name: String {
        switch self {
        case .method: "method"
        case .receipt: "receipt"
        case .orders: "orders"
        }
    }

    public var arguments: Arguments {
        switch self {
        case .method, .orders: Arguments()
        case .receipt(let id): Arguments([("orderID", .int(id))])
        }
    }
}
