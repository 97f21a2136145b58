internal import CCycleCounter
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

/// One counted handler call, as the clock keeps it until the host takes a batch
/// (`FeatureAccounting.handled(_:nanosecondsPerTick:)`): plain numbers, so that keeping it costs
/// a counted call a store, not a report.
@_spi(Host) @frozen public struct CallSample: Sendable {
    /// The message's id (`MessageName.id`; `FeatureClock.messageName(_:)` spells it), and the
    /// features of the handler that ran it and of the one whose handler sent it (-1: none,
    /// the person or the host).
    public var message: Int32
    public var feature: Int32
    public var caller: Int32
    /// `failed` (it threw) and `refused` (what it threw was a grant refused).
    public var outcome: Outcome
    /// Its own time and its statements' time, in the clock's ticks
    /// (`FeatureClock.nanoseconds(ticks:)`), and how many statements it ran.
    public var ticks: UInt64
    public var statementTicks: UInt64
    public var statements: UInt64

    @frozen public enum Outcome: UInt8, Sendable {
        case ran, failed, refused
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
    /// Handlers ran: each sample is one call, in the order they ended; a tick is
    /// `nanosecondsPerTick` nanoseconds. The clock keeps the samples and hands them over in
    /// batches — when its buffer is full, after a call that took `FeatureClock.drainAfter`
    /// or longer (so that a slow handler is named at once), and whenever the host asks
    /// (`FeatureClock.drain()`: before it reads its figures, at the end of each command) — so
    /// that a counted call pays for storing a sample, not for this report. Features are given
    /// by number (`Feature.number`; `FeatureClock.feature(numbered:)` finds one). Nothing
    /// called from here may run a handler: what it would run is not counted.
    func handled(_ samples: UnsafeBufferPointer<CallSample>, nanosecondsPerTick: Double)
    /// Calls that took at least this many nanoseconds are handed over as they end (the host's
    /// slow-handler threshold, so that a slow handler is named at once); 0 for none. Read
    /// when counting begins and at each hand-over.
    var drainAfter: UInt64 { get }
    /// `message` waited `nanoseconds` in the queue of a level of `feature` before it ran again.
    func waited(_ message: MessageName, at feature: Int32, nanoseconds: UInt64)
    /// A page view of `feature` rendered the page `route` names (`cart/cart`). The route, not
    /// its `feature/page` text: joining the two at every render cost more than the count.
    func rendered(_ route: RouteRequest, by feature: Int32, cost: CallCost)
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
/// send. On, a handler call pays two reads of the processor's tick counter and one sample
/// stored in a buffer (`CallSample`); the accounting gets the samples in batches (`drain()`),
/// so the report, the row lookup and the histogram are paid in a tight loop, not in each call
/// (BENCHMARKS.md, issue 40).
@MainActor
@_spi(Host) public enum FeatureClock {
    /// Storage read by the dispatch fast path, which runs on the main actor without being
    /// isolated code (see `HandlerEntry.unisolatedBody`); written only through `accounting`.
    @exclusivity(unchecked) nonisolated(unsafe) static var installed: (any FeatureAccounting)?
    /// The current measured call's figures so far, in ticks: the time of the measured calls
    /// inside it, and the statements it ran.
    @exclusivity(unchecked) nonisolated(unsafe) static var inner: UInt64 = 0
    @exclusivity(unchecked) nonisolated(unsafe) static var statements: UInt64 = 0
    @exclusivity(unchecked) nonisolated(unsafe) static var statementTicks: UInt64 = 0
    /// The feature whose handler runs now (the innermost), the caller of the next one.
    @exclusivity(unchecked) nonisolated(unsafe) static var current: Int32 = -1
    /// Every feature made in this process, by number, held weakly: how the host names one.
    static var enrolled: [WeakFeature] = []

    /// The thread the app runs on (the main actor's), where the clock's state lives.
    @exclusivity(unchecked) nonisolated(unsafe) static var mainThread = pthread_self()

