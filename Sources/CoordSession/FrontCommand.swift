@_spi(Host) import CoordSDK

/// The commands a supervising front answers itself — the supervised shell and a supervised
/// `serve` alike (CoordSupervision) — before a line reaches the app process. Declared once,
/// here: the fronts match lines against it, and the app process's sessions list it in `help`
/// and completion, so that a person sees these words wherever they work.
package enum FrontCommand: CaseIterable, Sendable {
    /// `restart`: starts the app process again once crashes stopped it.
    case restart
    /// `plugins upgrade`: moves every scene to a new app process that loads the plugin folders
    /// as they are now.
    case upgrade

    /// The words the command is, as a line splits into them.
    package var words: [String] {
        switch self {
        case .restart: ["restart"]
        case .upgrade: ["plugins", "upgrade"]
        }
    }

    package var usage: String { words.joined(separator: " ") }

    package var summary: String {
        switch self {
        case .restart: "start the app process again after crashes stopped it"
        case .upgrade: "move every scene to a new app process with the plugin folders as they are now"
        }
    }

    /// The command `line` is, if it is one (split as every command line is: spaces, tabs and
    /// quotes as anywhere else).
    package init?(line: String) {
        guard let words = try? Words.split(line), let command = Self.allCases.first(where: { $0.words == words }) else { return nil }
        self = command
    }

    /// The answer when the command reaches an app itself: in a one-process shell or server,
    /// which has no app process to restart or replace; in an app process, a `restart` while it
    /// runs (its front passes a restart on only when the app is running).
    package func unanswered(supervised: Bool) -> ShellError {
        guard supervised else {
            return ShellError("\(usage): this app runs in this very process (--single-process); \(self == .restart ? "there is no app process to restart" : "start it again to load new plugin versions, or run it supervised (the default)")",
                              code: "not_supervised", status: .failure)
        }
        return ShellError("\(usage): the app is running; 'restart' starts it again only once crashes have stopped it", code: "running", status: .failure)
    }
}
