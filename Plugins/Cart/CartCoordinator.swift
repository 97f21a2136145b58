import CoordSDK
import CoordShop

/// Runs the cart flow: fill the cart, apply a promo code, check out.
///
/// Checkout needs a logged-in user. It declares that as a need (`accounts` and `user`), so
/// while nobody is logged in the message waits in this coordinator's queue; its waiting
/// handler shows the login page, or says that no account provider is loaded. When the
/// Account feature reports a user (or is loaded), the new `AppDependency` reaches this
/// coordinator and the checkout replays by itself.
final class CartCoordinator: Coordinator {
    init() {
        super.init(identifier: CartPage.feature)
        handle(
            CartMessage.self, needs: [.checkout: [Services.accounts.key, Services.user.key]],
            whileWaiting: [.checkout: { [unowned self] message, missing in try checkoutWaits(message, missing) }]
        ) { [unowned self] message, original in
            // The cart as the command left it, for the page it shows (read once per command).
            let cart: CartSummary
            switch message {
            case .add(let productID, let quantity):
                let id = try productID ?? productShown(by: original)
                cart = try carts("cart add").add(id, quantity: quantity ?? 1, for: owner, mergingGuest: guest)
            case .remove(let productID):
                cart = try carts("cart remove").remove(productID, for: owner, mergingGuest: guest)
            case .set(let productID, let quantity):
                cart = try carts("cart set").set(productID, quantity: quantity, for: owner, mergingGuest: guest)
            case .show:
                cart = try carts("cart show").summary(for: owner, mergingGuest: guest)  // fails the command if it cannot be read
            case .offer(let code):
                let applied = try carts("cart offer").apply(offer: code, for: owner, mergingGuest: guest)
                report(.note("promo code \(applied.offer.code) applied: \(applied.offer.summary)"))
                cart = applied.cart
            case .checkout:
                try checkout()
                return .handled
            }
            try show(CartPage.cart, with: cart)
            return .handled
        }
    }

    /// Shows `page` (a new view, or the one on top refreshed), rendered from `cart` instead of
    /// reading the cart again.
    private func show(_ page: CartPage, with cart: CartSummary) throws {
        (try show(page) as? CartView)?.render(from: cart)
    }

    /// Checkout runs once someone is logged in (declared as a need, so it waits until then).
    private func checkout() throws {
        // A need, so it is there when the handler runs; a guard, not a trap.
        guard let user = dependencies?[Services.user] else {
            throw CoordError.failed("cart checkout: nobody is logged in; 'account login EMAIL' first")
        }
        let carts = try carts("cart checkout")
        let cart = try carts.summary(for: .user(user.id), mergingGuest: guest)
        guard !cart.isEmpty else {
            throw CoordError.failed("cart checkout: the cart is empty; 'cart add PRODUCT_ID' first")
        }
        let checkout = try carts.beginCheckout(for: user.id)
        try show(CartPage.checkout(key: checkout.key), with: cart)
    }

    /// Whose cart the commands act on: the logged-in user's, else the scene's guest cart.
    var owner: CartOwner { CartCoordinator.owner(dependencies) }
    /// The scene's guest cart, merged into the user's the first time it is touched after a login.
    var guest: CartOwner { CartCoordinator.guest(dependencies) }

    static func owner(_ dependencies: AppDependency?) -> CartOwner {
        if let user = dependencies?[Services.user] { return .user(user.id) }
        return guest(dependencies)
    }

    /// The scene's guest cart: its visitor's (the host says who the scene is for).
    static func guest(_ dependencies: AppDependency?) -> CartOwner {
        // Not `Optional.map`: a closure made on the main actor and handed to the standard
        // library checks its executor at each call, and this runs twice a cart command.
        if let visitor = dependencies?[Services.visitor] { return .guest(visitor.key) }
        return .sharedGuest
    }

    /// A client's guest cart is its scene's alone: when the scene closes, it goes too.
    override func sceneWillClose() {
        guard let visitor = dependencies?[Services.visitor], visitor.endsWithScene,
            let carts = try? carts("cart")
        else { return }
        let owner = CartOwner.guest(visitor.key)
        do {
            try carts.discard(owner)
        } catch {
            report(.note("cart: could not discard the guest cart \(owner): \(error)"))
        }
    }

    private func carts(_ context: String) throws -> CartService {
        guard let service = try require(Services.carts, for: context) as? CartService else {
            throw CoordError.failed("\(context): the carts service is not the Cart feature's")
        }
        return service
    }

    /// Called when a checkout has to wait for a user: refuse an empty cart at once, otherwise
    /// show the login page, or explain that there is nobody to log in with yet.
    private func checkoutWaits(_ message: Message, _ missing: [DependencyKey]) throws -> String? {
        guard try !carts("cart checkout").summary(for: guest, mergingGuest: nil).isEmpty else {
            throw CoordError.failed("cart checkout: the cart is empty; 'cart add PRODUCT_ID' first")
        }
        if missing.contains(Services.accounts.key) {
            return "cart checkout needs an account provider and no loaded plugin provides 'accounts'; "
                + "it continues once one is loaded ('plugins load PATH')"
        }
        try display(route: "account/login")
        return "log in to continue the checkout ('account login EMAIL')"
    }

    /// `cart add` without an id on a product page adds the product shown there. The cart knows
    /// nothing of the Content plugin's types: it reads the sender's route.
    private func productShown(by message: Message) throws -> Int {
        if let id = message.sentFromPage("content", "product")?.int("id") { return id }
        throw CoordError.failed("cart add: give a product id, or open a product page first")
    }

    override func makeView(for page: any Page) throws -> PageView {
        guard let page = page as? CartPage else { return try super.makeView(for: page) }
        if case .offer(let code) = page {
            return CartView(page: page, offer: try carts("cart/offer").offer(code))
        }
        return CartView(page: page, offer: nil)
    }
}
