import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Messages: the FeatureMessage conformance from the enum")
struct MessagesMacroTests {
    @Test("every supported shape, a secret, default values, doc comments; verbs, specs, decoding and arguments")
    func shapes() {
        expect(
            """
            @Messages(prefix: "cart")
            public enum CartMessage: FeatureMessage {
                /// add a product
                /// - Parameter productID: product id (default: the product shown)
                /// - Parameter quantity: how many (default 1)
                case add(productID: Int? = nil, quantity: Int? = nil)
                /// pay
                /// - Parameter card: card number
                case pay(card: Secret, save: Bool)
                case open(page: RouteRequest, note: String?)
                /// show the cart
                case show
            }
            """,
            expands: """
            public enum CartMessage: FeatureMessage {
                /// add a product
                /// - Parameter productID: product id (default: the product shown)
                /// - Parameter quantity: how many (default 1)
                case add(productID: Int? = nil, quantity: Int? = nil)
                /// pay
                /// - Parameter card: card number
                case pay(card: Secret, save: Bool)
                case open(page: RouteRequest, note: String?)
                /// show the cart
                case show

                public static let prefix = "cart"

                public static let specs: [MessageSpec] = [
                    MessageSpec("add", [Parameter("productID", .int, optional: true, summary: "product id (default: the product shown)"), Parameter("quantity", .int, optional: true, summary: "how many (default 1)")], summary: "add a product"),
                    MessageSpec("pay", [Parameter("card", .string, secret: true, summary: "card number"), Parameter("save", .bool)], summary: "pay"),
                    MessageSpec("open", [Parameter("page", .route), Parameter("note", .string, optional: true)], summary: ""),
                    MessageSpec("show", [], summary: "show the cart"),
                ]

                public enum Verb: String, CaseIterable, Sendable {
                    case add
                    case pay
                    case open
                    case show
                }

                public var verb: Verb {
                    switch self {
                    case .add:
                        .add
                    case .pay:
                        .pay
                    case .open:
                        .open
                    case .show:
                        .show
                    }
                }

                public init?(_ message: Message) throws(CoordError) {
                    switch message.name.string {
                    case "cartAdd":
                        self = CartMessage.add(productID: message.arguments.value("productID", as: Int.self), quantity: message.arguments.value("quantity", as: Int.self))
                    case "cartPay":
                        self = CartMessage.pay(card: try message.arguments.require("card", as: Secret.self), save: try message.arguments.require("save", as: Bool.self))
                    case "cartOpen":
                        self = CartMessage.open(page: try message.arguments.require("page", as: RouteRequest.self), note: message.arguments.value("note", as: String.self))
                    case "cartShow":
                        self = CartMessage.show
                    default:
                        return nil
                    }
                }

                public var arguments: Arguments {
                    switch self {
                    case .add(let productID, let quantity):
                        Arguments(omittingNil: [("productID", productID?.argumentValue), ("quantity", quantity?.argumentValue)])
                    case .pay(let card, let save):
                        Arguments(omittingNil: [("card", card.argumentValue), ("save", save.argumentValue)])
                    case .open(let page, let note):
                        Arguments(omittingNil: [("page", page.argumentValue), ("note", note?.argumentValue)])
                    case .show:
                        Arguments()
                    }
                }
            }
            """)
    }

    @Test("an internal enum gets internal members; a backticked case keeps its name")
    func accessAndKeywords() {
        expect(
            """
            @Messages(prefix: "menu")
            enum MenuMessage: FeatureMessage {
                case `default`(id: Int)
            }
            """,
            expands: """
            enum MenuMessage: FeatureMessage {
                case `default`(id: Int)

                static let prefix = "menu"

                static let specs: [MessageSpec] = [
                    MessageSpec("default", [Parameter("id", .int)], summary: ""),
                ]

                enum Verb: String, CaseIterable, Sendable {
                    case `default`
                }

                var verb: Verb {
                    switch self {
                    case .`default`:
                        .`default`
                    }
                }

                init?(_ message: Message) throws(CoordError) {
                    switch message.name.string {
                    case "menuDefault":
                        self = MenuMessage.`default`(id: try message.arguments.require("id", as: Int.self))
                    default:
                        return nil
                    }
                }

                var arguments: Arguments {
                    switch self {
                    case .`default`(let id):
                        Arguments(omittingNil: [("id", id.argumentValue)])
                    }
                }
            }
            """)
    }
}
