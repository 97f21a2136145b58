import CoordSDK

/// An amount of money in minor units (cents), so that sums never round.
public struct Money: Sendable, Equatable, Comparable, CustomStringConvertible, Codable {
    /// The amount in the currency's minor unit: 1250 is 12.50.
    public var minor: Int
    /// The ISO 4217 code (`EUR`).
    public var currency: String

    /// `Money(minor: 1250, currency: "EUR")` is 12.50 EUR.
    public init(minor: Int, currency: String) {
        self.minor = minor
        self.currency = currency
    }

    /// Nothing, in `currency`: the start of a sum.
    public static func zero(_ currency: String) -> Money { Money(minor: 0, currency: currency) }

    /// Compares the amounts (of one currency: the shop has one).
    public static func < (a: Money, b: Money) -> Bool { a.minor < b.minor }

    /// `12.50 EUR`. Written digit by digit into bytes and made a string once: by appending
    /// pieces (each `+=` through String's general append, ≈ 240 instructions) a cart page's
    /// eleven amounts were 1.3 % of a batch script, by interpolation more. The magnitude is
    /// taken without `abs`, which traps on the most negative amount.
    public var description: String {
        var magnitude = minor.magnitude
        var currency = currency
        return currency.withUTF8 { code in
            // Sign, 20 digits of the largest magnitude, the point, a space and the code.
            withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 24 + code.count) { text in
                var end = text.count - code.count
                for (offset, byte) in code.enumerated() { text[end + offset] = byte }
                end -= 1
                text[end] = UInt8(ascii: " ")
                for place in 0..<2 {
                    end -= 1
                    text[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                    if place == 1 {
                        end -= 1
                        text[end] = UInt8(ascii: ".")
                    }
                }
                repeat {
                    end -= 1
                    text[end] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                    magnitude /= 10
                } while magnitude > 0
                if minor < 0 {
                    end -= 1
                    text[end] = UInt8(ascii: "-")
                }
                return String(decoding: UnsafeBufferPointer(rebasing: text[end...]), as: UTF8.self)
            }
        }
    }
}

/// One product of the catalog.
public struct Product: Sendable, Equatable, Codable {
    /// Its number: `content show ID`, `cart add ID`, a message's `productID`.
    public let id: Int
    /// What the catalog calls it.
    public let name: String
    /// Its category (`shoes`), as `content list --category` takes it.
    public let category: String
    /// Its unit price.
    public let price: Money
    /// One line describing it.
    public let summary: String

    /// A product as the catalog holds it.
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
    /// The account's row id: what a feature keys its rows of this person by (an `Int64`;
    /// bind it as it is, `db.execute(…, user.id)`).
    public let id: Int64
    /// The address the person logs in with.
    public let email: String
    /// Whether the confirmation code sent at sign-up was used (only confirmed accounts log in).
    public let confirmed: Bool

    /// An account as the Account feature reads it.
    public init(id: Int64, email: String, confirmed: Bool) {
        self.id = id
        self.email = email
        self.confirmed = confirmed
    }
}

/// A message delivered to the local outbox (there is no mail server).
public struct OutboxMessage: Sendable, Equatable {
    /// Its number in the outbox.
    public let id: Int64
    /// The address it was sent to.
    public let to: String
    /// Its subject line.
    public let subject: String
    /// Its text (a confirmation code, say).
    public let body: String
    /// When, as `YYYY-MM-DD HH:MM:SS` UTC.
    public let sentAt: String

    /// A message as the outbox holds it.
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
    /// A logged-in person's cart, by `UserAccount.id`: the same in every scene they log in to.
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

    /// True for a guest's cart (merged into the user's at login).
    public var isGuest: Bool {
        if case .guest = self { true } else { false }
    }
}

/// One line of a cart, priced from the catalog.
public struct CartLine: Sendable, Equatable {
    /// The product, as the catalog prices it now.
    public let product: Product
    /// How many (1 to the cart's limit).
    public let quantity: Int

    /// A line of `quantity` of `product`.
    public init(product: Product, quantity: Int) {
        self.product = product
        self.quantity = quantity
    }

    /// Price times quantity.
    public var total: Money { Money(minor: product.price.minor * quantity, currency: product.price.currency) }
}

/// A cart with its prices worked out: what `cart show` and checkout display and what payment
/// charges.
public struct CartSummary: Sendable, Equatable {
    /// Whose cart.
    public let owner: CartOwner
    /// Its lines, in the order they were first added.
    public let lines: [CartLine]
    /// The promo code applied, if any.
    public let offerCode: String?
    /// What the promo code takes off (zero without one).
    public let discount: Money
    /// The currency every amount of it is in.
    public let currency: String

    /// A priced cart, as the Cart feature works it out.
    public init(owner: CartOwner, lines: [CartLine], offerCode: String?, discount: Money, currency: String) {
        self.owner = owner
        self.lines = lines
        self.offerCode = offerCode
        self.discount = discount
        self.currency = currency
    }

    /// True when there is nothing to check out.
    public var isEmpty: Bool { lines.isEmpty }
    /// How many items, counting quantities (`Cart (4 items)`).
    public var itemCount: Int { lines.reduce(0) { $0 + $1.quantity } }
    /// The lines' totals added up, before the discount.
    public var subtotal: Money { Money(minor: lines.reduce(0) { $0 + $1.total.minor }, currency: currency) }
    /// What is charged: the subtotal less the discount, never below zero.
    public var total: Money { Money(minor: max(0, subtotal.minor - discount.minor), currency: currency) }
}

/// A checkout in progress: the idempotency key that the payment of this cart is recorded
/// under, so a retried or repeated payment can never charge twice.
public struct Checkout: Sendable, Equatable {
    /// The idempotency key (`payment pay` charges it at most once).
    public let key: String
    /// The person checking out, by `UserAccount.id`.
    public let userID: Int64
    /// The order that paid this checkout, once it is paid.
    public let orderID: Int64?

    /// A checkout as the Cart feature records it.
    public init(key: String, userID: Int64, orderID: Int64?) {
        self.key = key
        self.userID = userID
        self.orderID = orderID
    }
}

/// A paid order as the receipt shows it.
public struct Receipt: Sendable, Equatable {
    /// One line of a paid order: the product as it was sold (its name and price then).
    public struct Line: Sendable, Equatable {
        /// The product's number.
        public let productID: Int
        /// Its name when it was sold.
        public let name: String
        /// Its price when it was sold.
        public let unitPrice: Money
        /// How many.
        public let quantity: Int

        /// A line as the order recorded it.
        public init(productID: Int, name: String, unitPrice: Money, quantity: Int) {
            self.productID = productID
            self.name = name
            self.unitPrice = unitPrice
            self.quantity = quantity
        }
    }

    /// The order's number (`payment receipt ORDER`).
    public let orderID: Int64
    /// Who paid.
    public let email: String
    /// What was bought.
    public let lines: [Line]
    /// Before the discount.
    public let subtotal: Money
    /// What the promo code took off.
    public let discount: Money
    /// What was charged.
    public let total: Money
    /// The promo code used, if any.
    public let offerCode: String?
    /// The card as shown: its brand and last four digits, never the number.
    public let card: String
    /// When, as `YYYY-MM-DD HH:MM:SS` UTC.
    public let paidAt: String

    /// A receipt as the Payment feature reads it.
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

extension UserAccount: LoginIdentity {
    /// The email address: what the person logs in with, stable for the account.
    public var loginName: String { email }
}
