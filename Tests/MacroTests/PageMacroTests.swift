import SwiftSyntaxMacrosGenericTestSupport
import Testing

@Suite("@Page: the Page conformance from the enum")
struct PageMacroTests {
    @Test("every supported shape: no value, Int, String, Bool, a route, optionals of each; doc comments as summaries")
    func shapes() {
        expect(
            """
            @Page(feature: "wishlist")
            public enum WishlistPage: Page {
                /// your wishlist
                case list
                /// one item
                /// - Parameter id: the product's id
                case item(id: Int, note: String?)
                /// Filtered.
                ///
                /// - Parameters:
                ///   - onlyNew: only what is new
                ///   - back: where 'back' goes
                case filtered(onlyNew: Bool, back: RouteRequest?, limit: Optional<Int>, tag: Swift.String)
            }
            """,
            expands: """
            public enum WishlistPage: Page {
                /// your wishlist
                case list
                /// one item
                /// - Parameter id: the product's id
                case item(id: Int, note: String?)
                /// Filtered.
                ///
                /// - Parameters:
                ///   - onlyNew: only what is new
                ///   - back: where 'back' goes
                case filtered(onlyNew: Bool, back: RouteRequest?, limit: Optional<Int>, tag: Swift.String)

                public static let feature = "wishlist"

                public static let cases: [PageCase] = [
                    PageCase("list", [], summary: "your wishlist") { _ in
                        WishlistPage.list
                    },
                    PageCase("item", [Parameter("id", .int, summary: "the product's id"), Parameter("note", .string, optional: true)], summary: "one item") { arguments in
                        WishlistPage.item(id: try arguments.require("id", as: Int.self), note: arguments.value("note", as: String.self))
                    },
                    PageCase("filtered", [Parameter("onlyNew", .bool, summary: "only what is new"), Parameter("back", .route, optional: true, summary: "where 'back' goes"), Parameter("limit", .int, optional: true), Parameter("tag", .string)], summary: "Filtered.") { arguments in
                        WishlistPage.filtered(onlyNew: try arguments.require("onlyNew", as: Bool.self), back: arguments.value("back", as: RouteRequest.self), limit: arguments.value("limit", as: Int.self), tag: try arguments.require("tag", as: String.self))
                    },
                ]

                public var name: String {
                    switch self {
                    case .list:
                        "list"
                    case .item:
                        "item"
                    case .filtered:
                        "filtered"
                    }
                }

                public var arguments: Arguments {
                    switch self {
                    case .list:
                        Arguments()
                    case .item(let id, let note):
                        Arguments(omittingNil: [("id", id.argumentValue), ("note", note?.argumentValue)])
                    case .filtered(let onlyNew, let back, let limit, let tag):
                        Arguments(omittingNil: [("onlyNew", onlyNew.argumentValue), ("back", back?.argumentValue), ("limit", limit?.argumentValue), ("tag", tag.argumentValue)])
                    }
                }
            }
            """)
    }
}

