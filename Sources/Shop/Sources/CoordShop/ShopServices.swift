import CoordSDK

/// The catalog, provided by the Content feature.
@MainActor
public protocol ContentManaging: AnyObject {
    /// The product numbered `id`, or nil when the catalog has none.
    func product(id: Int) throws -> Product?
    /// The same, inside a transaction another feature is running (payment's).
    func product(id: Int, in db: any SQLDatabase) throws -> Product?
    /// Every product, or those of one category, by id.
    func products(category: String?) throws -> [Product]
    /// Products whose name, category or description contains every word of `text`.
    func search(_ text: String) throws -> [Product]
    /// Category names with how many products each has.
    func categories() throws -> [(name: String, count: Int)]
}

/// Accounts, provided by the Account feature.
///
/// Who is logged in belongs to a scene, not to the service: the Account feature puts the user
/// in its scene's `Services.user` slot (`provideInScene`) at login and empties it at logout, so
/// that handlers can declare the user as a need and wait for it, and a login in one client of
/// a server is not a login in another.
@MainActor
public protocol AccountManaging: AnyObject {
    /// Creates an unconfirmed account and sends its confirmation code to the outbox.
    func create(email: String, password: String) throws -> UserAccount
    /// Confirms the account the code was sent for; a wrong or used code is a one-line error.
    func confirm(code: String) throws -> UserAccount
    /// Checks the password and returns the account; it logs nobody in by itself.
    func logIn(email: String, password: String) throws -> UserAccount
    /// Every message sent, newest last (where confirmation codes arrive).
    func outbox() throws -> [OutboxMessage]
    /// A login session for `user`: a new random token that stays valid until it expires or
    /// `closeSession` revokes it. The password is never kept; the token is the caller's to
    /// keep (never in `Services.user`, which every feature of the scene reads).
    func openSession(for user: UserAccount) throws -> String
    /// The user of a live session token, nil for one unknown, expired or revoked: how a
    /// supervised shell's new app process puts the person back after a crash.
    func resumeSession(token: String) throws -> UserAccount?
    /// Revokes a token (at logout).
    func closeSession(token: String) throws
}

/// Carts, provided by the Cart feature. Payment uses the checkout part inside its own
/// transaction, so that taking the cart and recording the order commit together.
@MainActor
public protocol CartManaging: AnyObject {
    /// The owner's cart priced. For a user, the lines of `guest` (the scene's guest cart,
    /// filled before the login there) first move into it in the same transaction: that is
    /// when a guest cart is merged.
    func summary(for owner: CartOwner, mergingGuest guest: CartOwner?) throws -> CartSummary
    /// The user's latest checkout (paid or not), inside a write transaction.
    func latestCheckout(for userID: Int64, in db: any SQLDatabase) throws -> Checkout?
    /// The owner's cart priced, inside a write transaction (payment's).
    func summary(for owner: CartOwner, in db: any SQLDatabase) throws -> CartSummary
    /// Marks the checkout paid by `orderID` and empties the cart, inside the payment's
    /// transaction.
    func completeCheckout(_ checkout: Checkout, orderID: Int64, in db: any SQLDatabase) throws
}

/// Payments and orders, provided by the Payment feature.
@MainActor
public protocol PaymentManaging: AnyObject {
    /// Charges the user's open checkout to `cardNumber`; creates the order and its payment in
    /// one transaction. Returns the new order's id.
    func pay(cardNumber: String, user: UserAccount) throws -> Int64
    /// The receipt of one of `user`'s orders; another person's order is not found.
    func receipt(orderID: Int64, user: UserAccount) throws -> Receipt
    /// `user`'s orders, oldest first.
    func orders(user: UserAccount) throws -> [(orderID: Int64, total: Money, paidAt: String)]
}

/// The shop's service slots, filled by the feature that provides each (`content` by Content,
/// `accounts` and, per scene, `user` by Account, `carts` by Cart, `payments` by Payment).
/// Plugins find each other's services only through these; the host knows none of them (a
/// scene's guest cart is keyed by the SDK's `Services.visitor`).
extension Services {
    /// The catalog (Content): products by id, category or search.
    public static let content = ServiceKey<any ContentManaging>("content")
    /// Accounts (Account), guarded: a feature must declare `.service("accounts")` and be
    /// granted it to find it.
    public static let accounts = ServiceKey<any AccountManaging>("accounts")
    /// Scene-level: filled by the Account feature in the scene where someone logged in, and
    /// only while they are.
    public static let user = ServiceKey<UserAccount>("user")
    /// Carts (Cart): a cart priced, and the checkout part payment uses.
    public static let carts = ServiceKey<any CartManaging>("carts")
    /// Payments and orders (Payment), guarded like `accounts`.
    public static let payments = ServiceKey<any PaymentManaging>("payments")
}
