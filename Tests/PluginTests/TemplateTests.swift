import Foundation
import TestSupport
import Testing

@Suite("coordsh plugin new: a package an outside author builds, checks and drops in")
struct TemplateTests {
    @Test("the generated plugin builds with one command, passes the contract, runs in the shell and passes its own swift test")
    func newPlugin() throws {
        let home = try PluginHome("template")
        defer { home.remove() }
        let package = home.path + "/weather"
        let created = try home.coordsh(["plugin", "new", "weather", "--path", package])
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("Sources/WeatherPlugin/WeatherCoordinator.swift"))

        let swift = try #require(
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swift" }
                .first { FileManager.default.isExecutableFile(atPath: $0) })
        let environment = ProcessInfo.processInfo.environment.merging(home.environment) { _, new in new }
        let build = try run(swift, ["build", "--package-path", package], environment: environment, mergeOutput: true)
        #expect(build.status == 0, "\(build.stdout)")
        let plugin = package + "/.build/debug/libWeatherPlugin.so"

        let check = try home.coordsh(["plugin", "check", "--alone", plugin])
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.hasSuffix("17 passed, 0 failed\n"))

        let shell = try home.coordsh(["--plugin-dir", package + "/.build/debug", "-c", "weather show 2", "-c", "back", "-c", "help weather"])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout.contains("Item 2"))
        #expect(shell.stdout.contains("Items 1, 2 and 3"))
        #expect(shell.stdout.contains("weather show ID"))

        let test = try run(swift, ["test", "--package-path", package], environment: environment, mergeOutput: true)
        #expect(test.status == 0, "\(test.stdout)")
        #expect(test.stdout.contains("meetsThePluginContract"))
    }

    @Test("a bad name or an occupied folder is one line and exit 2")
    func badInput() throws {
        let home = try PluginHome("templatebad")
        defer { home.remove() }
        let bad = try home.coordsh(["plugin", "new", "Weather", "--path", home.path + "/w"])
        #expect(bad.status == 2)
        #expect(bad.stderr == "coordsh: error: plugin name 'Weather' must be lower-case letters and digits, starting with a letter (it is also the message prefix), and not 'global'\n")
        try "mine\n".write(toFile: home.path + "/notes.txt", atomically: true, encoding: .utf8)
        let occupied = try home.coordsh(["plugin", "new", "weather", "--path", home.path])
        #expect(occupied.status == 2)
        #expect(occupied.stderr.contains("already exists and is not empty"))
    }
}
