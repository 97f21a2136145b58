@_spi(Host) import CoordSDK
import Foundation

/// What each plugin's code cost in this app: per plugin and per message or page, how often it
/// ran, how often it failed or was refused, its own time (p50, p99, max), its SQL and its
/// queue waits — for everything and, under `serve`, per client. `plugins stats` shows it.
///
/// Always on unless the config says `[plugins] accounting = false`: the SDK's `FeatureClock`
/// measures each handler and page (two clock reads and a table update, BENCHMARKS.md) and
/// hands the figures here.
@MainActor
package final class PluginStats: FeatureAccounting {
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
    package private(set) var crossings: [Crossing: UInt64] = [:]

    /// Every row, whoever ran it.
    package private(set) var rows: [Key: WorkFigures] = [:]
    /// The same, per client (the scene whose command was running), for `serve`.
    package private(set) var clients: [String: [Key: WorkFigures]] = [:]
    /// The scene whose command runs now; set by the session for each command.
    package var client: String?
    /// A run of its own longer than this (nanoseconds) is named to the person
    /// (`[plugins] slow_handler`); 0 names none.
    package var slowThreshold: UInt64
    /// Told the one line that names a slow handler or page.
    package var onSlow: (String) -> Void = { _ in }
    /// When the counting began, or was last reset (`FeatureClock.now()`).
    package private(set) var since = FeatureClock.now()

    package init(slowThreshold: UInt64 = 1_000_000_000) {
        self.slowThreshold = slowThreshold
    }

    /// Starts again from nothing (`plugins stats reset`).
    package func reset() {
        rows.removeAll()
        clients.removeAll()
        since = FeatureClock.now()
    }

    /// The plugin a feature's figures are counted for.
    static func plugin(of feature: Feature) -> String { feature.origin?.name ?? feature.name }

    // MARK: FeatureAccounting

    package func handled(_ message: MessageName, by feature: Feature, from caller: Feature?, cost: CallCost, error: (any Error)?) {
        if let caller, caller !== feature {
            crossings[Crossing(from: caller.name, to: feature.name, message: message.string), default: 0] &+= 1
        }
        let key = Key(plugin: Self.plugin(of: feature), kind: .message, name: message.string)
        var refused = false
        if let error = error as? CoordError, case .notGranted = error { refused = true }
        update(key) { $0.record(cost, failed: error != nil, refused: refused) }
        if slowThreshold > 0, cost.nanoseconds >= slowThreshold {
            onSlow("slow handler: plugin \(key.plugin) took \(Self.duration(cost.nanoseconds)) for \(key.name) (over [plugins] slow_handler = \(Self.duration(slowThreshold)))")
        }
    }

    package func waited(_ message: MessageName, at feature: Feature, nanoseconds: UInt64) {
        update(Key(plugin: Self.plugin(of: feature), kind: .message, name: message.string)) { $0.recordWait(nanoseconds) }
    }

    package func rendered(_ page: String, by feature: Feature, cost: CallCost) {
        let key = Key(plugin: Self.plugin(of: feature), kind: .page, name: page)
        update(key) { $0.record(cost, failed: false, refused: false) }
        if slowThreshold > 0, cost.nanoseconds >= slowThreshold {
            onSlow("slow page: plugin \(key.plugin) took \(Self.duration(cost.nanoseconds)) to render \(page) (over [plugins] slow_handler = \(Self.duration(slowThreshold)))")
        }
    }

    package func served(_ name: String, cost: CallCost) {
        update(Key(plugin: Self.host, kind: .service, name: name)) { $0.record(cost, failed: false, refused: false) }
    }

    /// The name the host's own rows go under.
    package static let host = "coordsh"

    private func update(_ key: Key, _ change: (inout WorkFigures) -> Void) {
        change(&rows[key, default: WorkFigures()])
        if let client { change(&clients[client, default: [:]][key, default: WorkFigures()]) }
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
