import CoordSession

/// What a front's own command came to, for the front to put in its form (a reply at the
/// terminal, a frame to a client).
package enum FrontAnswer: Equatable, Sendable {
    /// Done: the line to show.
    case done(String)
    /// Not done: one error line and its code.
    case failed(code: String, message: String)
}

extension Supervisor {
    /// The one line every command gets while the app is stopped.
    package var stoppedLine: String { Self.stopped(because: stoppedBecause ?? "it crashed") }

    /// "The app is stopped", why when given, and what starts it again: the one wording of it.
    static func stopped(because why: String?) -> String {
        "the app is stopped\(why.map { " (\($0))" } ?? ""); '\(FrontCommand.restart.usage)' starts it again"
    }

    /// What a restart says when it brought the app back.
    package static let startedAgain = "the app was started again"

    /// Answers a front's own command (`FrontCommand`) for `scenes` — every scene of the
    /// front: an upgrade or a restart moves them all. The one place both fronts (the
    /// supervised shell and a supervised `serve`) decide it.
    package func answer(_ command: FrontCommand, scenes: [SceneLink]) -> FrontAnswer {
        switch command {
        case .upgrade:
            let notice = upgrade(scenes)
            return notice.isWarning ? .failed(code: "upgrade", message: notice.text) : .done(notice.text)
        case .restart:
            guard worker == nil else {
                let refusal = FrontCommand.restart.unanswered(supervised: true)
                return .failed(code: refusal.code, message: refusal.message)
            }
            do {
                try restart(scenes)
            } catch {
                return .failed(code: "stopped", message: "\(FrontCommand.restart.usage): \(error)")
            }
            return .done(Self.startedAgain)
        }
    }
}
