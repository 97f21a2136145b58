import Glibc

/// What one call into a feature's code cost: its own time, and the SQL it ran.
@_spi(Host) @frozen public struct CallCost: Sendable, Equatable {
    /// Its own nanoseconds: the measured calls made inside it are taken out.
    public var nanoseconds: UInt64
    /// Statements it ran on its data handle, and their time (part of `nanoseconds`).
    public var statements: UInt64
    public var statementNanoseconds: UInt64

    public init(nanoseconds: UInt64 = 0, statements: UInt64 = 0, statementNanoseconds: UInt64 = 0) {
        self.nanoseconds = nanoseconds
        self.statements = statements
        self.statementNanoseconds = statementNanoseconds
    }
}

/// Where the host counts what each feature's code cost: every handler's time and SQL, and how
/// long messages waited in a queue. `plugins stats` reads it.
///
/// The SDK measures, the host keeps: the figures, their histograms and the per-client split
/// are the host's business, so none of this is part of the face a plugin compiles against.
///
/// Called only on the main actor (every send and render runs there), but not isolated to it:
/// a handler call pays for no executor check (`MainActor.assumeIsolated` cost a counted call
/// more than the handler itself). Implementations keep to that thread.
@_spi(Host) public protocol FeatureAccounting: AnyObject {
    /// A handler of `feature` ran `message`; `caller` is the feature whose handler sent it, -1
    /// when no feature's did (the person, the host); `error` is what it threw, nil when it did not.
    /// Features are given by number (`Feature.number`; `FeatureClock.feature(numbered:)` finds
    /// one): a counted call passes integers, never a reference it would retain.
    func handled(_ message: MessageName, by feature: Int32, from caller: Int32, cost: CallCost, error: (any Error)?)
    /// `message` waited `nanoseconds` in the queue of a level of `feature` before it ran again.
    func waited(_ message: MessageName, at feature: Int32, nanoseconds: UInt64)
    /// A page view of `feature` rendered `page` (`cart/cart`).
    func rendered(_ page: String, by feature: Int32, cost: CallCost)
    /// The host's own work `name` (`passwords.hash`) ran for a feature's code: the host's
    /// time, taken out of the calling handler's, as a deliberately slow password hash is not
    /// the plugin's doing.
    func served(_ name: String, cost: CallCost)
}

/// The clock every feature's code runs under when the host counts it (`FeatureAccounting`).
///
/// **Own time.** A handler that sends a message handled by another handler does not pay for
/// that one: each measured call keeps the time of the measured calls made inside it and takes
/// it off its own. So the figures of a plugin are its own, whoever it sends to.
///
/// **Cost.** Off (no `accounting`), a handler call pays one load and one branch: the handler's
/// feature number is set on it only while accounting is on, when its dispatch path is built
/// (once per tree change) or its feature's coordinator first receives it, never looked up per
/// send.
@MainActor
@_spi(Host) public enum FeatureClock {
    /// Storage read by the dispatch fast path, which runs on the main actor without being
    /// isolated code (see `HandlerEntry.unisolatedBody`); written only through `accounting`.
    @exclusivity(unchecked) nonisolated(unsafe) static var installed: (any FeatureAccounting)?
    /// The current measured call's figures so far: the time of the measured calls inside it,
    /// and the statements it ran.
    @exclusivity(unchecked) nonisolated(unsafe) static var inner: UInt64 = 0
    @exclusivity(unchecked) nonisolated(unsafe) static var statements: UInt64 = 0
    @exclusivity(unchecked) nonisolated(unsafe) static var statementNanoseconds: UInt64 = 0
    /// The feature whose handler runs now (the innermost), the caller of the next one.
    @exclusivity(unchecked) nonisolated(unsafe) static var current: Int32 = -1
    /// Every feature made in this process, by number, held weakly: how the host names one.
    static var enrolled: [WeakFeature] = []

    /// The thread the app runs on (the main actor's), where the clock's state lives.
    @exclusivity(unchecked) nonisolated(unsafe) static var mainThread = pthread_self()

    /// Who counts; nil (the default) counts nothing. Setting it advances the dispatch epoch, so
    /// that every cached path is built again with (or without) its handlers' features.
    public static var accounting: (any FeatureAccounting)? {
        get { installed }
        set {
            installed = newValue
            mainThread = pthread_self()
            DispatchEpoch.advance()
        }
    }

