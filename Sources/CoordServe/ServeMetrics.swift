import CoordAccounting
import CoordMetrics
import Foundation
import Metrics

/// What a server itself adds to `serve --metrics`, beside each plugin's figures: its clients,
/// the requests waiting for the app, whether the app runs, its workers' restarts and why, the
/// crashes each plugin answers for, and the plugins set aside — all read when a monitoring
/// system scrapes; the restarts and crashes from the supervisor's `WorkerHistory`, the one
/// count of them (which `plugins stats` shows too).
@MainActor
final class ServeMetrics {
    enum Name {
        static let clients = "coordsh_clients"
        static let waiting = "coordsh_requests_waiting"
        static let appUp = "coordsh_app_up"
        static let restarts = "coordsh_worker_restarts_total"
        static let crashes = "coordsh_plugin_crashes_total"
        static let quarantined = "coordsh_plugins_quarantined"
    }

    /// What the server is now, read at each scrape.
    struct Now {
        var clients = 0
        var waiting = 0
        var appUp = true
        var quarantined = 0
        /// A supervised server's workers so far; a single process has none.
        var history = WorkerHistory()
    }

    private let clients, waiting, appUp, quarantined: Gauge
    private let restarts: [WorkerHistory.Cause: Counter]
    private var crashes: [String: Counter] = [:]
    /// The history as last exported: a counter goes up by what was added since.
    private var exported = WorkerHistory()
    /// Each worker's metrics channel, by its pid (a supervised server): the one the running
    /// worker has is asked at a scrape; an upgrade's candidate that was not kept is dropped then.
    private var workerChannels: [pid_t: MetricsChannel] = [:]

    init() {
        // First: an instrument made before swift-metrics is bootstrapped goes nowhere.
        _ = AppMetrics.shared
        clients = Gauge(label: Name.clients)
        waiting = Gauge(label: Name.waiting)
        appUp = Gauge(label: Name.appUp)
        quarantined = Gauge(label: Name.quarantined)
        // Every cause from zero, so that a rate over them is defined before the first restart.
        restarts = Dictionary(uniqueKeysWithValues: WorkerHistory.Cause.allCases.map {
            ($0, Counter(label: Name.restarts, dimensions: [("cause", $0.rawValue)]))
        })
    }

    /// A worker was started with `channel`'s other end.
    func started(worker pid: pid_t, channel: MetricsChannel) {
        workerChannels[pid] = channel
    }

    /// The running worker's channel, and no other kept.
    func channel(of pid: pid_t?) -> MetricsChannel? {
        workerChannels = workerChannels.filter { $0.key == pid }
        return pid.flatMap { workerChannels[$0] }
    }

    /// This server's own figures, with `now` read into them, in Prometheus's text format (and
    /// in a single process, the plugins' figures too: one registry).
    func text(_ now: Now) -> [UInt8] {
        clients.record(now.clients)
        waiting.record(now.waiting)
        appUp.record(now.appUp ? 1 : 0)
        quarantined.record(now.quarantined)
        for (cause, counter) in restarts {
            let added = now.history.restarts(cause) - exported.restarts(cause)
            if added > 0 { counter.increment(by: Int64(added)) }
        }
        for (plugin, count) in now.history.crashes {
            let added = count - (exported.crashes[plugin] ?? 0)
            guard added > 0 else { continue }
            let counter = crashes[plugin] ?? Counter(label: Name.crashes, dimensions: [("plugin", plugin)])
            crashes[plugin] = counter
            counter.increment(by: Int64(added))
        }
        exported = now.history
        return AppMetrics.shared.text()
    }
}
