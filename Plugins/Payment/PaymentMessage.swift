import CoordMacros
import CoordSDK

/// What the payment feature does when asked. The card number is a `Secret`: a command line
/// carrying it never enters the history, and it does not print by accident.
@Messages(prefix: "payment")
enum PaymentMessage: FeatureMessage {
    /// pay the checkout
    /// - Parameter cardNumber: card number (test: 4242424242424242)
    case pay(cardNumber: Secret)
    /// show an order's receipt
    /// - Parameter orderID: order number
    case receipt(orderID: Int)
    /// list your paid orders
    case orders
}
