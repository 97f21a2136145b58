// Names a plugin written against an earlier SDK may still use, each with what replaced it.
//
// The shop's model and service keys left the SDK for CoordShop in SDK 0.6.0, and the guest
// cart became the SDK's scene visitor in CoordShop 2.0.0. Without these, such a plugin got
// "cannot find type 'Product' in scope" and no hint. Unavailable declarations are never chosen
// over the real ones: a plugin that imports CoordShop uses CoordShop's, and one that does not
// gets the message below as its error, which names the fix.

/// Moved: the shop's money amount is `CoordShop.Money`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias Money = Never
/// Moved: a catalogue product is `CoordShop.Product`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias Product = Never
/// Moved: a signed-in person is `CoordShop.UserAccount`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias UserAccount = Never
/// Moved: whose cart it is, `CoordShop.CartOwner`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias CartOwner = Never
/// Moved: `CoordShop.CartLine`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias CartLine = Never
/// Moved: `CoordShop.CartSummary`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias CartSummary = Never
/// Moved: `CoordShop.Checkout`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias Checkout = Never
/// Moved: `CoordShop.Receipt`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias Receipt = Never
/// Moved: `CoordShop.OutboxMessage`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias OutboxMessage = Never
/// Moved: the content service's protocol is `CoordShop.ContentManaging`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias ContentManaging = Never
/// Moved: `CoordShop.AccountManaging`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias AccountManaging = Never
/// Moved: `CoordShop.CartManaging`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias CartManaging = Never
/// Moved: `CoordShop.PaymentManaging`.
@available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'")
public typealias PaymentManaging = Never
/// Gone: a guest's cart is keyed by the scene's visitor now.
@available(*, unavailable, message: "removed in CoordShop 2.0.0: key a guest's data by the scene's visitor, dependencies[Services.visitor] (SceneVisitor)")
public typealias GuestCart = Never

extension Services {
    /// Moved: `Services.user` is CoordShop's.
    @available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop' (the key keeps its name there)")
    public static var user: ServiceKey<Never> { ServiceKey("user") }
    /// Moved: `Services.content` is CoordShop's.
    @available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop' (the key keeps its name there)")
    public static var content: ServiceKey<Never> { ServiceKey("content") }
    /// Moved: `Services.accounts` is CoordShop's.
    @available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop' (the key keeps its name there)")
    public static var accounts: ServiceKey<Never> { ServiceKey("accounts") }
    /// Moved: `Services.carts` is CoordShop's.
    @available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop' (the key keeps its name there)")
    public static var carts: ServiceKey<Never> { ServiceKey("carts") }
    /// Moved: `Services.payments` is CoordShop's.
    @available(*, unavailable, message: "moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop' (the key keeps its name there)")
    public static var payments: ServiceKey<Never> { ServiceKey("payments") }
    /// Gone: the guest cart's key.
    @available(*, unavailable, renamed: "visitor", message: "removed in CoordShop 2.0.0: key a guest's data by the scene's visitor (SceneVisitor)")
    public static var guestCart: ServiceKey<Never> { ServiceKey("guestCart") }
}
