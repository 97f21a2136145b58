import CoordClient
import CoordProtocol
import Foundation
import TestSupport
import Testing

/// `coordsh serve --metrics`: what a monitoring system scrapes, read back with Prometheus's own
/// client library's parser (scrape.py) while clients run commands — the per-plugin figures,
/// the clients, a crash's restart and the plugin it is blamed on, a hang's, a quarantine; a
/// scrape answered while a command holds the app; bad requests answered and the server
/// carrying on; addresses refused in one line.
@Suite("coordsh serve --metrics", .serialized)
struct MetricsTests {
    /// One sample as the parser read it.
    struct Sample: Decodable {
        let family: String
        let type: String
        let name: String
        let labels: [String: String]
        let value: Double
    }

    /// A Python with prometheus_client (Debian's python3-prometheus-client, which ./test
    /// installs): the system's, whatever else is first on PATH.
    static let python: String? = ["/usr/bin/python3", "/usr/local/bin/python3"].first { path in
        (try? run(path, ["-c", "import prometheus_client.parser"]).status) == 0
    }

    static func script(_ arguments: [String]) throws -> RunResult {
        let python = try #require(Self.python, "no python3 with prometheus_client: apt-get install python3-prometheus-client (scripts/ensure-deps --tests)")
        return try run(python, [BuildProducts.packageRoot + "/Tests/ServeTests/scrape.py"] + arguments, timeout: 60)
    }

    /// Where the server said its metrics are.
    static func url(_ server: ServeTests.Server) throws -> String {
        var found: String?
        try server.waitFor("the metrics' address in the log") {
            found = server.logText.components(separatedBy: "metrics on ").dropFirst().first?.components(separatedBy: "\n").first
            return found != nil
        }
        return try #require(found)
    }

    /// Every sample of one scrape; the parser's refusal fails the test.
    static func scrape(_ server: ServeTests.Server) throws -> [Sample] {
        let result = try script(["samples", try url(server)])
        #expect(result.status == 0, "\(result.stderr)")
        let decoder = JSONDecoder()
        return try result.stdout.split(separator: "\n").map { try decoder.decode(Sample.self, from: Data($0.utf8)) }
    }

    /// The value of the sample `name` whose labels include `labels`; nil when there is none.
    static func value(_ samples: [Sample], _ name: String, _ labels: [String: String] = [:]) -> Double? {
        samples.first { sample in sample.name == name && labels.allSatisfy { sample.labels[$0.key] == $0.value } }?.value
    }

    static func cartAdd(_ samples: [Sample], _ name: String) -> Double? {
        value(samples, name, ["plugin": "cart", "kind": "message", "name": "cartAdd"])
    }

    @Test("a supervised serve: each plugin's runs, failures, time histogram and SQL, the clients; a crash and a hang counted as restarts and blamed on the plugin, which is quarantined, in the metrics and in plugins stats; a scrape answered while a command holds the app")
    func supervised() throws {
        let server = try SupervisedServeTests.serverWithCrasher(
            config: "[shell]\nworker_timeout = 3\n", arguments: ["--metrics", "127.0.0.1:0"])
        let ann = try ServeTests.attach(server), bob = try ServeTests.attach(server)
        #expect(try SupervisedServeTests.send(ann, "cart add 3").error == nil)
        #expect(try SupervisedServeTests.send(ann, "cart add 4").error == nil)
        #expect(try SupervisedServeTests.send(bob, "cart add 5").error == nil)
        #expect(try SupervisedServeTests.send(bob, "cart remove 42").error?.contains("not in the cart") == true)

        var samples = try Self.scrape(server)
        #expect(Self.value(samples, "coordsh_clients") == 2)
        #expect(Self.value(samples, "coordsh_app_up") == 1)
        #expect(Self.cartAdd(samples, "coordsh_plugin_runs_total") == 3)
        #expect(Self.cartAdd(samples, "coordsh_plugin_failures_total") == 0)
        #expect(Self.value(samples, "coordsh_plugin_failures_total", ["plugin": "cart", "name": "cartRemove"]) == 1)
        // The time histogram: as many observations as runs, a time spent, cumulative buckets.
        #expect(Self.cartAdd(samples, "coordsh_plugin_run_seconds_count") == 3)
        #expect((Self.cartAdd(samples, "coordsh_plugin_run_seconds_sum") ?? 0) > 0)
        let buckets = samples.filter { $0.name == "coordsh_plugin_run_seconds_bucket" && $0.labels["name"] == "cartAdd" }
        #expect(buckets.count > 5 && buckets.last?.labels["le"] == "+Inf" && buckets.last?.value == 3, "\(buckets)")
        #expect(zip(buckets, buckets.dropFirst()).allSatisfy { $0.value <= $1.value }, "buckets are cumulative: \(buckets.map(\.value))")
        #expect((Self.cartAdd(samples, "coordsh_plugin_sql_statements_total") ?? 0) > 0)
        // The host's password hashing is the host's row, not a plugin's.
        #expect(samples.allSatisfy { $0.labels["plugin"] != "account" || $0.labels["name"] != "passwords.hash" })
        for cause in ["crash", "hang", "restart", "upgrade"] {
            #expect(Self.value(samples, "coordsh_worker_restarts_total", ["cause": cause]) == 0)
        }

        // A crash: a restart, blamed on the crasher; the new worker's figures start from zero
        // (a counter reset, as for any process that starts again).
        #expect(try SupervisedServeTests.send(ann, "crash now index").error?.hasPrefix("crashed:") == true)
        #expect(try SupervisedServeTests.send(bob, "cart add 6").error == nil)
        samples = try Self.scrape(server)
        #expect(Self.value(samples, "coordsh_worker_restarts_total", ["cause": "crash"]) == 1)
        #expect(Self.value(samples, "coordsh_plugin_crashes_total", ["plugin": "crasher"]) == 1)
        #expect(Self.cartAdd(samples, "coordsh_plugin_runs_total") == 1)
        #expect(Self.value(samples, "coordsh_plugins_quarantined") == 0)

        // A command that never ends: a scrape meanwhile is answered at once with the app's
        // figures (the worker answers from a thread of its own); then it is killed as hung.
        let stuck = ann.newID()
        try ann.write(.run(id: stuck, line: "crash now loop", secrets: []))
        usleep(300_000)
        let started = Date()
        samples = try Self.scrape(server)
        #expect(Date().timeIntervalSince(started) < 2, "the scrape waited \(Date().timeIntervalSince(started)) s")
        #expect(Self.cartAdd(samples, "coordsh_plugin_runs_total") == 1, "the app's figures are in a scrape while a command holds it")
        #expect(Self.value(samples, "coordsh_requests_waiting") == 0)
        guard case .error(_, "crashed", _) = try ann.answer(to: stuck) else { throw ServeTests.TestFailure("the hung command was not killed") }
        samples = try Self.scrape(server)
        #expect(Self.value(samples, "coordsh_worker_restarts_total", ["cause": "hang"]) == 1)
        #expect(Self.value(samples, "coordsh_plugin_crashes_total", ["plugin": "crasher"]) == 2)
        // Two crashes: the crasher is set aside.
        #expect(Self.value(samples, "coordsh_plugins_quarantined") == 1)
        // `plugins stats`, in the third worker, has the front's count of what ended the first two.
        let stats = try ServedStatsTests.run(bob, "plugins stats", document: true)
        let workers = try #require(stats.document?["workers"], "\(String(describing: stats.document))")
        #expect(workers["restarts"]?["crash"]?.int == 1 && workers["restarts"]?["hang"]?.int == 1 && workers["restarts"]?["upgrade"]?.int == 0, "\(workers)")
        #expect(workers["crashes"]?["crasher"]?.int == 2, "\(workers)")
        #expect(stats.lines.contains("the app process was started again 2 times since the front started: 1 after a crash, 1 after a hang; crashes by plugin: crasher 2"), "\(stats.lines)")
        #expect(try server.stop() == 0)
    }