    /// Who counts; nil (the default) counts nothing. Setting it hands the samples kept so far
    /// to the one counting before, and advances the dispatch epoch, so that every cached path
    /// is built again with (or without) its handlers' features.
    public static var accounting: (any FeatureAccounting)? {
        get { installed }
        set {
            drain()
            installed = newValue
            mainThread = pthread_self()
            if newValue != nil, anchor.ticks == 0 { startTicking() }
            setDrainTicks()
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

    /// Monotonic nanoseconds (CLOCK_MONOTONIC): when something happened (a message queued,
    /// the counting began), as opposed to how long a call took (`ticks()`).
    @inline(__always)
    public nonisolated static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    // MARK: Ticks

    /// Whether `ticks()` reads the processor's counter (its rate invariant), not the clock.
    @exclusivity(unchecked) nonisolated(unsafe) static var steady = false
    /// A counter reading and the raw clock's at the same moment, when counting first began:
    /// the start of the calibration, whose end is the latest `calibrate()`.
    @exclusivity(unchecked) nonisolated(unsafe) static var anchor: (ticks: UInt64, nanoseconds: UInt64) = (0, 0)
    /// Nanoseconds per tick: exactly 1 on the clock, measured on the counter.
    @exclusivity(unchecked) nonisolated(unsafe) static var nanosecondsPerTick: Double = 1
    /// A call of at least this many ticks hands the samples over at once (`drainAfter`).
    @exclusivity(unchecked) nonisolated(unsafe) static var drainAfterTicks: UInt64 = .max
    /// The calibration wanted before converting: long enough that the two clocks' read
    /// jitter is far below the figures' two significant digits.
    nonisolated static let calibrationSpan: UInt64 = 200_000

    /// What every duration is measured in: the processor's tick counter when its rate is
    /// invariant (one instruction, where the monotonic clock's read is five to ten times
    /// that, paid twice per counted handler), the monotonic clock's nanoseconds otherwise.
    /// `nanoseconds(ticks:)` converts.
    @inline(__always)
    public nonisolated static func ticks() -> UInt64 {
        steady ? coordsh_ticks() : now()
    }

    /// The ticks from `start` to now; 0 if the counter reads earlier than `start` (a thread
    /// moved to a processor whose counter lags), never a wrapped-around figure of centuries.
    @inline(__always)
    nonisolated static func since(_ start: UInt64) -> UInt64 {
        let end = ticks()
        return end > start ? end &- start : 0
    }

    /// `ticks` in nanoseconds, by the latest calibration (`calibrate()`).
    @inline(__always)
    public nonisolated static func nanoseconds(ticks: UInt64) -> UInt64 {
        steady ? UInt64(Double(ticks) * nanosecondsPerTick) : ticks
    }

    private nonisolated static func startTicking() {
        samples = .allocate(capacity: capacity)
        steady = coordsh_ticks_are_steady()
        anchor = (coordsh_ticks(), rawNanoseconds())
    }

    /// `drainAfterTicks` from the accounting's `drainAfter`. Until calibrated, a counter is
    /// taken to be the slowest anyone runs (500 MHz): a call hands its samples over early
    /// rather than late.
    private nonisolated static func setDrainTicks() {
        let after = installed?.drainAfter ?? 0
        if after == 0 { return drainAfterTicks = .max }
        if !steady { return drainAfterTicks = after }
        drainAfterTicks = nanosecondsPerTick == 1 ? after / 2 : UInt64(Double(after) / nanosecondsPerTick)
    }

    /// Measures the counter's rate again, over the whole time since counting began (so the
    /// figure only gets better): one read of each clock. Waits out what is left of the first
    /// 200 µs when asked sooner than that, once per process at most.
    nonisolated static func calibrate() {
        guard steady else { return }
        var ticks = coordsh_ticks(), nanoseconds = rawNanoseconds()
        while nanoseconds &- anchor.nanoseconds < calibrationSpan {
            ticks = coordsh_ticks()
            nanoseconds = rawNanoseconds()
        }
        guard ticks > anchor.ticks else { return }
        nanosecondsPerTick = Double(nanoseconds &- anchor.nanoseconds) / Double(ticks &- anchor.ticks)
        setDrainTicks()
    }

    private nonisolated static func rawNanoseconds() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_RAW, &time)
        return UInt64(time.tv_sec) &* 1_000_000_000 &+ UInt64(time.tv_nsec)
    }

    // MARK: Samples

    /// The samples not yet handed over: a buffer made when counting first begins (a plain
    /// global, not a lazy one, which would cost every call a once-check), kept for the
    /// process's life, written only on the app's thread.
    nonisolated static let capacity = 512
    @exclusivity(unchecked) nonisolated(unsafe) static var samples: UnsafeMutablePointer<CallSample>?
    @exclusivity(unchecked) nonisolated(unsafe) static var sampleCount = 0
    @exclusivity(unchecked) nonisolated(unsafe) static var draining = false

