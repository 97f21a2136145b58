import Foundation
import TestSupport
import Testing

/// The launcher (`coordsh`, Sources/coordsh/launcher.c) starts a supervised shell's app
/// process beside the shell, so that the two starts overlap. Through the real binaries: the
/// shell takes that process as its worker (and starts no other), gives it its own options, and
/// a guess that was wrong leaves no process behind.
@Suite("The app process started beside a supervised shell")
struct EarlyWorkerTests {
    /// The live processes whose environment holds `mark` (a variable only this test sets).
    static func processes(marked mark: String) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let environment = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/environ")),
                let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let close = stat.range(of: ")", options: .backwards), !stat[close.upperBound...].hasPrefix(" Z")
            else { return false }
            return environment.split(separator: 0).contains { String(decoding: $0, as: UTF8.self) == mark }
        }
    }

    @Test("a supervised shell's worker is the one the launcher started beside it — the only one — and runs with the shell's config, database and plugin folder")
    func earlyWorkerTaken() throws {
        let folder = try SupervisedTests.folderWithCrasher(config: "")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let environment = ["HOME": folder, "XDG_CACHE_HOME": folder + "/cache", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state"]
        let database = folder + "/chosen.sqlite"
        let shell = try LiveShell(["--supervised", "--keep-going", "--config", folder + "/coordsh.toml", "--db", database], environment: environment)
        // The crasher is found only in the config's plugin folder; the cart lands in --db.
        #expect(shell.send("cart add 3").contains("Leather Boots"))
        #expect(shell.send("plugins").contains("crasher"))
        let workers = childProcesses(of: shell.pid).filter { $0.commandLine.first?.hasSuffix("/coordsh-server") == true }
        #expect(workers.count == 1, "the shell's app processes: \(workers)")
        // The launcher passed on the shell's --config, for the worker to read while it waited.
        #expect(workers.first?.commandLine.dropFirst() == ["worker", "--early", "--config", folder + "/coordsh.toml"], "\(workers)")
        #expect(shell.finish() == 0)
        #expect(FileManager.default.fileExists(atPath: database))
        #expect(!FileManager.default.fileExists(atPath: folder + "/data/coordsh/shop.sqlite"), "the worker opened the default database, not --db")
    }

    @Test("a command line the launcher took for a supervised shell's and the shell did not: one line, status 2, and the process started for it is gone")
    func wrongGuessLeavesNothing() throws {
        let folder = try makeTemporaryDirectory("early-worker")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let mark = "COORDSH_TEST_MARK=\(UUID().uuidString)"
        let equals = try #require(mark.firstIndex(of: "="))
        let environment = [
            String(mark[..<equals]): String(mark[mark.index(after: equals)...]), "HOME": folder, "XDG_CACHE_HOME": folder + "/cache",
            "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
        ]
        let result = try run(BuildProducts.coordsh, ["--supervised", "--no-such-option"], environment: environment, timeout: 60)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("coordsh: error: "), "\(result.stderr)")
        // The early worker waits on a channel whose other end was the shell's; it is gone with it.
        let deadline = Date(timeIntervalSinceNow: 5)
        while !Self.processes(marked: mark).isEmpty, Date() < deadline { usleep(20_000) }
        #expect(Self.processes(marked: mark).isEmpty, "left behind: \(Self.processes(marked: mark))")
    }
}
