/// The catalog, provided by the Content feature.
@MainActor
public protocol ContentManaging: AnyObject {
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

/// Accounts and the session's current user, provided by the Account feature.
///
/// The current user is also put in `AppDependency` under `Services.user` while someone is
/// logged in, so that handlers can declare it as a need and wait for it.
@MainActor
public protocol AccountManaging: AnyObject {
    var currentUser: UserAccount? { get }
    /// Creates an unconfirmed account and sends its confirmation code to the outbox.
    func create(email: String, password: String) throws -> UserAccount
    func confirm(code: String) throws -> UserAccount
    func logIn(email: String, password: String) throws -> UserAccount
    func logOut()
    func outbox() throws -> [OutboxMessage]
}

/// Carts, provided by the Cart feature. Payment uses the checkout part inside its own
/// transaction, so that taking the cart and recording the order commit together.
@MainActor
public protocol CartManaging: AnyObject {
    func summary(for owner: CartOwner) throws -> CartSummary
    /// The user's latest checkout (paid or not), inside a write transaction.
    func latestCheckout(for userID: Int64, in db: any SQLDatabase) throws -> Checkout?
    /// The user's cart priced, inside a write transaction (a guest cart waiting for this user
    /// is merged first).
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
    func receipt(orderID: Int64, user: UserAccount) throws -> Receipt
    func orders(user: UserAccount) throws -> [(orderID: Int64, total: Money, paidAt: String)]
}

/// Asks the person at the terminal for a secret with echo off, or takes it from where the
/// command line said (`--password-env VAR`). Provided by the host: only it knows the terminal.
/// Secrets never pass through command words, so they never reach output or history.
@MainActor
public protocol SecretPrompting: AnyObject {
    /// `confirm` asks twice at a terminal and requires both to match.
    func secret(_ prompt: String, confirm: Bool) throws -> String
}

/// The service slots of the shop. Each is filled by whoever provides it: the host (`data`,
/// `secrets`, `passwords`) or a feature plugin; plugins find each other's services only
/// through these.
public enum Services {
    public static let data = ServiceKey<any DataManaging>("data")
    public static let secrets = ServiceKey<any SecretPrompting>("secrets")
    /// Password hashing (scrypt in the host), so that no plugin links a crypto library.
    public static let passwords = ServiceKey<any PasswordHashing>("passwords")
    public static let content = ServiceKey<any ContentManaging>("content")
    public static let accounts = ServiceKey<any AccountManaging>("accounts")
    /// Filled only while someone is logged in.
    public static let user = ServiceKey<UserAccount>("user")
    public static let carts = ServiceKey<any CartManaging>("carts")
    public static let payments = ServiceKey<any PaymentManaging>("payments")
}
