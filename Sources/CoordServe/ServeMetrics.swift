import CoordMetrics
import Foundation
import Metrics

/// What a server itself adds to `serve --metrics`, beside each plugin's figures: its clients,
/// the requests waiting for the app, whether the app runs, its worker's restarts and why, the
/// crashes each plugin answers for, and the plugins set aside. The gauges are read when a
/// monitoring system scrapes; the counters go up as it happens.
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

    /// A worker's start after the first, by cause: `crash` (it ended by itself or was
    /// killed), `hang` (killed as hung), `restart` (a person's `restart`), `upgrade` (a new
    /// plugin version taken up).
    enum Restart: String, CaseIterable {
        case crash, hang, restart, upgrade
    }

    /// What the server is now, read at each scrape.
    struct Now {
        var clients = 0
        var waiting = 0
        var appUp = true
        var quarantined = 0
    }

    private let clients, waiting, appUp, quarantined: Gauge
    private let restarts: [Restart: Counter]
    private var crashes: [String: Counter] = [:]
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
        restarts = Dictionary(uniqueKeysWithValues: Restart.allCases.map { ($0, Counter(label: Name.restarts, dimensions: [("cause", $0.rawValue)])) })
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

    func restarted(_ cause: Restart) {
        restarts[cause]?.increment()
    }

    /// The plugin whose trap or hang ended the worker.
    func crashed(_ plugin: String) {
        let counter = crashes[plugin] ?? Counter(label: Name.crashes, dimensions: [("plugin", plugin)])
        crashes[plugin] = counter
        counter.increment()
    }

    /// This server's own figures, with `now`'s gauges set, in Prometheus's text format (and
    /// in a single process, the plugins' figures too: one registry).
    func text(_ now: Now) -> [UInt8] {
        clients.record(now.clients)
        waiting.record(now.waiting)
        appUp.record(now.appUp ? 1 : 0)
        quarantined.record(now.quarantined)
        return AppMetrics.shared.text()
    }
}
