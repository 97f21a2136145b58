import CoordSDK

/// The pages of the payment feature.
public enum PaymentPage: Page, Equatable {
    case method
    case confirm(orderID: Int)
    case receipt(orderID: Int)

    public static let feature = "payment"

    public static let cases: [PageCase] = [
        PageCase("method", summary: "choose how to pay") { _ in PaymentPage.method },
        PageCase("confirm", [Parameter("orderID", .int, summary: "order number")], summary: "confirm a payment") {
            PaymentPage.confirm(orderID: $0.int("orderID")!)
        },
        PageCase("receipt", [Parameter("orderID", .int, summary: "order number")], summary: "a paid order's receipt") {
            PaymentPage.receipt(orderID: $0.int("orderID")!)
        },
    ]

    public var name: String {
        switch self {
        case .method: "method"
        case .confirm: "confirm"
        case .receipt: "receipt"
        }
    }

    public var arguments: Arguments {
        switch self {
        case .method: Arguments()
        case .confirm(let id), .receipt(let id): Arguments([("orderID", .int(id))])
        }
    }
}
