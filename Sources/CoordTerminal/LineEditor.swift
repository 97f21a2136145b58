import CLineEdit
import CoordRuntime
import CoordSession
import Foundation

/// The interactive line: libedit's editing, history and completion (through the CLineEdit
/// shim), with completion candidates from the shell's backend (this process's app, or the
/// server's).
@MainActor
final class LineEditor {
    enum Input {
        case line(String)
        /// Ctrl-C: the line was cancelled; prompt again.
        case interrupted
        /// The watch handler took the terminal back before anything was typed (to ask the
        /// person something); prompt again afterwards.
        case yielded
        /// Ctrl-D on an empty line, or the terminal went away.
        case end
    }

    /// The editor whose backend answers Tab (libedit's callback has no context pointer).
    private static var active: LineEditor?

    let backend: ShellBackend
    /// Where history is kept, or nil for none (`--no-history`).
    let historyPath: String?
    static let historyLimit = 1000

    /// Throws when libedit cannot be opened (it is opened here, by the prompt, not linked).
    init(backend: ShellBackend, historyPath: String?) throws(ShellError) {
        var reason = [CChar](repeating: 0, count: 256)
        guard coordsh_edit_load(&reason, reason.count) == 0 else {
            let why = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            throw ShellError(
                "the interactive prompt needs line editing: \(why); -c and -f scripts run without it", code: "line_editing", status: .failure)
        }
        self.backend = backend
        self.historyPath = historyPath
        LineEditor.active = self
        coordsh_edit_init("coordsh") { word, line in
            MainActor.assumeIsolated {
                guard let editor = LineEditor.active, let word, let line else { return }
                for candidate in editor.backend.completions(line: String(cString: line), word: String(cString: word)) {
                    coordsh_edit_add_candidate(candidate)
                }
            }
        }
        coordsh_edit_history_limit(Int32(Self.historyLimit))
        if let historyPath { _ = coordsh_edit_history_load(historyPath) }
    }

    /// What a watch handler did.
    enum WatchOutcome: Int32 {
        case nothing = 0
        /// It printed: the prompt is drawn again.
        case printed = 1
        /// It printed and wants the terminal: the read ends (`yielded`) unless a line is half
        /// typed.
        case wantsTerminal = 2
    }

    /// Runs `handler` whenever `descriptor` becomes readable while a line is read.
    func watch(_ descriptor: Int32, _ handler: @escaping @MainActor () -> WatchOutcome) {
        watchDescriptor = descriptor
        onWatch = handler
    }

    private var watchDescriptor: Int32 = -1
    private var onWatch: (@MainActor () -> WatchOutcome)?

    func read(prompt: String) -> Input {
        var interrupted: Int32 = 0
        let raw = coordsh_edit_readline(prompt, &interrupted, watchDescriptor) {
            MainActor.assumeIsolated { (LineEditor.active?.onWatch?() ?? .nothing).rawValue }
        }
        guard let raw else {
            return interrupted == 2 ? .yielded : interrupted != 0 ? .interrupted : .end
        }
        defer { free(raw) }
        return .line(String(cString: raw))
    }

    /// Adds a line to the history and saves it, unless it is blank or carries a secret.
    func remember(_ line: String) {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !backend.isSecret(trimmed) else { return }
        coordsh_edit_history_add(trimmed)
        guard let historyPath else { return }
        let folder = (historyPath as NSString).deletingLastPathComponent
        try? PrivateFolder.create(folder)
        _ = coordsh_edit_history_save(historyPath)
        chmod(historyPath, 0o600)
    }
}
