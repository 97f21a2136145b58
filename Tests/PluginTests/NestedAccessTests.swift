import Foundation
import TestSupport
import Testing

/// A plugin that opens a data access inside another (a helper with its own `read` called from
/// a `write`): GRDB traps on a connection asked for again inside its own access, which took the
/// whole shell down with the plugin's mistake. Through the binary, with the slowpoke fixture.
@Suite("An access to the data store inside another")
struct NestedAccessTests {
    @Test("a write inside a write is refused in one line and the next write runs; a read inside a read, a read inside a write and a write inside a read work")
    func nested() throws {
        let (home, config) = try PluginStatsTests.slowHome("nested", extra: "")
        defer { home.remove() }
        let shell = try home.coordsh([
            "--config", config, "--keep-going",
            "-c", "slow nest write-in-write", "-c", "slow count", "-c", "slow nest read-in-read", "-c", "slow nest read-in-write",
            "-c", "slow nest write-in-read", "-c", "echo still here",
        ])
        #expect(shell.status == 1, "\(shell.stderr)")
        #expect(shell.stdout.contains("still here"), "\(shell.stdout)")
        let errors = shell.stderr.split(separator: "\n")
        // Only the nested write failed: the write after it ran (the store was not left busy).
        #expect(errors.count == 1 && errors[0].contains("a write inside another write"), "\(shell.stderr)")
    }

    @Test("in a --single-transaction script any access inside another is refused in one line, and the script rolls back whole")
    func nestedInScript() throws {
        let (home, config) = try PluginStatsTests.slowHome("nested-one", extra: "")
        defer { home.remove() }
        // Its table made first: a migration is not run inside a script's transaction.
        #expect(try home.coordsh(["--config", config, "-c", "slow count"]).status == 0)
        for how in ["write-in-write", "read-in-write", "write-in-read", "read-in-read"] {
            let script = try home.coordsh(["--config", config, "-1", "-c", "slow count", "-c", "slow nest \(how)"])
            #expect(script.status == 1, "\(how): \(script.stderr)")
            let lines = script.stderr.split(separator: "\n")
            #expect(lines.count == 2 && lines[0].contains("-c 2: ") && lines[0].contains("inside another"), "\(how): \(script.stderr)")
            #expect(lines.last?.contains("rolled back: nothing the script did before -c 2 was kept") == true, "\(how): \(script.stderr)")
        }
    }
}
