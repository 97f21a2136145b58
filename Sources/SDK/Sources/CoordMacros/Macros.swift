@_exported import CoordSDK

/// Makes an enum a feature's `Page` from its cases: one route per case, named as the case;
/// one parameter per associated value, named by its label and typed by its type (`Int`,
/// `String`, `Bool`, `RouteRequest`, or an optional of one, which makes the parameter
/// optional); summaries from the doc comments (`/// one item` on the case, `- Parameter id:
/// item number` for a parameter).
///
///     @Page(feature: "wishlist")
///     enum WishlistPage {
///         /// your wishlist
///         case list
///         /// one item
///         /// - Parameter id: the product's id
///         case item(id: Int)
///     }
///
/// It writes what a hand-written conformance writes three times over (the cases with their
/// constructors, `name`, `arguments`), so the three cannot drift apart, and never force
/// unwraps. A case whose values have no route form is a compile-time error naming the case.
@attached(member, names: named(feature), named(cases), named(name), named(arguments))
@attached(extension, conformances: Page)
public macro Page(feature: String) = #externalMacro(module: "CoordMacroPlugin", type: "PageMacro")

/// Makes an enum a feature's messages (`FeatureMessage`): one message per case, the verb
/// named as the case (`add` with the prefix `cart` is `cartAdd`), one argument per associated
/// value, typed as for `@Page` plus `Secret` for an argument that must never be kept. Default
/// values are allowed and are Swift's only (`.add()` in code); what the shell asks for is
/// what the optionals say.
///
///     @Messages(prefix: "wishlist")
///     enum WishlistMessage {
///         /// add a product
///         /// - Parameter productID: the product's id
///         case add(productID: Int)
///         /// show the wishlist
///         case show
///     }
///
/// The coordinator then handles all of them with one exhaustive `switch`
/// (`handle(WishlistMessage.self) { message, _ in switch message { … } }`), and the feature
/// declares them with `FeatureDefinition(name:pages:messages: WishlistMessage.self, …)`.
@attached(member, names: named(prefix), named(specs), named(Verb), named(verb), named(init), named(arguments))
@attached(extension, conformances: FeatureMessage)
public macro Messages(prefix: String) = #externalMacro(module: "CoordMacroPlugin", type: "MessagesMacro")