@Suite("@Page and @Messages: what they refuse at compile time, naming the case")
struct MacroErrorTests {
    @Test("an associated value with no route form names the case and the value")
    func unsupportedType() {
        expect(
            """
            @Page(feature: "map")
            enum MapPage: Page {
                case here
                case point(x: Float, y: Float?)
                case many(ids: [Int])
                case twice(id: Int??)
            }
            """,
            expands: """
            enum MapPage: Page {
                case here
                case point(x: Float, y: Float?)
                case many(ids: [Int])
                case twice(id: Int??)
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "case 'point': 'x' is of type Float, which has no route form; use Int, String, Bool, Double or RouteRequest, or an optional of one", line: 4, column: 19),
                DiagnosticSpec(message: "case 'point': 'y' is of type Float?, which has no route form; use Int, String, Bool, Double or RouteRequest, or an optional of one", line: 4, column: 29),
                DiagnosticSpec(message: "case 'many': 'ids' is of type [Int], which has no route form; use Int, String, Bool, Double or RouteRequest, or an optional of one", line: 5, column: 20),
                DiagnosticSpec(message: "case 'twice': 'id' is of type Int??, which has no route form; use Int, String, Bool, Double or RouteRequest, or an optional of one", line: 6, column: 20),
            ])
    }

    @Test("an unlabeled value, a raw value, two cases the shell cannot tell apart, a secret in a page")
    func shapeErrors() {
        expect(
            """
            @Page(feature: "map")
            enum MapPage: Page {
                case point(Int)
                case zoom(level: Int, _ fine: Bool)
                case card(number: Secret)
                case home, Home
            }
            """,
            expands: """
            enum MapPage: Page {
                case point(Int)
                case zoom(level: Int, _ fine: Bool)
                case card(number: Secret)
                case home, Home
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "case 'point': associated value 1 needs a label, which becomes the parameter's name: 'point(parameter: Int)'", line: 3, column: 16),
                DiagnosticSpec(message: "case 'zoom': associated value 2 needs a label, which becomes the parameter's name: 'zoom(parameter: Bool)'", line: 4, column: 27),
                DiagnosticSpec(message: "case 'card': 'number' is a Secret, which a page cannot have: a page's parameters are shown in its route and kept in the history; take it as a message argument", line: 5, column: 23),
                DiagnosticSpec(message: "case 'Home': another case differs from it only in case, and the shell could not tell them apart", line: 6, column: 16),
            ])
    }

    @Test("the attribute's argument: not a literal, not a valid feature or prefix; not an enum")
    func attributeErrors() {
        expect(
            """
            @Page(feature: name)
            enum MapPage: Page {
                case here
            }
            @Page(feature: "a map")
            enum OtherPage: Page {
                case here
            }
            @Messages(prefix: "Cart")
            enum CartMessage: FeatureMessage {
                case add
            }
            @Messages(prefix: "global")
            enum GlobalMessage: FeatureMessage {
                case quit
            }
            @Page(feature: "map")
            struct NotAnEnum {
            }
            """,
            expands: """
            enum MapPage: Page {
                case here
            }
            enum OtherPage: Page {
                case here
            }
            enum CartMessage: FeatureMessage {
                case add
            }
            enum GlobalMessage: FeatureMessage {
                case quit
            }
            struct NotAnEnum {
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "feature: must be a plain string literal (the macro reads it at compile time)", line: 1, column: 1),
                DiagnosticSpec(message: "feature 'a map': a feature name is ASCII letters, digits, '_' and '-'", line: 5, column: 16),
                DiagnosticSpec(message: "prefix 'Cart': a prefix is lower-case ASCII letters and digits, starting with a letter", line: 9, column: 19),
                DiagnosticSpec(message: "prefix 'global': 'global' is the app's own prefix", line: 13, column: 19),
                DiagnosticSpec(message: "@Page applies to an enum: one case per page", line: 17, column: 1),
            ])
    }

    @Test("an enum that does not state its conformance is told to")
    func conformance() {
        expect(
            """
            @Page(feature: "map")
            enum MapPage {
                case here
            }
            @Messages(prefix: "map")
            enum MapMessage: Equatable {
                case zoom
            }
            """,
            expands: """
            enum MapPage {
                case here
            }
            enum MapMessage: Equatable {
                case zoom
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "@Page writes the members of 'Page'; declare the conformance on the enum: 'enum MapPage: Page'", line: 2, column: 6),
                DiagnosticSpec(message: "@Messages writes the members of 'FeatureMessage'; declare the conformance on the enum: 'enum MapMessage: FeatureMessage'", line: 6, column: 6),
            ])
    }

    @Test("a verb that does not start with a lower-case letter, and a raw value")
    func verbErrors() {
        expect(
            """
            @Messages(prefix: "map")
            enum MapMessage: String, FeatureMessage {
                case Zoom
                case pan = "move"
            }
            """,
            expands: """
            enum MapMessage: String, FeatureMessage {
                case Zoom
                case pan = "move"
            }
            """,
            diagnostics: [
                DiagnosticSpec(message: "case 'Zoom': a verb starts with a lower-case letter (it follows the prefix: cartAdd)", line: 3, column: 10),
                DiagnosticSpec(message: "case 'pan': raw values have no meaning here; remove '= \"move\"'", line: 4, column: 14),
            ])
    }
}
