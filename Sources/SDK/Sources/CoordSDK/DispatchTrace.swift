/// The record of one message's trip: every level that saw it and what each did.
///
/// `trace COMMAND` prints this. The chain is the app's central mechanism; being able to see
/// it is what makes a plugin's misrouted message debuggable.
@MainActor
@_spi(Host) public final class DispatchTrace {
    public enum Action: Sendable, Equatable, CustomStringConvertible {
        case passedOn
        case handled
        case handledAndPassedOn
        case queued(waitingFor: [String])
        case routed(to: String)
        case unhandled

        public var description: String {
            switch self {
            case .passedOn: "passed on"
            case .handled: "handled"
            case .handledAndPassedOn: "handled, passed on"
            case .queued(let keys): "queued, waiting for \(keys.joined(separator: ", "))"
            case .routed(let target): "routed to \(target)"
            case .unhandled: "not handled"
            }
        }
    }

    public struct Hop: Sendable, Equatable {
        public let level: String
        public let action: Action
    }

    public let message: String
    public private(set) var hops: [Hop] = []

    public init(message: String) { self.message = message }

    func record(_ level: Responder, _ action: Action) {
        hops.append(Hop(level: level.chainDescription, action: action))
    }
}

/// Something that happened to a message outside of a plain synchronous dispatch: it was
/// queued, replayed later, or could not be delivered. Reported up the chain to the app, whose
/// `eventSink` the shell prints, so that no message is ever lost without a word.
public enum DispatchEvent: Sendable, Equatable, CustomStringConvertible {
    /// A message waits at level `at` for the services `waitingFor`; `reason` is what its
    /// waiting handler said (shown to the person).
    case queued(message: String, at: String, waitingFor: [String], reason: String?)
    /// A waiting message ran once what it waited for arrived.
    case replayed(message: String, at: String)
    /// A waiting message ran and its handler threw: the person sees `error`.
    case replayFailed(message: String, at: String, error: String)
    /// A waiting message was given up (its scene closed, a grant went away): never silently.
    case dropped(message: String, at: String, reason: String)
    /// Something a handler wants the user to know that no page shows (`logged in as …`).
    case note(String)

    public var description: String {
        switch self {
        case .queued(let m, let at, let keys, let reason?):
            "\(m) is waiting at \(at) for \(keys.joined(separator: ", ")): \(reason)"
        case .queued(let m, let at, let keys, nil):
            "\(m) is waiting at \(at) for \(keys.joined(separator: ", "))"
        case .note(let text):
            text
        case .replayed(let m, let at):
            "\(m) replayed at \(at)"
        case .replayFailed(let m, let at, let error):
            "\(m) replayed at \(at) and failed: \(error)"
        case .dropped(let m, let at, let reason):
            "\(m) dropped at \(at): \(reason)"
        }
    }

    /// True for the events that mean a message will never be delivered.
    public var isFailure: Bool {
        switch self {
        case .replayFailed, .dropped: true
        case .queued, .replayed, .note: false
        }
    }
}
