import SwiftSyntax
import SwiftSyntaxMacros

/// `@Messages(prefix:)`: the `FeatureMessage` conformance of an enum, from its cases (see
/// CoordMacros).
public struct MessagesExpansion: MemberMacro {
    static let types = ["Int", "String", "Bool", "Double", "RouteRequest", "Secret"]

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (prefix, shape) = read(node, declaration, context) else { return [] }
        let a = shape.access
        let specs = shape.cases.map { message in
            "    MessageSpec(\(literal(message.name)), \(message.parametersExpression), summary: \(literal(message.summary))),"
        }
        let decodings = shape.cases.map { message in
            let name = prefix + message.name.prefix(1).uppercased() + message.name.dropFirst()
            return "    case \(literal(name)):\n        self = \(message.construction(typeName: shape.typeName, from: "message.arguments"))"
        }
        return [
            "\(raw: a)static let prefix = \(raw: literal(prefix))",
            "\(raw: a)static let specs: [MessageSpec] = [\n\(raw: specs.joined(separator: "\n"))\n]",
            """
            \(raw: a)enum Verb: String, CaseIterable, Sendable {
            \(raw: shape.cases.map { "    case \($0.swiftName)" }.joined(separator: "\n"))
            }
            """,
            """
            \(raw: a)var verb: Verb {
                switch self {
            \(raw: shape.cases.map { "    case .\($0.swiftName): .\($0.swiftName)" }.joined(separator: "\n"))
                }
            }
            """,
            """
            \(raw: a)init?(_ message: Message) throws(CoordError) {
                switch message.name.string {
            \(raw: decodings.joined(separator: "\n"))
                default:
                    return nil
                }
            }
            """,
            shape.argumentsProperty,
        ]
    }

    private static func read(
        _ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, _ context: some MacroExpansionContext
    ) -> (String, EnumShape)? {
        let prefix = stringArgument("prefix", of: node, in: context) { prefix in
            guard let first = prefix.first, first.isASCII, first.isLowercase,
                prefix.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) })
            else { return "a prefix is lower-case ASCII letters and digits, starting with a letter" }
            return prefix == "global" ? "'global' is the app's own prefix" : nil
        }
        let shape = EnumShape.read(declaration, attribute: node, macro: "Messages", conformance: "FeatureMessage", allowedTypes: types, in: context)
        guard let prefix, let shape else { return nil }
        return (prefix, shape)
    }
}
