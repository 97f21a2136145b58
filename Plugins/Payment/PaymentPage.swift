import CoordMacros
import CoordSDK

/// The pages of the payment feature.
@Page(feature: "payment")
public enum PaymentPage: Page, Equatable {
    /// how to pay, and the test cards
    case method
    /// the receipt of a paid order
    /// - Parameter orderID: order number
    case receipt(orderID: Int)
    /// your paid orders
    case orders
}
