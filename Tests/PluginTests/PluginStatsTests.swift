import Foundation
import TestSupport
import Testing

/// `plugins stats`: what each plugin's code cost, through the binary with the slowpoke fixture
/// (handlers that take as long as they are told, fail, are refused, run SQL, or spend their
/// time in another plugin) and the shop.
@Suite("What each plugin's code cost")
struct PluginStatsTests {
    /// The slowpoke plugins built into a private home, and a config with `extra` in [plugins].
    static func slowHome(_ label: String, extra: String) throws -> (home: PluginHome, config: String) {
        let home = try PluginHome(label)
        let plugins = try home.folder("plugins")
        try FixtureBuilder.buildSlowpoke(output: plugins + "/libslowpoke.so")
        try FixtureBuilder.buildSlowpoke(output: plugins + "/libslowpoke2.so", second: true)
        return (home, try home.config(directories: [plugins], extra: extra))
    }

    /// The `plugins stats --json` document (the last line of a `--json` run).
    static func document(_ stdout: String) throws -> [String: Any] {
        let last = stdout.split(separator: "\n").last.map(String.init) ?? ""
        return try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any], "\(stdout)")
    }

    /// The row of `plugin`'s `kind` `name` in a stats document.
    static func row(_ document: [String: Any], _ plugin: String, _ kind: String, _ name: String) -> [String: Any]? {
        let plugins = (document["plugins"] as? [[String: Any]]) ?? []
        let work = (plugins.first { $0["plugin"] as? String == plugin }?["work"] as? [[String: Any]]) ?? []
        return work.first { $0["kind"] as? String == kind && $0["name"] as? String == name }
    }

    static func figure(_ row: [String: Any]?, _ key: String) -> Int { (row?[key] as? Int) ?? -1 }

    @Test("each plugin's runs, failures, refusals, SQL and pages are counted; a handler that sends to another plugin pays only its own time; a slow one is named; reset starts again")
    func countsAndOwnTime() throws {
        let (home, config) = try Self.slowHome("stats", extra: "slow_handler = 0.2")
        defer { home.remove() }
        // The last two waits are sent from slowpoke's own page: its coordinator is on their way
        // up, the one handler of the name, and the second send takes the cached fast path.
        let commands = ["slow relay 300", "slow wait 50", "slow fail", "slow peek", "slow count", "open slowpoke/home", "slow wait 1", "slow wait 1", "plugins stats"]
        let shell = try home.coordsh(["--config", config, "--keep-going", "--json"] + commands.flatMap { ["-c", $0] })
        #expect(shell.status == 1, "\(shell.stderr)")
        let stats = try Self.document(shell.stdout)

        // The relay's 300 ms were spent in slowpoke2's handler: they are slowpoke2's.
        let relay = Self.row(stats, "slowpoke", "message", "slowRelay"), waited = Self.row(stats, "slowpoke2", "message", "slow2Wait")
        #expect(Self.figure(relay, "runs") == 1 && Self.figure(relay, "maxNanoseconds") < 100_000_000, "\(String(describing: relay))")
        #expect(Self.figure(waited, "runs") == 1 && Self.figure(waited, "p50Nanoseconds") >= 295_000_000, "\(String(describing: waited))")
        let wait = Self.row(stats, "slowpoke", "message", "slowWait")
        #expect(Self.figure(wait, "runs") == 3, "\(String(describing: wait))")
        #expect(Self.figure(wait, "maxNanoseconds") >= 49_000_000 && Self.figure(wait, "maxNanoseconds") < 290_000_000, "\(String(describing: wait))")
        // A failure, and a failure that was a refusal (a table it never declared).
        let fail = Self.row(stats, "slowpoke", "message", "slowFail"), peek = Self.row(stats, "slowpoke", "message", "slowPeek")
        #expect(Self.figure(fail, "errors") == 1 && Self.figure(fail, "refusals") == 0, "\(String(describing: fail))")
        #expect(Self.figure(peek, "errors") == 1 && Self.figure(peek, "refusals") == 1, "\(String(describing: peek))")
        #expect(Self.figure(Self.row(stats, "slowpoke", "page", "slowpoke/home"), "runs") == 1)
        let plugins = (stats["plugins"] as? [[String: Any]]) ?? []
        let slowpoke = plugins.first { $0["plugin"] as? String == "slowpoke" }
        #expect(slowpoke?["runs"] as? Int == 8 && slowpoke?["errors"] as? Int == 2 && slowpoke?["refusals"] as? Int == 1, "\(String(describing: slowpoke))")

        // Named as slow: slowpoke2's wait; never the relay, whose own time is short.
        let notes = shell.stdout.split(separator: "\n").filter { $0.contains("slow handler") }
        #expect(notes.count == 1, "\(shell.stdout)")
        #expect(notes.first?.contains("slow handler: plugin slowpoke2 took ") == true && notes.first?.contains(" for slow2Wait (over [plugins] slow_handler = 200 ms)") == true, "\(notes)")

        // SQL: the statements of one run of `slow count` after a reset, exactly its three.
        let again = try home.coordsh(["--config", config, "--json", "-c", "slow count", "-c", "plugins stats reset", "-c", "slow count", "-c", "plugins stats"])
        #expect(again.status == 0, "\(again.stderr)")
        let count = Self.row(try Self.document(again.stdout), "slowpoke", "message", "slowCount")
        #expect(Self.figure(count, "runs") == 1 && Self.figure(count, "statements") == 3, "\(String(describing: count))")
        #expect(Self.figure(count, "statementNanoseconds") > 0 && Self.figure(count, "statementNanoseconds") <= Self.figure(count, "maxNanoseconds"))
    }

    @Test("with [plugins] accounting = false nothing is counted or named slow, and plugins stats says so in one line")
    func accountingOff() throws {
        let (home, config) = try Self.slowHome("stats-off", extra: "accounting = false\nslow_handler = 0.01")
        defer { home.remove() }
        let shell = try home.coordsh(["--config", config, "-c", "slow wait 50", "-c", "plugins stats"])
        #expect(shell.status == 1)
        #expect(!shell.stdout.contains("slow handler"), "\(shell.stdout)")
        #expect(shell.stderr == "coordsh: error: plugins stats: accounting is off ([plugins] accounting = false in \(config))\n", "\(shell.stderr)")
    }

    @Test("a checkout that waits for a login counts its wait; the password hash the login costs is the host's, not the account plugin's")
    func queueWaitsAndHostTime() throws {
        let home = try PluginHome("stats-wait")
        defer { home.remove() }
        let environment = ["PW": "correct horse battery"]
        let created = try run(BuildProducts.coordsh, ["--password-env", "PW", "-c", "account create ann@example.com", "-c", "account outbox"], environment: home.environment.merging(environment) { $1 })
        #expect(created.status == 0, "\(created.stderr)")
        let marker = try #require(created.stdout.range(of: "Your confirmation code is "), "\(created.stdout)")
        let code = String(created.stdout[marker.upperBound...].prefix { $0 != "." })
        let shell = try run(
            BuildProducts.coordsh,
            ["--password-env", "PW", "--json", "-c", "account confirm \(code)", "-c", "cart add 3", "-c", "cart checkout", "-c", "echo waiting",
             "-c", "account login ann@example.com", "-c", "plugins stats"],
            environment: home.environment.merging(environment) { $1 })
        #expect(shell.status == 0, "\(shell.stderr)")
        let stats = try Self.document(shell.stdout)
        let checkout = Self.row(stats, "cart", "message", "cartCheckout")
        #expect(Self.figure(checkout, "waits") == 1 && Self.figure(checkout, "longestWaitNanoseconds") > 0, "\(String(describing: checkout))")
        // The login's scrypt (about a tenth of a second in a release build, ten times that in a
        // debug one) is the host's row; the account plugin's own time is what it did itself.
        let verify = Self.row(stats, "coordsh", "service", "passwords.verify")
        let login = Self.row(stats, "account", "message", "accountLogin")
        #expect(Self.figure(verify, "runs") == 1, "\(stats)")
        #expect(Self.figure(login, "runs") == 1 && Self.figure(login, "maxNanoseconds") < Self.figure(verify, "maxNanoseconds"), "\(String(describing: login)) \(String(describing: verify))")
    }
}