    @Test("a single-process serve: one registry with the plugins' figures and the server's; HEAD, a wrong path, a wrong method and bytes that are not HTTP each get their answer and the server carries on")
    func singleProcess() throws {
        let server = try ServeTests.Server(arguments: ["--single-process", "--metrics", "127.0.0.1:0"])
        let client = try ServeTests.attach(server)
        #expect(try SupervisedServeTests.send(client, "cart add 3").error == nil)
        let url = try Self.url(server)
        #expect(try Self.script(["status", "HEAD", url]).stdout == "200 text/plain; version=0.0.4; charset=utf-8\n")
        #expect(try Self.script(["status", "GET", url.replacingOccurrences(of: "/metrics", with: "/")]).stdout.hasPrefix("404 "))
        #expect(try Self.script(["status", "POST", url]).stdout.hasPrefix("405 "))
        let address = url.replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "/metrics", with: "").split(separator: ":")
        #expect(try Self.script(["garbage", String(address[0]), String(address[1])]).stdout == "HTTP/1.1 400 Bad Request\n")
        let samples = try Self.scrape(server)
        #expect(Self.cartAdd(samples, "coordsh_plugin_runs_total") == 1)
        #expect(Self.value(samples, "coordsh_clients") == 1)
        #expect(Self.value(samples, "coordsh_app_up") == 1)
        #expect(try SupervisedServeTests.send(client, "cart add 4").error == nil)
        #expect(try server.stop() == 0)
    }

    @Test("addresses: another than loopback is refused unless the config allows it; a malformed one and a port in use are refused in one line")
    func addresses() throws {
        let folder = try makeTemporaryDirectory("metrics-address")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        let environment = ["HOME": folder, "XDG_RUNTIME_DIR": folder + "/run", "XDG_STATE_HOME": folder + "/state"]
        func serve(_ address: String) throws -> RunResult {
            try run(BuildProducts.coordsh, ["serve", "--db", folder + "/shop.sqlite", "--metrics", address], environment: environment, timeout: 60)
        }
        let open = try serve("0.0.0.0:9464")
        #expect(open.status == 1 && open.stderr == "coordsh: error: --metrics 0.0.0.0:9464: not a loopback address, and the figures have no authentication; set [serve] metrics_any_address = true to serve them there\n", "\(open.stderr)")
        let malformed = try serve("9464")
        #expect(malformed.status == 1 && malformed.stderr == "coordsh: error: --metrics wants HOST:PORT (e.g. 127.0.0.1:9464), not '9464'\n", "\(malformed.stderr)")
        // The config's consent: any address.
        let anywhere = try ServeTests.Server(config: "[serve]\nmetrics_any_address = true\n", arguments: ["--metrics", "0.0.0.0:0"])
        #expect(try Self.url(anywhere).hasPrefix("http://0.0.0.0:"))
        #expect(try anywhere.stop() == 0)
        // A port another server holds.
        let first = try ServeTests.Server(arguments: ["--metrics", "127.0.0.1:0"])
        let taken = try Self.url(first).replacingOccurrences(of: "http://", with: "").replacingOccurrences(of: "/metrics", with: "")
        let busy = try serve(taken)
        #expect(busy.status == 1 && busy.stderr.hasPrefix("coordsh: error: cannot serve the metrics on \(taken): "), "\(busy.stderr)")
        #expect(busy.stderr.split(separator: "\n").count == 1, "\(busy.stderr)")
        #expect(try first.stop() == 0)
    }
}
