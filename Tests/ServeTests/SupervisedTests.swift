import Foundation
import TestSupport
import Testing

/// `coordsh --supervised`: a plugin that traps in a handler costs the command it was running,
/// not the session. Through the real binary, with a fixture plugin that traps on demand.
@Suite("Supervised shell")
struct SupervisedTests {
    /// A private folder with the crasher plugin in `plugins/` and a `coordsh.toml` loading it
    /// beside the bundled plugins, plus `config`.
    static func folderWithCrasher(config: String) throws -> String {
        let folder = try makeTemporaryDirectory("supervised")
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        chmod(folder + "/plugins", 0o755)
        try FixtureBuilder.buildCrasher(output: folder + "/plugins/libcrasher.so")
        try "[plugins]\ndirs = [\"$SDK_DIR\", \"\(folder)/plugins\"]\n\(config)".write(toFile: folder + "/coordsh.toml", atomically: true, encoding: .utf8)
        return folder
    }

    @Test("each crash is one error line naming plugin, line, signal and Swift's message; page and cart come back; a plugin that crashes twice is quarantined; the 4th crash in 5 minutes stops the app until 'restart'")
    func crashesCostOneCommand() throws {
        let folder = try Self.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FixtureBuilder.buildCrasher(output: folder + "/plugins/libcrasher2.so", second: true)
        let script = """
            content show 9
            cart add 3
            crash now index
            where
            cart show
            crash2 now unwrap
            crash now fatal
            crash now fine
            plugins
            crash2 now index
            where
            restart
            where
            plugins allow crasher
            crash now fine
            cart show
            crash now index
            where

            """
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: script,
            environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state"],
            timeout: 120)
        #expect(result.status == 1, "\(result.stderr)")
        let crash = "coordsh: error: the app process crashed running"
        let expected = [
            "\(crash) 'crash now index' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted, back at cart/cart",
            "\(crash) 'crash2 now unwrap' in plugin crasher2: SIGILL (Illegal instruction) — Fatal error: Unexpectedly found nil while unwrapping an Optional value; restarted, back at cart/cart",
            "\(crash) 'crash now fatal' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: crasher was asked to crash; plugin crasher quarantined after 2 crashes ('plugins allow crasher' lets it load again); restarted, back at cart/cart",
            "coordsh: error: unknown command 'crash'",
            "\(crash) 'crash2 now index' in plugin crasher2: SIGILL (Illegal instruction) — Fatal error: Index out of range; plugin crasher2 quarantined after 2 crashes ('plugins allow crasher2' lets it load again); 4 crashes in 5 minutes — the app is stopped; 'restart' starts it again",
            "coordsh: error: the app is stopped (4 crashes in 5 minutes); 'restart' starts it again",
        ]
        var rest = Substring(result.stderr)
        for line in expected {
            guard let found = rest.range(of: line) else {
                Issue.record("stderr lacks, in order: \(line)\n\(result.stderr)")
                break
            }
            rest = rest[found.upperBound...]
        }
        // `plugins` names the quarantine and why.
        #expect(result.stdout.contains("refused \(folder)/plugins/libcrasher.so: quarantined: 2 crashes, the last running 'crash now fatal': Fatal error: crasher was asked to crash; 'plugins allow crasher' lets it load again"), "\(result.stdout)")
        // The page and the cart line survive every crash, the stop and 'restart'.
        #expect(result.stdout.components(separatedBy: "route: cart/cart").count - 1 == 3, "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "#3   Leather Boots").count - 1 == 3, "\(result.stdout)")
        #expect(result.stdout.contains("note: the app was started again"), "\(result.stdout)")
        #expect(result.stdout.contains("plugin crasher is no longer quarantined\nloaded plugin crasher 1.0.0 from \(folder)/plugins/libcrasher.so"), "\(result.stdout)")
        // 'restart' starts the crash count over (README): the first crash after it restarts the
        // app again instead of stopping it — it would be the 5th in 5 minutes otherwise.
        let afterRestart = result.stderr.components(separatedBy: "\n").filter { $0.contains("'crash now index' in plugin crasher:") }
        #expect(afterRestart.count == 2 && afterRestart[1].hasSuffix("restarted, back at cart/cart"), "\(result.stderr)")
        #expect(!afterRestart[1].contains("the app is stopped"), "\(result.stderr)")
        #expect(result.stdout.hasSuffix("route: cart/cart\n  1. page cart/cart\n  2. coordinator cart\n  3. scene terminal\n  4. app\n"), "\(result.stdout.suffix(300))")
        let quarantined = (try? String(contentsOfFile: folder + "/state/coordsh/quarantine.tsv", encoding: .utf8)) ?? ""
        // crasher, let in again, crashed once more: quarantined again, counting all three.
        #expect(quarantined.contains("crasher2\t2 crashes") && quarantined.contains("crasher\t3 crashes"), "\(quarantined)")
    }

    @Test("a handler in an endless loop: the worker is killed after [shell] worker_timeout and replaced, and the crash line names the function it was stuck in")
    func hungWorker() throws {
        let folder = try Self.folderWithCrasher(config: "[shell]\nworker_timeout = 2\n")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: "cart add 5\ncrash now loop\nwhere\n", environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data"],
            timeout: 60)
        #expect(result.status == 1)
        // The worker's main thread was in the plugin's handler (under usleep, which is the C
        // library's): its closure, from the plugin's own symbol table, demangled.
        #expect(result.stderr.hasPrefix("coordsh: error: the app process stopped answering running 'crash now loop' in plugin crasher: no answer for 2 s, stuck in closure #1 "), "\(result.stderr)")
        #expect(result.stderr.contains(" in Crasher.CrasherCoordinator.init() -> Crasher.CrasherCoordinator (libcrasher.so), killed; restarted, back at cart/cart\n"), "\(result.stderr)")
        #expect(result.stdout.hasSuffix("route: cart/cart\n  1. page cart/cart\n  2. coordinator cart\n  3. scene terminal\n  4. app\n"), "\(result.stdout)")
    }


    @Test("after a crash the scene's pages are opened again in order: 'back' goes where it went, and a page whose plugin is gone is left out with a note, on the page before it")
    func pageTrailRestored() throws {
        let folder = try Self.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            content show 9
            open crasher/home
            crash now vanish
            where
            back
            where

            """
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: script, environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state"],
            timeout: 60)
        #expect(result.stderr.contains("coordsh: error: the app process crashed running 'crash now vanish' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: crasher removed its file; restarted, back at content/product id=9"), "\(result.stderr)")
        #expect(result.stdout.contains("coordsh: could not go back to crasher/home: ") || result.stderr.contains("could not go back to crasher/home: "), "\(result.stdout)\n\(result.stderr)")
        // The page before it, then back where 'back' went before the crash.
        let wheres = result.stdout.components(separatedBy: "route: ").dropFirst().map { $0.prefix { $0 != "\n" } }
        #expect(wheres == ["content/product id=9", "content/catalog"], "\(result.stdout)")
    }

    @Test("a page 'back' left before a crash stays left: the scene comes back on the page back went to, and back from there goes on")
    func backBeforeCrashKept() throws {
        let folder = try Self.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = "content show 9\ncontent show 3\nback\ncrash now index\nwhere\nback\nwhere\n"
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: script, environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state"],
            timeout: 60)
        #expect(result.stderr.contains("restarted, back at content/product id=9"), "\(result.stderr)")
        let wheres = result.stdout.components(separatedBy: "route: ").dropFirst().map { $0.prefix { $0 != "\n" } }
        #expect(wheres == ["content/product id=9", "content/catalog"], "\(result.stdout)")
    }

    /// A crasher folder whose shop has ann@example.com confirmed (password in $PW), the shell's
    /// command line (executable first) and its environment.
    static func shopWithAccount() throws -> (folder: String, shell: [String], environment: [String: String]) {
        let folder = try folderWithCrasher(config: "")
        let environment = [
            "HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
            "PW": "correct horse battery",
        ]
        let shell = [BuildProducts.coordsh, "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite", "--password-env", "PW"]
        try createAccount(shell, environment)
        return (folder, shell, environment)
    }

    /// Creates and confirms ann@example.com with the password in $PW, in process.
    static func createAccount(_ shell: [String], _ environment: [String: String]) throws {
        let created = try run(shell[0], Array(shell.dropFirst()), input: "account create ann@example.com\naccount outbox\n", environment: environment)
        let code = try #require(created.stdout.components(separatedBy: "Run: account confirm ").last?.prefix(6))
        let confirmed = try run(shell[0], Array(shell.dropFirst()) + ["-c", "account confirm \(code)"], environment: environment)
        #expect(confirmed.status == 0, "\(confirmed.stderr)")
    }

    @Test("a guest's checkout waiting for a login waits again after a crash, and goes on at the login: paid once")
    func waitingCheckoutSurvivesACrash() throws {
        let (folder, shell, environment) = try Self.shopWithAccount()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            cart add 4
            cart checkout
            crash now index
            queue
            account login ann@example.com
            payment pay 4242424242424242
            queue

            """
        let result = try run(shell[0], ["--supervised", "--keep-going"] + Array(shell.dropFirst()), input: script, environment: environment, timeout: 120)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr.hasSuffix("restarted, back at account/login\n"), "\(result.stderr)")
        #expect(result.stdout.contains("note: 'cart checkout' waits again\ncoordinator cart: 1/32\n  cartCheckout() waiting for user"), "\(result.stdout)")
        #expect(result.stdout.contains("note: cartCheckout() replayed at coordinator cart"), "\(result.stdout)")
        #expect(result.stdout.contains("note: paid: order 1\n"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("no queued messages\n"), "\(result.stdout)")
    }

    @Test("the login survives a crash through a session token; after logout the token is revoked and a crash finds nobody logged in")
    func loginSurvivesACrash() throws {
        let (folder, shell, environment) = try Self.shopWithAccount()
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            account login ann@example.com
            crash now index
            account whoami
            account logout
            crash2 now index
            account whoami

            """
        try FixtureBuilder.buildCrasher(output: folder + "/plugins/libcrasher2.so", second: true)
        let result = try run(shell[0], ["--supervised", "--keep-going"] + Array(shell.dropFirst()), input: script, environment: environment, timeout: 120)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stdout.contains("note: still logged in as ann@example.com\n── Logged in as ann@example.com ──"), "\(result.stdout)")
        #expect(result.stdout.hasSuffix("── Not logged in ──\naccount login EMAIL — log in\n"), "\(result.stdout)")
        #expect(!result.stdout.contains("correct horse") && !result.stderr.contains("correct horse"))
        // One session row, revoked at the logout: a stolen token is worth nothing after it.
        let rows = try run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*), count(revoked_at), min(length(token_digest)) FROM sessions").fetchone())
            """, folder + "/shop.sqlite"], environment: ["HOME": folder])
        #expect(rows.stdout == "(1, 1, 64)\n", "\(rows.stdout)\(rows.stderr)")
    }


    @Test("a page that traps when it is shown again: the restore falls back to the start page with a note, and the shell goes on")
    func pageThatCannotBeRestored() throws {
        let folder = try Self.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: "open crasher/fragile\ncrash now arm\ncrash now index\nwhere\necho still here\n",
            environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state"],
            timeout: 120)
        #expect(result.stdout.contains("── Fragile ──"), "\(result.stdout)")
        #expect(result.stderr.contains("restarted, back at content/catalog"), "\(result.stderr)")
        #expect(result.stderr.contains("the page crasher/fragile could not be restored: the app process crashed again (SIGILL (Illegal instruction) — Fatal error: the fragile page cannot be shown again); starting over from the start page"), "\(result.stdout)\(result.stderr)")
        #expect(result.stdout.hasSuffix("route: content/catalog\n  1. page content/catalog\n  2. coordinator content\n  3. scene terminal\n  4. app\nstill here\n"), "\(result.stdout)")
    }

    @Test("a crash while a secret argument was being used: the report and the marker file do not carry the secret")
    func secretNotReported() throws {
        let folder = try Self.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: "crash secret 4000123412341234\n",
            environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state"],
            timeout: 120)
        #expect(result.stderr.hasPrefix("coordsh: error: the app process crashed running 'crash secret ****' in plugin crasher: SIGILL"), "\(result.stderr)")
        #expect(!result.stderr.contains("4000123412341234") && !result.stdout.contains("4000123412341234"))
    }
}
