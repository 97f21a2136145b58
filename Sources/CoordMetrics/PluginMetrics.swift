import CoordAccounting
@_spi(Host) import CoordSDK
import Metrics

/// Each plugin's figures as swift-metrics instruments, updated as `PluginStats` counts them:
/// per plugin and message, page or host service (labels `plugin`, `kind`, `name`), its runs,
/// failures, grant refusals, own time (a histogram), SQL statements and their time, and queue
/// waits. Counters only go up: `plugins stats reset` sets the person's view back, not these
/// (a monitoring system takes rates of them); a new worker starts them from zero, which
/// Prometheus reads as a counter reset.
///
/// No client label: clients come and go under `serve`, and a label per client would grow the
/// registry without bound (`plugins stats` has the per-client shares).
package final class PluginMetrics: FigureSink {
    /// The metrics' names, as a monitoring system's queries use them (README, "Metrics").
    package enum Name {
        package static let runs = "coordsh_plugin_runs_total"
        package static let failures = "coordsh_plugin_failures_total"
        package static let refusals = "coordsh_plugin_refusals_total"
        package static let runSeconds = "coordsh_plugin_run_seconds"
        package static let statements = "coordsh_plugin_sql_statements_total"
        package static let statementSeconds = "coordsh_plugin_sql_seconds_total"
        package static let waits = "coordsh_plugin_queue_waits_total"
        package static let waitSeconds = "coordsh_plugin_queue_wait_seconds_total"
    }

    /// One row's instruments, made the first time the row is counted.
    private struct Row {
        let runs, failures, refusals, statements, waits: Counter
        let statementSeconds, waitSeconds: FloatingPointCounter
        let time: Metrics.Timer

        init(_ key: PluginStats.Key) {
            let labels = [("plugin", key.plugin), ("kind", key.kind.rawValue), ("name", key.name)]
            runs = Counter(label: Name.runs, dimensions: labels)
            failures = Counter(label: Name.failures, dimensions: labels)
            refusals = Counter(label: Name.refusals, dimensions: labels)
            statements = Counter(label: Name.statements, dimensions: labels)
            waits = Counter(label: Name.waits, dimensions: labels)
            statementSeconds = FloatingPointCounter(label: Name.statementSeconds, dimensions: labels)
            waitSeconds = FloatingPointCounter(label: Name.waitSeconds, dimensions: labels)
            time = Metrics.Timer(label: Name.runSeconds, dimensions: labels)
        }
    }

    /// By the row's slot in `PluginStats` (see `FigureSink`); used on the main actor only.
    private var rows: [Row?] = []

    /// Bootstraps this process's metrics (`AppMetrics`) if nothing has yet.
    package init() {
        _ = AppMetrics.shared
    }

    private func row(_ key: PluginStats.Key, _ slot: Int) -> Row {
        if slot < rows.count, let row = rows[slot] { return row }
        if rows.count <= slot { rows.append(contentsOf: repeatElement(nil, count: slot + 1 - rows.count)) }
        let made = Row(key)
        rows[slot] = made
        return made
    }

    package func ran(_ key: PluginStats.Key, slot: Int, cost: CallCost, failed: Bool, refused: Bool) {
        let row = row(key, slot)
        row.runs.increment()
        if failed { row.failures.increment() }
        if refused { row.refusals.increment() }
        row.time.recordNanoseconds(Int64(clamping: cost.nanoseconds))
        if cost.statements > 0 {
            row.statements.increment(by: Int64(clamping: cost.statements))
            row.statementSeconds.increment(by: Double(cost.statementNanoseconds) / 1e9)
        }
    }

    package func waited(_ key: PluginStats.Key, slot: Int, nanoseconds: UInt64) {
        let row = row(key, slot)
        row.waits.increment()
        row.waitSeconds.increment(by: Double(nanoseconds) / 1e9)
    }
}
