import Foundation

/// What happened to the app's worker processes since their front (the supervised shell, or a
/// supervised `serve`) started: the new workers it started and why, and the plugins whose code
/// ended one (a trap, or a hang it was killed for). The front keeps it; each new worker is
/// given it at start (`variable`), so that `plugins stats` — which runs in the worker, whose
/// figures a crash takes with it — can say what the crashes cost and whose they were.
package struct WorkerHistory: Sendable, Equatable, Codable {
    /// Why a new worker was started: the last one `crash`ed or `hang`s and was killed, the
    /// person asked (`restart`), or a new plugin version was taken up (`upgrade`).
    package enum Cause: String, Sendable, CaseIterable, Codable {
        case crash, hang, restart, upgrade
    }

    /// New workers started (or tried), by cause (`Cause.rawValue`).
    package var restarts: [String: Int] = [:]
    /// Workers ended by a plugin's code, by plugin: its traps and its hangs.
    package var crashes: [String: Int] = [:]

    package init() {}

    /// The environment variable a worker is given it in (read before its environment is
    /// blanked).
    package static let variable = "COORDSH_WORKER_HISTORY"

    package var isEmpty: Bool { restarts.values.allSatisfy { $0 == 0 } && crashes.isEmpty }

    package func restarts(_ cause: Cause) -> Int { restarts[cause.rawValue] ?? 0 }

    package mutating func count(_ cause: Cause, by change: Int = 1) {
        restarts[cause.rawValue, default: 0] += change
    }

    /// As the environment carries it: JSON.
    package var encoded: String {
        (try? JSONEncoder().encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// From the environment; nil for anything else than what `encoded` writes.
    package init?(encoded text: String) {
        guard let history = try? JSONDecoder().decode(Self.self, from: Data(text.utf8)) else { return nil }
        self = history
    }
}
