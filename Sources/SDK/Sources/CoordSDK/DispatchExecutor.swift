/// The one place that decides what a send does at each level of the chain.
///
/// A send reaches levels in three ways: from a cached `DispatchPath` (the hot path), by walking
/// the parent links (`send(_:trace:)`, and whenever the tree changed under a cached path), and
/// by replaying a queued message at the level that queued it. All three hand each level that
/// has a handler to `visit`, which decides — needs met or queue, run the handler, then what its
/// disposition means — and to `settle`, the meaning of a disposition. The walk is the
/// definition; a cached path is the same walk with the levels that have no handler left out.
/// So a traced send and a cached one cannot disagree: they run the same code per level.
///
/// **When a handler changes the tree.** Any navigation, start or stop of a coordinator, or
/// change of a handler table advances `DispatchEpoch`. After a handler lets a message go on,
/// the send continues from the handling level's *current* parent, walking (a cached path is
/// only trusted while the epoch has not moved). If the handling level has left the tree (it
/// had a parent and has none now, or it was released), the send ends there: it is `.handled`
/// when some level handled it, and otherwise fails with `CoordError.leftTree` naming the
/// message and the level, so that the sender learns that nobody finished it.
@MainActor
struct DispatchExecutor {
    let message: Message
    let trace: DispatchTrace?
    /// True once a level handled the message and passed it on.
    var handledBelow: Bool
    /// The levels passed so far, for the root's routing (it never routes a message back to a
    /// level that already saw it).
    var chain: [ObjectIdentifier]
    /// The first scene passed: the root routes feature messages to that scene's coordinator.
    var scene: SceneCoordinator?

    init(
        _ message: Message, trace: DispatchTrace?, handledBelow: Bool = false,
        chain: [ObjectIdentifier] = [], scene: SceneCoordinator? = nil
    ) {
        self.message = message
        self.trace = trace
        self.handledBelow = handledBelow
        self.chain = chain
        self.scene = scene
    }

    // MARK: One level

    /// Runs `handler` at `level`, unless the services it needs are missing there, in which
    /// case the message waits in `level`'s queue. Returns the outcome when the send ends at
    /// this level, nil when the message goes on up. `routed` marks the coordinator the root
    /// delivered the message to: the end of the line, so that passing on means nobody did it.
    @inline(__always)
    static func visit(
        _ level: Responder, _ handler: HandlerEntry, _ message: Message, trace: DispatchTrace?,
        routed: Bool, handledBelow: inout Bool
    ) throws -> DispatchOutcome? {
        if handler.hasNeeds, !(level.dependencies?.keys.isSuperset(of: handler.needs) ?? false) {
            return try level.enqueue(message, needs: handler.needs, routed: routed, trace: trace)
        }
        let disposition: Disposition
        do {
            disposition = try FeatureClock.run(handler, message)
        } catch {
            trace?.record(level, .unhandled)
            throw error
        }
        return try settle(disposition, at: level, message, trace: trace, routed: routed, handledBelow: &handledBelow)
    }

    /// What a handler's disposition means for the rest of the send.
    @inline(__always)
    static func settle(
        _ disposition: Disposition, at level: Responder, _ message: Message, trace: DispatchTrace?,
        routed: Bool, handledBelow: inout Bool
    ) throws -> DispatchOutcome? {
        switch disposition {
        case .handled:
            trace?.record(level, .handled)
            return .handled
        case .handledAndPassOn where routed:
            // Routed down from the top: there is no further up to pass it to.
            trace?.record(level, .handled)
            return .handled
        case .handledAndPassOn:
            trace?.record(level, .handledAndPassedOn)
            handledBelow = true
            return nil
        case .passOn where routed:
            trace?.record(level, .unhandled)
            if handledBelow { return .handled }
            throw CoordError.unhandledMessage(message.name.string, path: level.pathDescription(from: message.sender))
        case .passOn:
            trace?.record(level, .passedOn)
            return nil
        }
    }

    // MARK: Walking

    /// Notes that the send passes `level`.
    mutating func pass(_ level: Responder) {
        chain.append(ObjectIdentifier(level))
        if scene == nil, let s = level as? SceneCoordinator { scene = s }
    }

    /// Visits `start` and every level above it, then lets the top route or report the message.
    mutating func walk(from start: Responder) throws -> DispatchOutcome {
        var current = start
        while true {
            pass(current)
            if let handler = current.handlers[message.name.id] {
                handler.feature = FeatureClock.number(of: current)
                let hadParent = current.parent != nil
                if let outcome = try Self.visit(
                    current, handler, message, trace: trace, routed: false, handledBelow: &handledBelow)
                {
                    return outcome
                }
                // The handler may have moved or removed `current`: go on from where it is now.
                guard let parent = current.parent else {
                    return hadParent ? try leftTree(current) : try finish(at: current)
                }
                current = parent
            } else if let parent = current.parent {
                trace?.record(current, .passedOn)
                current = parent
            } else {
                return try finish(at: current)
            }
        }
    }

    /// Continues after the handler at `level` let the message go on and the tree may have
    /// changed: from `level`'s current parent, or not at all if it left the tree.
    /// `level` is nil when it was released while its handler ran (a level in the tree is
    /// retired, not released, during a send; one held by nothing else may go).
    mutating func goOn(after level: Responder?, hadParent: Bool) throws -> DispatchOutcome {
        guard let level else { return try leftTree("a level that was released") }
        guard let parent = level.parent else {
            return hadParent ? try leftTree(level) : try finish(at: level)
        }
        return try walk(from: parent)
    }

    /// No handler finished the message: the top of the chain routes it or reports it.
    func finish(at top: Responder) throws -> DispatchOutcome {
        try top.reachedTop(message, scene: scene, chain: chain, handledBelow: handledBelow, trace: trace)
    }

    private func leftTree(_ level: Responder) throws -> DispatchOutcome {
        try leftTree(level.chainDescription)
    }

    private func leftTree(_ name: String) throws -> DispatchOutcome {
        if handledBelow { return .handled }
        throw CoordError.leftTree(message: message.name.string, level: name)
    }
}
