import SwiftSyntax
import SwiftSyntaxMacros

/// `@Page(feature:)`: the `Page` conformance of an enum, from its cases (see CoordMacros).
public struct PageExpansion: MemberMacro {
    static let types = ["Int", "String", "Bool", "Double", "RouteRequest"]

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let (feature, shape) = read(node, declaration, context) else { return [] }
        let a = shape.access
        let cases = shape.cases.map { pageCase in
            let construct = pageCase.construction(typeName: shape.typeName, from: "arguments")
            return """
                PageCase(\(literal(pageCase.name)), \(pageCase.parametersExpression), summary: \(literal(pageCase.summary))) { \(pageCase.parameters.isEmpty ? "_" : "arguments") in
                    \(construct)
                },
            """
        }
        return [
            "\(raw: a)static let feature = \(raw: literal(feature))",
            "\(raw: a)static let cases: [PageCase] = [\n\(raw: cases.joined(separator: "\n"))\n]",
            """
            \(raw: a)var name: String {
                switch self {
            \(raw: shape.cases.map { "    case .\($0.swiftName): \(literal($0.name))" }.joined(separator: "\n"))
                }
            }
            """,
            shape.argumentsProperty,
        ]
    }

    private static func read(
        _ node: AttributeSyntax, _ declaration: some DeclGroupSyntax, _ context: some MacroExpansionContext
    ) -> (String, EnumShape)? {
        let feature = stringArgument("feature", of: node, in: context) { name in
            name.isEmpty || !name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") })
                ? "a feature name is ASCII letters, digits, '_' and '-'" : nil
        }
        let shape = EnumShape.read(declaration, attribute: node, macro: "Page", conformance: "Page", allowedTypes: types, in: context)
        guard let feature, let shape else { return nil }
        return (feature, shape)
    }
}
