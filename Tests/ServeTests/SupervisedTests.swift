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

    @Test("each crash is one error line naming plugin, line, signal and Swift's message; the page and the cart are back; the 4th crash in 5 minutes stops the app until 'restart'")
    func crashesCostOneCommand() throws {
        let folder = try Self.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let script = """
            content show 9
            cart add 3
            crash now index
            where
            cart show
            crash now unwrap
            crash now fatal
            crash now fine
            where
            crash now index
            where
            restart
            where
            cart show

            """
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: script, environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data"],
            timeout: 120)
        let errors = result.stderr.split(separator: "\n").map(String.init)
        #expect(result.status == 1, "\(result.stderr)")
        #expect(errors.count == 5, "\(result.stderr)")
        let crash = "coordsh: error: the app process crashed running"
        #expect(errors.first == "\(crash) 'crash now index' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted, back at cart/cart", "\(result.stderr)")
        #expect(errors.dropFirst().first?.hasPrefix("\(crash) 'crash now unwrap' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Unexpectedly found nil while unwrapping an Optional value") == true, "\(result.stderr)")
        #expect(errors.dropFirst(2).first?.hasPrefix("\(crash) 'crash now fatal' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: crasher was asked to crash") == true, "\(result.stderr)")
        #expect(errors.dropFirst(3).first?.hasSuffix("4 crashes in 5 minutes — the app is stopped; 'restart' starts it again") == true, "\(result.stderr)")
        #expect(errors.dropFirst(4).first == "coordsh: error: the app is stopped (4 crashes in 5 minutes); 'restart' starts it again", "\(result.stderr)")
        // The session's page and the cart line survive every crash, and after 'restart'.
        #expect(result.stdout.components(separatedBy: "route: cart/cart").count - 1 == 3, "\(result.stdout)")
        #expect(result.stdout.components(separatedBy: "#3   Leather Boots").count - 1 == 3, "\(result.stdout)")
        #expect(result.stdout.contains("note: the app was started again"), "\(result.stdout)")
    }

    @Test("a handler in an endless loop: the worker is killed after [shell] worker_timeout and replaced")
    func hungWorker() throws {
        let folder = try Self.folderWithCrasher(config: "[shell]\nworker_timeout = 2\n")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let result = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"],
            input: "cart add 5\ncrash now loop\nwhere\n", environment: ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data"],
            timeout: 60)
        #expect(result.status == 1)
        #expect(result.stderr == "coordsh: error: the app process stopped answering running 'crash now loop' in plugin crasher: no answer for 2 s, killed; restarted, back at cart/cart\n", "\(result.stderr)")
        #expect(result.stdout.hasSuffix("route: cart/cart\n  1. page cart/cart\n  2. coordinator cart\n  3. scene terminal\n  4. app\n"), "\(result.stdout)")
    }

}
