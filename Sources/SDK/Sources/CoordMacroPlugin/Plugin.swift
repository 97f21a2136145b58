import CoordMacroExpansion
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin: the macros CoordMacros declares. The compiler asks this executable for
/// `CoordMacroPlugin.PageMacro`, so the types must live in this module; each forwards to its
/// expansion in CoordMacroExpansion, a plain library that the expansion tests link.
@main
struct CoordMacroPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [PageMacro.self, MessagesMacro.self]
}

/// `@Page(feature:)`.
struct PageMacro: MemberMacro {
    static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try PageExpansion.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }
}

/// `@Messages(prefix:)`.
struct MessagesMacro: MemberMacro {
    static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try MessagesExpansion.expansion(of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }
}
