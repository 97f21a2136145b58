import CoordMacroExpansion
import SwiftSyntaxMacrosGenericTestSupport
import SwiftSyntaxMacroExpansion
import SwiftSyntaxMacros
import Testing

/// The macros as the compiler runs them, from source to expanded source.
let macros: [String: MacroSpec] = [
    "Page": MacroSpec(type: PageExpansion.self, conformances: ["Page"]),
    "Messages": MacroSpec(type: MessagesExpansion.self, conformances: ["FeatureMessage"]),
]

/// Expands `source` and compares with `expanded` (and the errors with `diagnostics`),
/// recording each difference as a test issue at the caller's line.
func expect(
    _ source: String, expands expanded: String, diagnostics: [DiagnosticSpec] = [],
    sourceLocation: SourceLocation = #_sourceLocation
) {
    assertMacroExpansion(source, expandedSource: expanded, diagnostics: diagnostics, macroSpecs: macros) { failure in
        Issue.record(Comment(rawValue: failure.message), sourceLocation: sourceLocation)
    }
}