    @inline(__always)
    private nonisolated static func keep(_ sample: CallSample) {
        guard !draining, let samples else { return }
        samples[sampleCount] = sample
        sampleCount &+= 1
        if sampleCount == capacity || sample.ticks >= drainAfterTicks { drain() }
    }

    /// Hands the samples kept so far to the accounting: the host asks before it reads its
    /// figures and at the end of each command.
    public nonisolated static func drain() {
        guard sampleCount > 0, !draining, let samples else { return }
        guard let accounting = installed else { return sampleCount = 0 }
        draining = true
        defer {
            sampleCount = 0
            draining = false
        }
        calibrate()
        accounting.handled(UnsafeBufferPointer(start: samples, count: sampleCount), nanosecondsPerTick: nanosecondsPerTick)
    }

    // MARK: Measured calls

    /// Runs `body` as a measured call: `done` gets what it cost, in nanoseconds (the measured
    /// calls inside it taken off), and what it threw. The host measures pages this way;
    /// handlers through `run(_:_:)`.
    public nonisolated static func measure<T>(_ body: () throws -> T, done: (CallCost, (any Error)?) -> Void) rethrows -> T {
        let call = begin()
        func finish() -> CallCost {
            let own = end(call)
            calibrate()
            return CallCost(nanoseconds: nanoseconds(ticks: own.ticks), statements: own.statements, statementNanoseconds: nanoseconds(ticks: own.statementTicks))
        }
        do {
            let result = try body()
            done(finish(), nil)
            return result
        } catch {
            done(finish(), error)
            throw error
        }
    }

    /// What a measured call set aside when it began: the enclosing call's figures so far, and
    /// when it began (ticks).
    typealias Begun = (inner: UInt64, statements: UInt64, statementTicks: UInt64, start: UInt64)
    /// A measured call's own figures, in ticks.
    typealias Own = (ticks: UInt64, statements: UInt64, statementTicks: UInt64)

    /// Begins a measured call: the enclosing call's figures are set aside, this one's start at 0.
    @inline(__always)
    private nonisolated static func begin() -> Begun {
        let outer = (inner, statements, statementTicks)
        inner = 0
        statements = 0
        statementTicks = 0
        return (outer.0, outer.1, outer.2, ticks())
    }

    /// Ends the measured call `call`: its own time (the measured calls inside it taken off) and
    /// its SQL; the enclosing call's figures come back, with this whole call added to its inner
    /// time (its SQL stays this call's).
    @inline(__always)
    private nonisolated static func end(_ call: Begun) -> Own {
        let elapsed = since(call.start)
        let own = (elapsed &- Swift.min(inner, elapsed), statements, statementTicks)
        (inner, statements, statementTicks) = (call.inner &+ elapsed, call.statements, call.statementTicks)
        return own
    }

    /// A statement begun at `start` (by `ticks()`) ended: counted for the measured call it ran
    /// in. Called by the host's data handles, on whatever thread the store runs it while the
    /// main actor waits for it.
    public nonisolated static func statement(since start: UInt64) {
        guard installed != nil else { return }
        statements &+= 1
        statementTicks &+= since(start)
    }

    /// Runs a handler: measured when accounting set its feature, plain otherwise.
    @inline(__always)
    nonisolated static func run(_ entry: HandlerEntry, _ message: Message) throws -> Disposition {
        guard entry.feature >= 0 else { return try entry.unisolatedBody(message) }
        return try measured(entry, message)
    }

    /// A handler's measured call: two counter reads and a sample kept (`keep`), the report
    /// left for later (`drain`).
    @inline(never)
    private nonisolated static func measured(_ entry: HandlerEntry, _ message: Message) throws -> Disposition {
        // Counting was turned off since the feature was set: a plain call.
        let feature = entry.feature
        guard installed != nil else { return try entry.unisolatedBody(message) }
        let caller = current
        current = feature
        let call = begin()
        var outcome = CallSample.Outcome.ran
        defer {
            let own = end(call)
            current = caller
            keep(CallSample(
                message: message.name.id, feature: feature, caller: caller, outcome: outcome,
                ticks: own.ticks, statementTicks: own.statementTicks, statements: own.statements))
        }
        do {
            return try entry.unisolatedBody(message)
        } catch {
            if let refusal = error as? CoordError, case .notGranted = refusal { outcome = .refused } else { outcome = .failed }
            throw error
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

    /// The message whose id is `id` (`CallSample.message`), as written.
    public nonisolated static func messageName(_ id: Int32) -> String {
        MessageName.table.string(for: id)
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
        accounting.rendered(pageRoute, by: feature, cost: cost)
        return rendering
    }
}
