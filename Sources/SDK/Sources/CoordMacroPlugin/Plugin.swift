import CoordMacroExpansion
import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin: the macros CoordMacros declares, expanded by CoordMacroExpansion.
@main
struct CoordMacroPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [PageMacro.self, MessagesMacro.self]
}
