import CoordSDK

/// An amount of money in minor units (cents), so that sums never round.
public struct Money: Sendable, Equatable, Comparable, CustomStringConvertible, Codable {
    public var minor: Int
    public var currency: String

    public init(minor: Int, currency: String) {
        self.minor = minor
        self.currency = currency
    }

    public static func zero(_ currency: String) -> Money { Money(minor: 0, currency: currency) }

    public static func < (a: Money, b: Money) -> Bool { a.minor < b.minor }

    /// `12.50 EUR`.
    public var description: String {
        let sign = minor < 0 ? "-" : ""
        let units = abs(minor) / 100, cents = abs(minor) % 100
        return "\(sign)\(units).\(cents < 10 ? "0" : "")\(cents) \(currency)"
    }
}

/// One product of the catalog.
public struct Product: Sendable, Equatable, Codable {
    public let id: Int
    public let name: String
    public let category: String
    public let price: Money
    public let summary: String

    public init(id: Int, name: String, category: String, price: Money, summary: String) {
        self.id = id
        self.name = name
        self.category = category
        self.price = price
        self.summary = summary
    }
}

/// A registered user as other features see it: never the password hash, and never the token
/// of a login (which resumes it anywhere: the feature that logs people in keeps it, and gives
/// it to the host alone through `Services.sceneLogins`).
public struct UserAccount: Sendable, Equatable {
    public let id: Int64
    public let email: String
    public let confirmed: Bool

    public init(id: Int64, email: String, confirmed: Bool) {
        self.id = id
        self.email = email
        self.confirmed = confirmed
    }
}

/// A message delivered to the local outbox (there is no mail server).
public struct OutboxMessage: Sendable, Equatable {
    public let id: Int64
    public let to: String
    public let subject: String
    public let body: String
    public let sentAt: String

    public init(id: Int64, to: String, subject: String, body: String, sentAt: String) {
        self.id = id
        self.to = to
        self.subject = subject
        self.body = body
        self.sentAt = sentAt
    }
}

/// Whose cart: a guest's (nobody logged in; the key says which guest) or a user's.
public enum CartOwner: Sendable, Equatable, CustomStringConvertible {
    /// A guest cart under its key: `guest` for the one a database's terminal shells share,
    /// `guest:…` for one client's scene of `coordsh serve`.
    case guest(String)
    case user(Int64)

    /// The guest cart every logged-out terminal shell on one database fills (and finds again
    /// next time): a terminal is one person's.
    public static let sharedGuest = CartOwner.guest("guest")

    /// The key the cart is stored under.
    public var description: String {
        switch self {
        case .guest(let key): key
        case .user(let id): "user:\(id)"
        }
    }

    public var isGuest: Bool {
        if case .guest = self { true } else { false }
    }
}

/// One line of a cart, priced from the catalog.
public struct CartLine: Sendable, Equatable {
    public let product: Product
    public let quantity: Int

    public init(product: Product, quantity: Int) {
        self.product = product
        self.quantity = quantity
    }

    public var total: Money { Money(minor: product.price.minor * quantity, currency: product.price.currency) }
}

/// A cart with its prices worked out: what `cart show` and checkout display and what payment
/// charges.
public struct CartSummary: Sendable, Equatable {
    public let owner: CartOwner
    public let lines: [CartLine]
    /// The promo code applied, if any, and what it takes off.
    public let offerCode: String?
    public let discount: Money
    public let currency: String

    public init(owner: CartOwner, lines: [CartLine], offerCode: String?, discount: Money, currency: String) {
        self.owner = owner
        self.lines = lines
        self.offerCode = offerCode
        self.discount = discount
        self.currency = currency
    }

    public var isEmpty: Bool { lines.isEmpty }
    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }
    public var subtotal: Money { Money(minor: lines.reduce(0) { $0 + $1.total.minor }, currency: currency) }
    public var total: Money { Money(minor: max(0, subtotal.minor - discount.minor), currency: currency) }
}

/// A checkout in progress: the idempotency key that the payment of this cart is recorded
/// under, so a retried or repeated payment can never charge twice.
public struct Checkout: Sendable, Equatable {
    public let key: String
    public let userID: Int64
    /// The order that paid this checkout, once it is paid.
    public let orderID: Int64?

    public init(key: String, userID: Int64, orderID: Int64?) {
        self.key = key
        self.userID = userID
        self.orderID = orderID
    }
}

/// A paid order as the receipt shows it.
public struct Receipt: Sendable, Equatable {
    public struct Line: Sendable, Equatable {
        public let productID: Int
        public let name: String
        public let unitPrice: Money
        public let quantity: Int

        public init(productID: Int, name: String, unitPrice: Money, quantity: Int) {
            self.productID = productID
            self.name = name
            self.unitPrice = unitPrice
            self.quantity = quantity
        }
    }

    public let orderID: Int64
    public let email: String
    public let lines: [Line]
    public let subtotal: Money
    public let discount: Money
    public let total: Money
    public let offerCode: String?
    public let card: String
    public let paidAt: String

    public init(
        orderID: Int64, email: String, lines: [Line], subtotal: Money, discount: Money, total: Money,
        offerCode: String?, card: String, paidAt: String
    ) {
        self.orderID = orderID
        self.email = email
        self.lines = lines
        self.subtotal = subtotal
        self.discount = discount
        self.total = total
        self.offerCode = offerCode
        self.card = card
        self.paidAt = paidAt
    }
}
