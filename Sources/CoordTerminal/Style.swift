import CoordSession
import Foundation

/// Colours for a terminal, and none anywhere else: only when the stream is a terminal, never
/// with `NO_COLOR` set (https://no-color.org) or `TERM=dumb`.
struct Style: Sendable {
    let enabled: Bool

    /// Not a terminal: no colour, and no variable looked up.
    init(fileDescriptor: Int32) {
        guard isatty(fileDescriptor) == 1 else {
            enabled = false
            return
        }
        // Two variables read, not the whole environment copied into a dictionary (which every
        // shell's start did twice, for a script's output that is not a terminal at all).
        let noColor = getenv("NO_COLOR").map { String(cString: $0) } ?? ""
        let term = getenv("TERM").map { String(cString: $0) }
        enabled = noColor.isEmpty && term != "dumb"
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
        guard enabled else { return text }
        if text.hasPrefix("── ") { return heading(text) }
        if text.hasPrefix("note: ") { return note(text) }
        return text
    }
}
