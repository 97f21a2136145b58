import CoordSession
import Foundation

/// Colours for a terminal, and none anywhere else: only when the stream is a terminal, never
/// with `NO_COLOR` set (https://no-color.org) or `TERM=dumb`.
struct Style: Sendable {
    let enabled: Bool

    init(fileDescriptor: Int32, environment: [String: String] = ProcessInfo.processInfo.environment) {
        enabled = isatty(fileDescriptor) == 1 && (environment["NO_COLOR"] ?? "").isEmpty && environment["TERM"] != "dumb"
    }

    private func wrap(_ text: String, _ code: String) -> String {
        enabled ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }

    func heading(_ text: String) -> String { wrap(text, "1;36") }
    func error(_ text: String) -> String { wrap(text, "1;31") }
    func warning(_ text: String) -> String { wrap(text, "33") }
    func note(_ text: String) -> String { wrap(text, "2") }

    /// A result line: page headings stand out, notes recede.
    func line(_ text: String) -> String {
        if text.hasPrefix("── ") { return heading(text) }
        if text.hasPrefix("note: ") { return note(text) }
        return text
    }
}
