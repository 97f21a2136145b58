import CoordSDK
import CoordShop

final class WishlistCoordinator: Coordinator {
    init() {
        super.init(identifier: WishlistPage.feature)
        // Every verb needs a logged-in person: until then the message waits in this
        // coordinator's queue, and replays by itself after `account login`.
        handle(
            WishlistMessage.self, everyVerbNeeds: [Services.user.key],
            whileWaiting: { [unowned self] _, _ in try askForLogin() }
        ) { [unowned self] message, original in
            let (store, userID) = try whose()
            switch message {
            case .add(let productID):
                guard let id = productID ?? original.sentFromPage("content", "product")?.int("id") else {
                    throw CoordError.failed("wishlist add: give a product id, or open a product page first")
                }
                try store.add(id, for: userID)
            case .remove(let productID):
                guard try store.remove(productID, for: userID) else {
                    throw CoordError.failed("wishlist remove: product \(productID) is not on your wishlist")
                }
            case .move(let productID):
                guard try store.items(for: userID).contains(where: { $0.productID == productID }) else {
                    throw CoordError.failed("wishlist move: product \(productID) is not on your wishlist")
                }
                try send("cartAdd", ["productID": productID])  // the Cart feature's message
                _ = try store.remove(productID, for: userID)
                return .handled
            case .show:
                break
            }
            try show(WishlistPage.list)
            return .handled
        }
    }

    /// Runs when a message starts waiting for a login: show the login page, say why.
    private func askForLogin() throws -> String {
        try display(route: "account/login")
        return "log in to use your wishlist ('account login EMAIL')"
    }

    override func makeView(for page: any Page) throws -> PageView { WishlistView(page: page) }
}

extension Responder {
    /// The store and the logged-in person (a need of every verb, so there when a handler runs).
    func whose() throws -> (WishlistStore, Int64) {
        (try require(Services.wishlist, for: "wishlist"), try require(Services.user, for: "wishlist").id)
    }
}

/// The list, read from the store each time it is shown.
final class WishlistView: PageView {
    override func render() -> Rendering {
        do {
            let (store, userID) = try whose()
            let lines = try store.items(for: userID).map { item in
                "#\(item.productID)  " + (item.name.map { "\($0) — \(item.price.map(String.init(describing:)) ?? "")" } ?? "(no longer in the catalog)")
            }
            return Rendering(title: "Wishlist", lines: lines.isEmpty ? ["(empty)"] : lines + ["wishlist move ID — put one in the cart"])
        } catch {
            return Rendering(title: "Wishlist", lines: ["(cannot be read: \(error))"])
        }
    }
}
