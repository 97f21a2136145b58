import CoordAccounting
import CoordProtocol
@_spi(Host) import CoordSDK

/// `plugins stats [reset]`: what each plugin's code cost since the counting began — per plugin
/// its runs, errors, refusals, own time and SQL; per message and page the same with the
/// median, 99th percentile and longest run; under `serve`, each client's share.
extension Builtin {
    static func pluginStats(_ session: Session, reset: Bool) throws -> CommandResult {
        guard let stats = session.host.stats else {
            throw ShellError(
                "plugins stats: accounting is off ([plugins] accounting = false in \(session.config.source ?? "the config"))",
                code: "accounting_off", status: .failure)
        }
        if reset {
            stats.reset()
            return CommandResult(lines: ["plugin figures reset"], json: ["reset": .bool(true)])
        }
        let seconds = Double(FeatureClock.now() &- stats.since) / 1e9
        var lines = ["since \(PluginStats.duration(FeatureClock.now() &- stats.since)) ago; a run's time is its own (what it sent to other handlers, and the host's services it called, are theirs)"]
        let plugins = Self.byPlugin(stats.rows)
        let history = stats.history
        if plugins.isEmpty { lines.append("no plugin code has run yet") }
        for (plugin, rows) in plugins {
            lines.append(Self.summary(plugin, rows, crashes: history.crashes[plugin] ?? 0))
            for (key, figures) in rows {
                var line = "  \(key.kind.rawValue)".column(11) + " \(key.name)".column(24)
                line += " \(figures.count) run\(figures.count == 1 ? "" : "s")"
                if figures.errors > 0 { line += ", \(figures.errors) failed" }
                if figures.refusals > 0 { line += " (\(figures.refusals) refused)" }
                if let p50 = figures.p50, let p99 = figures.p99, let max = figures.max {
                    line += "  p50 \(PluginStats.duration(p50))  p99 \(PluginStats.duration(p99))  max \(PluginStats.duration(max))"
                }
                if figures.statements > 0 { line += "  SQL \(figures.statements) (\(PluginStats.duration(figures.statementNanoseconds)))" }
                if figures.waits > 0 { line += "  waited \(figures.waits)× (longest \(PluginStats.duration(figures.longestWait)))" }
                lines.append(line)
            }
        }
        if !history.isEmpty { lines.append(Self.restarts(history)) }
        // Per client only where there is more than one (a served app).
        let clients = stats.clients.sorted { $0.key < $1.key }
        if clients.count > 1 {
            lines.append("per client:")
            for (client, rows) in clients {
                for (plugin, pluginRows) in Self.byPlugin(rows) { lines.append("  \(client): " + Self.summary(plugin, pluginRows)) }
            }
        }
        return CommandResult(lines: lines, json: [
            "seconds": .double(seconds),
            "plugins": .array(plugins.map { Self.pluginJSON($0.plugin, $0.rows, crashes: history.crashes[$0.plugin] ?? 0) }),
            "workers": [
                "restarts": .object(Dictionary(uniqueKeysWithValues: WorkerHistory.Cause.allCases.map { ($0.rawValue, .int(history.restarts($0))) })),
                "crashes": .object(history.crashes.mapValues { .int($0) }),
            ],
            "clients": .object(Dictionary(uniqueKeysWithValues: clients.map { client, rows in
                (client, .array(Self.byPlugin(rows).map { Self.pluginJSON($0.plugin, $0.rows) }))
            })),
        ])
    }

    /// The rows grouped by plugin, both in name order.
    private static func byPlugin(_ rows: [PluginStats.Key: WorkFigures]) -> [(plugin: String, rows: [(PluginStats.Key, WorkFigures)])] {
        Dictionary(grouping: rows.sorted { $0.key < $1.key }, by: \.key.plugin)
            .map { (plugin: $0.key, rows: $0.value.map { ($0.key, $0.value) }) }
            .sorted { $0.plugin < $1.plugin }
    }

    private static func total(_ rows: [(PluginStats.Key, WorkFigures)]) -> WorkFigures {
        rows.reduce(into: WorkFigures()) { $0.add($1.1) }
    }

    /// `the app process was started again 2 times: 1 after a crash, 1 after a hang; crashes: crasher 2`
    /// — kept by the front, so a crash does not take it with the worker's figures.
    private static func restarts(_ history: WorkerHistory) -> String {
        let causes: [(WorkerHistory.Cause, String)] = [(.crash, "after a crash"), (.hang, "after a hang"), (.restart, "by restart"), (.upgrade, "for an upgrade")]
        let total = causes.map { history.restarts($0.0) }.reduce(0, +)
        var line = "the app process was started again \(total) time\(total == 1 ? "" : "s") since the front started"
        let parts = causes.compactMap { cause, words in history.restarts(cause) > 0 ? "\(history.restarts(cause)) \(words)" : nil }
        if !parts.isEmpty { line += ": " + parts.joined(separator: ", ") }
        if !history.crashes.isEmpty {
            line += "; crashes by plugin: " + history.crashes.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: ", ")
        }
        return line
    }

    /// `cart: 5 runs, 1 failed, 1.20 ms own, SQL 7 (0.50 ms)`, and its crashes when it had any.
    private static func summary(_ plugin: String, _ rows: [(PluginStats.Key, WorkFigures)], crashes: Int = 0) -> String {
        let all = total(rows)
        var line = "\(plugin): \(all.count) run\(all.count == 1 ? "" : "s")"
        if all.errors > 0 { line += ", \(all.errors) failed" }
        if all.refusals > 0 { line += " (\(all.refusals) refused)" }
        line += ", \(PluginStats.duration(all.total)) own"
        if all.statements > 0 { line += ", SQL \(all.statements) (\(PluginStats.duration(all.statementNanoseconds)))" }
        if crashes > 0 { line += ", \(crashes) crash\(crashes == 1 ? "" : "es") of the app process" }
        return line
    }

    private static func pluginJSON(_ plugin: String, _ rows: [(PluginStats.Key, WorkFigures)], crashes: Int = 0) -> JSONValue {
        let all = total(rows)
        return [
            "plugin": .string(plugin), "crashes": .int(crashes), "runs": .int(Int(all.count)), "errors": .int(Int(all.errors)), "refusals": .int(Int(all.refusals)),
            "nanoseconds": .int(Int(all.total)), "statements": .int(Int(all.statements)),
            "work": JSONValue(rows.map { key, figures in
                var row: JSONObject = [
                    "kind": .string(key.kind.rawValue), "name": .string(key.name), "runs": .int(Int(figures.count)),
                    "errors": .int(Int(figures.errors)), "refusals": .int(Int(figures.refusals)), "nanoseconds": .int(Int(figures.total)),
                    "statements": .int(Int(figures.statements)), "statementNanoseconds": .int(Int(figures.statementNanoseconds)),
                    "waits": .int(Int(figures.waits)), "waitNanoseconds": .int(Int(figures.waitNanoseconds)), "longestWaitNanoseconds": .int(Int(figures.longestWait)),
                ]
                // A client's share keeps sums only: no percentiles.
                row["p50Nanoseconds"] = figures.p50.map { .int(Int($0)) }
                row["p99Nanoseconds"] = figures.p99.map { .int(Int($0)) }
                row["maxNanoseconds"] = figures.max.map { .int(Int($0)) }
                return row
            }),
        ]
    }
}
