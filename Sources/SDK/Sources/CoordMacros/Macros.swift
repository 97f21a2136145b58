// This module holds only the declarations and does not import CoordSDK: a static module that
// depended on it would link a second copy of CoordSDK into every plugin (DESIGN.md's trap), so
// the enum states its conformance itself (`enum CartPage: Page`) and the macros write the rest.

/// Writes an enum's `Page` conformance from its cases: one route per case, named as the case;
/// one parameter per associated value, named by its label and typed by its type (`Int`,
/// `String`, `Bool`, `RouteRequest`, or an optional of one, which makes the parameter
/// optional); summaries from the doc comments (`/// one item` on the case, `- Parameter id:
/// item number` for a parameter).
///
///     @Page(feature: "wishlist")
///     enum WishlistPage: Page {
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
public macro Page(feature: String) = #externalMacro(module: "CoordMacroPlugin", type: "PageMacro")

/// Writes an enum's `FeatureMessage` conformance (a feature's messages): one message per case, the verb
/// named as the case (`add` with the prefix `cart` is `cartAdd`), one argument per associated
/// value, typed as for `@Page` plus `Secret` for an argument that must never be kept. Default
/// values are allowed and are Swift's only (`.add()` in code); what the shell asks for is
/// what the optionals say.
///
///     @Messages(prefix: "wishlist")
///     enum WishlistMessage: FeatureMessage {
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
public macro Messages(prefix: String) = #externalMacro(module: "CoordMacroPlugin", type: "MessagesMacro")