    /// Runs `body`, the host's own work `name` done for a feature's code (a password hash), as
    /// a measured call counted for the host (`FeatureAccounting.served`). Off the app's thread,
    /// or while nobody counts, it just runs `body`.
    public nonisolated static func hostWork<T>(_ name: String, _ body: () throws -> T) rethrows -> T {
        guard installed != nil, pthread_equal(pthread_self(), mainThread) != 0 else { return try body() }
        return try measure(body) { cost, _ in installed?.served(name, cost: cost) }
    }

    /// Monotonic nanoseconds (CLOCK_MONOTONIC), the clock of every figure.
    @inline(__always)
    public nonisolated static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    /// Runs `body` as a measured call: `done` gets what it cost (the measured calls inside it
    /// taken off) and what it threw. The host measures pages this way; handlers through
    /// `run(_:_:)`.
    public nonisolated static func measure<T>(_ body: () throws -> T, done: (CallCost, (any Error)?) -> Void) rethrows -> T {
        let outer = CallCost(nanoseconds: inner, statements: statements, statementNanoseconds: statementNanoseconds)
        inner = 0
        statements = 0
        statementNanoseconds = 0
        let start = now()
        do {
            let result = try body()
            done(finish(start, outer: outer), nil)
            return result
        } catch {
            done(finish(start, outer: outer), error)
            throw error
        }
    }

    /// Ends a measured call begun at `start`: what it cost; the enclosing call's figures come
    /// back, with this whole call added to its inner time (its SQL stays this call's).
    @inline(__always)
    private nonisolated static func finish(_ start: UInt64, outer: CallCost) -> CallCost {
        let elapsed = now() &- start
        let own = CallCost(nanoseconds: elapsed &- Swift.min(inner, elapsed), statements: statements, statementNanoseconds: statementNanoseconds)
        inner = outer.nanoseconds &+ elapsed
        statements = outer.statements
        statementNanoseconds = outer.statementNanoseconds
        return own
    }

    /// A statement begun at `start` (by `now()`) ended: counted for the measured call it ran
    /// in. Called by the host's data handles, on whatever thread the store runs it while the
    /// main actor waits for it.
    public nonisolated static func statement(since start: UInt64) {
        guard installed != nil else { return }
        statements &+= 1
        statementNanoseconds &+= now() &- start
    }

    /// Runs a handler: measured when accounting set its feature, plain otherwise.
    @inline(__always)
    nonisolated static func run(_ entry: HandlerEntry, _ message: Message) throws -> Disposition {
        guard entry.feature >= 0 else { return try entry.unisolatedBody(message) }
        return try measured(entry, message)
    }

    @inline(never)
    private nonisolated static func measured(_ entry: HandlerEntry, _ message: Message) throws -> Disposition {
        // Counting was turned off since the feature was set: a plain call.
        let feature = entry.feature
        guard installed != nil else { return try entry.unisolatedBody(message) }
        let name = message.name
        let caller = current
        current = feature
        defer { current = caller }
        return try measure({ try entry.unisolatedBody(message) }) { cost, error in
            installed?.handled(name, by: feature, from: caller, cost: cost, error: error)
        }
    }

    /// The number of the feature a level's handlers count for while accounting is on: the
    /// feature of the nearest coordinator above (or at) it that runs one; -1 for the host's own
    /// levels, and for every level while nobody counts.
    static func number(of level: Responder) -> Int32 {
        guard installed != nil else { return -1 }
        var current: Responder? = level
        while let at = current {
            if let coordinator = at as? Coordinator, let feature = coordinator.accessFeature { return feature.number }
            current = at.parent
        }
        return -1
    }

    /// Gives `feature` its number.
    static func enroll(_ feature: Feature) -> Int32 {
        enrolled.append(WeakFeature(feature))
        return Int32(enrolled.count - 1)
    }

    /// The feature numbered `number`, while it exists.
    public static func feature(numbered number: Int32) -> Feature? {
        number >= 0 && Int(number) < enrolled.count ? enrolled[Int(number)].feature : nil
    }

    struct WeakFeature {
        weak var feature: Feature?
        init(_ feature: Feature) { self.feature = feature }
    }
}

extension PageView {
    /// `render()`, measured as its feature's work while the host counts (`FeatureClock`).
    @_spi(Host) public func measuredRender() -> Rendering {
        let feature = FeatureClock.number(of: self)
        guard let accounting = FeatureClock.installed, feature >= 0 else { return render() }
        var cost = CallCost()
        let rendering = FeatureClock.measure({ render() }) { measured, _ in cost = measured }
        let route = page.route
        accounting.rendered("\(route.feature)/\(route.page)", by: feature, cost: cost)
        return rendering
    }
}
