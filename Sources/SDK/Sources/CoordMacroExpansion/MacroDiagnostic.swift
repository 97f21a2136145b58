import SwiftDiagnostics

/// A compile-time error of `@Page` or `@Messages`, shown on the line it is about.
struct MacroDiagnostic: DiagnosticMessage {
    let message: String
    let diagnosticID: MessageID
    let severity: DiagnosticSeverity = .error

    init(_ message: String, id: String) {
        self.message = message
        self.diagnosticID = MessageID(domain: "CoordMacros", id: id)
    }
}
