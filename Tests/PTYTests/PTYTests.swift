import Foundation
import TestSupport
import Testing

/// The interactive shell on a real pseudo-terminal: completion of a command, a route and a
/// value, Ctrl-C, Ctrl-D, history across a restart (and never a card number), colours only
/// without NO_COLOR; and `coordsh connect` attached to a server the same way, with a plugin
/// dropped at the server announced at its prompt; supervised, a killed worker replaced and a
/// new plugin version taken up at the prompt; an outside plugin's request asked once, the
/// answer remembered for its file. The checks are a pexpect script
/// (interactive.py) next to this file.
@Suite("Interactive shell on a pseudo-terminal")
struct PTYTests {
    @Test("completion, Ctrl-C, Ctrl-D, history and colours at a terminal, in process and through connect")
    func interactive() throws {
        let script = BuildProducts.packageRoot + "/Tests/PTYTests/interactive.py"
        let config = BuildProducts.packageRoot + "/config/coordsh.toml"
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["HOME": inherited["HOME"] ?? "/root"]
        for key in ["PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH"] { environment[key] = inherited[key] }
        // The first Python that has pexpect (./test installs it when none has).
        let python = ["python3", "/usr/bin/python3"].first { candidate in
            (try? run("/usr/bin/env", [candidate, "-c", "import pexpect"], environment: environment).status) == 0
        }
        let interpreter = try #require(python, "no python3 with pexpect: run ./test, which installs python3-pexpect")
        let fixtures = try makeTemporaryDirectory("pty-fixtures")
        defer { try? FileManager.default.removeItem(atPath: fixtures) }
        try FixtureBuilder.buildCrasher(output: fixtures + "/crasher-v1.so")
        try FixtureBuilder.buildCrasher(output: fixtures + "/crasher-v2.so", version: 2)
        try FixtureBuilder.buildIntruder(output: fixtures + "/intruder.so", declares: true)
        let result = try run(
            "/usr/bin/env", [interpreter, script, BuildProducts.coordsh, config, fixtures + "/crasher-v1.so", fixtures + "/crasher-v2.so", fixtures + "/intruder.so"],
            environment: environment)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)")
        // Every check printed its line (the script stops at the first that fails).
        #expect(result.stdout.split(separator: "\n").filter { $0.hasPrefix("ok ") }.count == 22, "\(result.stdout)")
    }
}
