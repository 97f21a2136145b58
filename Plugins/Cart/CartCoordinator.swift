import CoordSDK

/// Runs the cart flow. The lines live in this coordinator for now; the shop issue moves them
/// into the SQLite store behind a cart service in AppDependency.
final class CartCoordinator: Coordinator {
    static let add = MessageName("cartAdd")
    static let remove = MessageName("cartRemove")
    static let showCart = MessageName("cartShow")
    static let checkout = MessageName("cartCheckout")
    static let offer = MessageName("cartOffer")

    /// Product id → quantity, in the order first added.
    private(set) var lines: [(productID: Int, quantity: Int)] = []
    static let maximumQuantity = 999

    init() {
        super.init(identifier: CartPage.feature)
        handle(Self.add) { [unowned self] message in
            let id = try message.arguments.int("productID") ?? productShown(by: message)
            let quantity = message.arguments.int("quantity") ?? 1
            guard (1...Self.maximumQuantity).contains(quantity) else {
                throw CoordError.failed("cart add: quantity must be between 1 and \(Self.maximumQuantity), got \(quantity)")
            }
            if let index = lines.firstIndex(where: { $0.productID == id }) {
                let total = lines[index].quantity + quantity
                guard total <= Self.maximumQuantity else {
                    throw CoordError.failed("cart add: at most \(Self.maximumQuantity) of product \(id) per cart")
                }
                lines[index].quantity = total
            } else {
                lines.append((id, quantity))
            }
            try show(CartPage.cart)
            return .handled
        }
        handle(Self.remove) { [unowned self] message in
            let id = message.arguments.int("productID")!
            guard lines.contains(where: { $0.productID == id }) else {
                throw CoordError.failed("cart remove: product \(id) is not in the cart")
            }
            lines.removeAll { $0.productID == id }
            try show(CartPage.cart)
            return .handled
        }
        handle(Self.showCart) { [unowned self] _ in
            try show(CartPage.cart)
            return .handled
        }
        handle(Self.checkout) { [unowned self] _ in
            guard !lines.isEmpty else { throw CoordError.failed("cart checkout: the cart is empty") }
            try show(CartPage.checkout)
            return .handled
        }
        handle(Self.offer) { [unowned self] message in
            try show(CartPage.offer(code: message.arguments.string("code")!))
            return .handled
        }
    }

    /// `cart add` without an id on a product page adds the product shown there. The cart knows
    /// nothing of the Content plugin's types: it reads the sender's route.
    private func productShown(by message: Message) throws -> Int {
        if let view = message.sender as? PageView, view.page.route.feature == "content",
            view.page.name == "product", let id = view.page.arguments.int("id") {
            return id
        }
        throw CoordError.failed("cart add: give a product id, or open a product page first")
    }

    override func makeView(for page: any Page) throws -> PageView {
        guard let page = page as? CartPage else { return try super.makeView(for: page) }
        return CartView(page: page)
    }
}

/// Shows the cart's lines, the checkout summary or an offer.
final class CartView: PageView {
    override func render() -> Rendering {
        let lines = (coordinator as? CartCoordinator)?.lines ?? []
        let items = lines.map { "product \($0.productID) × \($0.quantity)" }
        switch page as? CartPage {
        case .checkout:
            return Rendering(title: "Checkout", lines: items + ["payment method — choose how to pay"])
        case .offer(let code):
            return Rendering(title: "Offer \(code)", lines: [], fields: ["code": code])
        case .cart, nil:
            let count = lines.reduce(0) { $0 + $1.quantity }
            return Rendering(
                title: "Cart (\(count) item\(count == 1 ? "" : "s"))", lines: items.isEmpty ? ["(empty)"] : items,
                fields: ["items": String(count)])
        }
    }
}
