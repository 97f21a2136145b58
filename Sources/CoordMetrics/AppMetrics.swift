import CoreMetrics
import Prometheus

/// This process's metrics: swift-metrics' instruments (`Counter`, `Timer`, `Gauge`) made by
/// swift-prometheus's factory into one registry, which `text()` writes in Prometheus's text
/// format (`serve --metrics`).
///
/// One per process: swift-metrics has one factory per process (a second bootstrap traps), so
/// `shared` bootstraps it the first time it is asked for, and only then — a shell or a server
/// without `--metrics` makes no instrument and pays nothing.
package final class AppMetrics: Sendable {
    package static let shared = AppMetrics()

    /// What a plugin's run takes is microseconds to seconds (the factory's default buckets
    /// start at 5 ms, where nearly every handler would fall in the first).
    static let runBuckets: [Duration] = [
        .microseconds(10), .microseconds(50), .microseconds(100), .microseconds(250), .microseconds(500),
        .milliseconds(1), .microseconds(2500), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
        .milliseconds(100), .milliseconds(250), .milliseconds(500), .seconds(1), .milliseconds(2500), .seconds(5), .seconds(10), .seconds(30),
    ]

    private let registry = PrometheusCollectorRegistry()

    private init() {
        var factory = PrometheusMetricsFactory(registry: registry)
        factory.durationHistogramBuckets = [PluginMetrics.Name.runSeconds: Self.runBuckets]
        MetricsSystem.bootstrap(factory)
    }

    /// Every instrument's value now, in Prometheus's text format (version 0.0.4). Safe from
    /// any thread: the worker's channel answers with it while the main thread runs a command.
    package func text() -> [UInt8] {
        registry.emitToBuffer()
    }
}
