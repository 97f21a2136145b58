@_spi(Host) import CoordSDK
import Foundation

/// What each plugin's code cost in this app: per plugin and per message or page, how often it
/// ran, how often it failed or was refused, its own time (p50, p99, max), its SQL and its
/// queue waits — for everything and, under `serve`, per client. `plugins stats` shows it.
///
/// Always on unless the config says `[plugins] accounting = false`: the SDK's `FeatureClock`
/// measures each handler and page (two reads of the processor's tick counter and a sample kept,
/// BENCHMARKS.md) and hands the figures here, handlers' in batches (`FeatureClock.drain()`,
/// which every reading of the figures here does first).
///
/// Used on the main actor only — the session sets `client`, and the SDK's clock calls it from
/// sends and renders, which all run there — but not isolated to it, so that a counted call
/// pays for no executor check (see `FeatureAccounting`).
package final class PluginStats: FeatureAccounting, @unchecked Sendable {
    /// What a row counts: a message a plugin's handlers ran, a page it rendered, or (for the
    /// host, `coordsh`) a service of the host's that plugin code called.
    package enum Kind: String, Sendable, Comparable {
        case message, page, service
        package static func < (a: Kind, b: Kind) -> Bool { a.rawValue < b.rawValue }
    }

    /// One row: the plugin (its name, or the feature's for one registered in code), the kind
    /// and the message (`cartAdd`) or page (`cart/cart`).
    package struct Key: Hashable, Sendable, Comparable {
        package let plugin: String
        package let kind: Kind
        package let name: String

        package static func < (a: Key, b: Key) -> Bool { (a.plugin, a.kind, a.name) < (b.plugin, b.kind, b.name) }
    }

    /// A message one feature's handler sent that another feature's handled: what `map` draws
    /// as the features' observed traffic.
    package struct Crossing: Hashable, Sendable, Comparable {
        package let from: String
        package let to: String
        package let message: String

        package static func < (a: Crossing, b: Crossing) -> Bool { (a.from, a.to, a.message) < (b.from, b.to, b.message) }
    }

    /// How often each crossing happened (not cleared by a reset: it is the app's map, not a figure).
    package var crossings: [Crossing: UInt64] {
        FeatureClock.drain()
        return Dictionary(zip(crossingKeys, crossingCounts), uniquingKeysWith: +)
    }
    private struct CrossingSlot: Hashable {
        let from: Int32
        let to: Int32
        let message: Int32
    }
    @exclusivity(unchecked) private var crossingSlots: [CrossingSlot: Int] = [:]
    @exclusivity(unchecked) private var crossingKeys: [Crossing] = []
    @exclusivity(unchecked) private var crossingCounts: [UInt64] = []

    /// Every row, whoever ran it.
    package var rows: [Key: WorkFigures] {
        FeatureClock.drain()
        return Dictionary(uniqueKeysWithValues: zip(keys, figures).filter { $0.1.count > 0 || $0.1.waits > 0 })
    }
    /// The same, per client (the scene whose command was running), for `serve`.
    package var clients: [String: [Key: WorkFigures]] {
        FeatureClock.drain()
        var result: [String: [Key: WorkFigures]] = [:]
        for (index, name) in clientNames.enumerated() {
            let shares = zip(keys, clientFigures[index]).filter { $0.1.count > 0 || $0.1.waits > 0 }
            if !shares.isEmpty { result[name] = Dictionary(uniqueKeysWithValues: shares) }
        }
        return result
    }

    /// The scene whose command runs now; set by the session for each command. Unchecked, like
    /// the slots below: read and set on the main actor between calls, never held across one.
    @exclusivity(unchecked) package var client: String? {
        // The calls counted so far are the client's that ran them.
        willSet { if newValue != client { FeatureClock.drain() } }
        didSet {
            guard client != oldValue else { return }
            guard let client else { return clientSlot = nil }
            if let known = clientIndex[client] { return clientSlot = known }
            clientIndex[client] = clientNames.count
            clientSlot = clientNames.count
            clientNames.append(client)
            clientFigures.append([])
        }
    }
    /// A run of its own longer than this (nanoseconds) is named to the person
    /// (`[plugins] slow_handler`); 0 names none. Unchecked: read at every hand-over and render.
    @exclusivity(unchecked) package var slowThreshold: UInt64
    package var drainAfter: UInt64 { slowThreshold }
    /// Told the one line that names a slow handler or page.
    package var onSlow: (String) -> Void = { _ in }
    /// Told every figure as it is counted (`serve --metrics`); nil, the default, costs a
    /// counted call one test.
    @exclusivity(unchecked) package var sink: (any FigureSink)?
    /// The workers' crashes and restarts, from the front that started this process (empty
    /// when it runs in the front's own process, or is the first): not cleared by a reset,
    /// which this process cannot do to the front's count.
    package var history = WorkerHistory()
    /// When the counting began, or was last reset (`FeatureClock.now()`).
    package private(set) var since = FeatureClock.now()

    // The rows, by slot: a message's slot is found by the feature's and the message's numbers
    // — both dense, so a table indexed by them, no hashing per call (a dictionary keyed by the
    // pair cost a counted call more than its two clock_gettime reads did) — and its key's strings are made
    // once. Unchecked: used on the main actor only, never held across a call (each checked
    // access of a counted call cost it more than its histogram).
    /// By feature number, then message id: the slot plus one (0: none yet).
    @exclusivity(unchecked) private var messageSlots: [[Int32]] = []
    /// Pages' and services' rows (counted per render or call, not on a dispatch's fast path).
    private var pageSlots: [Key: Int] = [:]
    /// Pages' rows by feature number, then page name (`renderSlot`): a feature has a few
    /// pages, found by comparing names (short strings compare as two words) rather than by
    /// hashing one at every render.
    @exclusivity(unchecked) private var renderSlots: [[(page: String, slot: Int)]] = []
    @exclusivity(unchecked) private var keys: [Key] = []
    @exclusivity(unchecked) private var figures: [WorkFigures] = []
    /// Per client, by slot (grown as slots are used), without percentiles.
    @exclusivity(unchecked) private var clientFigures: [[WorkFigures]] = []
    private var clientNames: [String] = []
    private var clientIndex: [String: Int] = [:]
    @exclusivity(unchecked) private var clientSlot: Int?

    package init(slowThreshold: UInt64 = 1_000_000_000) {
        self.slowThreshold = slowThreshold
    }

    /// Takes in the calls the clock has kept since the last hand-over (a command ended).
    package func settle() {
        FeatureClock.drain()
    }

    /// Starts again from nothing (`plugins stats reset`).
    package func reset() {
        FeatureClock.drain()
        for index in figures.indices { figures[index] = WorkFigures() }
        for client in clientFigures.indices { clientFigures[client].removeAll() }
        since = FeatureClock.now()
    }

    /// The plugin the feature numbered `number` is counted for (asked once per row).
    static func plugin(of number: Int32) -> String {
        MainActor.assumeIsolated {
            guard let feature = FeatureClock.feature(numbered: number) else { return "feature #\(number)" }
            return feature.origin?.name ?? feature.name
        }
    }

    /// The name of the feature numbered `number` (asked once per crossing).
    static func name(of number: Int32) -> String {
        MainActor.assumeIsolated { FeatureClock.feature(numbered: number)?.name ?? "feature #\(number)" }
    }

    // MARK: FeatureAccounting

    package func handled(_ samples: UnsafeBufferPointer<CallSample>, nanosecondsPerTick: Double) {
        let converts = nanosecondsPerTick != 1
        for sample in samples {
            if sample.caller >= 0, sample.caller != sample.feature { crossed(sample) }
            let slot = messageSlot(sample.message, sample.feature)
            var cost = CallCost(nanoseconds: sample.ticks, statements: sample.statements, statementNanoseconds: sample.statementTicks)
            if converts {
                cost.nanoseconds = UInt64(Double(sample.ticks) * nanosecondsPerTick)
                cost.statementNanoseconds = UInt64(Double(sample.statementTicks) * nanosecondsPerTick)
            }
            let failed = sample.outcome != .ran, refused = sample.outcome == .refused
            update(slot) { $0.record(cost, failed: failed, refused: refused) }
            sink?.ran(keys[slot], slot: slot, cost: cost, failed: failed, refused: refused)
            if slowThreshold > 0, cost.nanoseconds >= slowThreshold {
                onSlow("slow handler: plugin \(keys[slot].plugin) took \(Self.duration(cost.nanoseconds)) for \(keys[slot].name) (over [plugins] slow_handler = \(Self.duration(slowThreshold)))")
            }
        }
    }

    /// A message one feature's handler sent that another's handled: the map's traffic.
    private func crossed(_ sample: CallSample) {
        let at = CrossingSlot(from: sample.caller, to: sample.feature, message: sample.message)
        if let known = crossingSlots[at] {
            crossingCounts[known] &+= 1
        } else {
            crossingSlots[at] = crossingKeys.count
            crossingKeys.append(Crossing(from: Self.name(of: sample.caller), to: Self.name(of: sample.feature), message: FeatureClock.messageName(sample.message)))
            crossingCounts.append(1)
        }
    }

    package func waited(_ message: MessageName, at feature: Int32, nanoseconds: UInt64) {
        let slot = messageSlot(message.id, feature)
        update(slot) { $0.recordWait(nanoseconds) }
        sink?.waited(keys[slot], slot: slot, nanoseconds: nanoseconds)
    }

    package func rendered(_ route: RouteRequest, by feature: Int32, cost: CallCost) {
        let slot = renderSlot(route, feature)
        let key = keys[slot]
        update(slot) { $0.record(cost, failed: false, refused: false) }
        sink?.ran(key, slot: slot, cost: cost, failed: false, refused: false)
        if slowThreshold > 0, cost.nanoseconds >= slowThreshold {
            onSlow("slow page: plugin \(key.plugin) took \(Self.duration(cost.nanoseconds)) to render \(key.name) (over [plugins] slow_handler = \(Self.duration(slowThreshold)))")
        }
    }

    package func served(_ name: String, cost: CallCost) {
        let key = Key(plugin: Self.host, kind: .service, name: name)
        let slot = slot(pageSlots[key], key) { pageSlots[key] = $0 }
        update(slot) { $0.record(cost, failed: false, refused: false) }
        sink?.ran(key, slot: slot, cost: cost, failed: false, refused: false)
    }

    /// The name the host's own rows go under.
    package static let host = "coordsh"

    @inline(__always)
    private func messageSlot(_ message: Int32, _ feature: Int32) -> Int {
        let row = Int(feature), column = Int(message)
        if row >= 0, row < messageSlots.count, column >= 0, column < messageSlots[row].count {
            let known = messageSlots[row][column]
            if known > 0 { return Int(known) - 1 }
        }
        return newMessageSlot(message, feature)
    }

    @inline(never)
    private func newMessageSlot(_ message: Int32, _ feature: Int32) -> Int {
        let key = Key(plugin: Self.plugin(of: feature), kind: .message, name: FeatureClock.messageName(message))
        let row = Int(feature), column = Int(message)
        // A feature number below 0 is none (the clock reports none such): found by its key.
        guard row >= 0, column >= 0 else { return slot(pageSlots[key], key) { pageSlots[key] = $0 } }
        keys.append(key)
        figures.append(WorkFigures())
        if messageSlots.count <= row { messageSlots.append(contentsOf: repeatElement([], count: row + 1 - messageSlots.count)) }
        if messageSlots[row].count <= column { messageSlots[row].append(contentsOf: repeatElement(0, count: column + 1 - messageSlots[row].count)) }
        messageSlots[row][column] = Int32(keys.count)
        return keys.count - 1
    }

    /// A page's slot, found by its feature's number and then its name: the row's key (whose
    /// plugin name is asked of the feature) is made once, not hashed at every render.
    private func renderSlot(_ route: RouteRequest, _ feature: Int32) -> Int {
        let row = Int(feature)
        if row >= 0, row < renderSlots.count {
            for known in renderSlots[row] where known.page == route.page { return known.slot }
        }
        return newRenderSlot(route, feature)
    }

    /// A page's first render (by this feature's number): its row's key, named `feature/page`.
    @inline(never)
    private func newRenderSlot(_ route: RouteRequest, _ feature: Int32) -> Int {
        let key = Key(plugin: Self.plugin(of: feature), kind: .page, name: "\(route.feature)/\(route.page)")
        let slot = slot(pageSlots[key], key) { pageSlots[key] = $0 }
        // A feature number below 0 is none (the clock reports none such): found by its key.
        let row = Int(feature)
        guard row >= 0 else { return slot }
        if renderSlots.count <= row { renderSlots.append(contentsOf: repeatElement([], count: row + 1 - renderSlots.count)) }
        renderSlots[row].append((route.page, slot))
        return slot
    }

    /// `known`, or a new slot for `key` (remembered by `remember`).
    @inline(__always)
    private func slot(_ known: Int?, _ key: @autoclosure () -> Key, remember: (Int) -> Void) -> Int {
        if let known { return known }
        keys.append(key())
        figures.append(WorkFigures())
        remember(keys.count - 1)
        return keys.count - 1
    }

    private func update(_ slot: Int, _ change: (inout WorkFigures) -> Void) {
        change(&figures[slot])
        guard let client = clientSlot else { return }
        if clientFigures[client].count <= slot {
            clientFigures[client].append(contentsOf: repeatElement(WorkFigures(percentiles: false), count: slot + 1 - clientFigures[client].count))
        }
        change(&clientFigures[client][slot])
    }

    /// `1.20 s`, `35 ms`, `840 µs`, `512 ns`: three figures at most, for people.
    package static func duration(_ nanoseconds: UInt64) -> String {
        let value = Double(nanoseconds)
        func figure(_ x: Double, _ unit: String) -> String {
            let text = x >= 100 ? String(Int(x.rounded())) : x >= 10 ? String(format: "%.1f", x) : String(format: "%.2f", x)
            return "\(text) \(unit)"
        }
        if value >= 1e9 { return figure(value / 1e9, "s") }
        if value >= 1e6 { return figure(value / 1e6, "ms") }
        if value >= 1e3 { return figure(value / 1e3, "µs") }
        return "\(nanoseconds) ns"
    }
}
