import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation
import TestSupport
import Testing

/// A grant changed while the app runs (what `AppHost.regrant` does after `plugins grant` or a
/// prompt's answer) is in force for the very next statement, however often that statement
/// ran before: the statement check keeps its verdicts per feature and text, and a grant taken
/// back must not leave one standing. In process, with the real intruder plugin `.so` loaded
/// from a folder of its own (an outside plugin) beside the real Content plugin.
@Suite("A grant changed in a running app", .serialized)
@MainActor
struct GrantChangeTests {
    @Test("a read let through while granted is refused the next time once the grant is taken back, and let through again once it is given back")
    func revokedGrantRefusesNextRun() throws {
        let folder = try makeTemporaryDirectory("regrant")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let plugin = folder + "/plugins/libintruder.so"
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        try FixtureBuilder.buildIntruder(output: plugin, declares: true)
        let host = try TestHost(plugins: ["Content"], config: "[plugins.grants]\nintruder = [\"read products\"]\n")
        defer { host.close() }
        _ = try host.loader.load(plugin)
        let scene = host.app.makeScene(identifier: "t")

        let read = "SELECT name FROM products WHERE id = 1"
        func intrude() throws {
            try scene.send("intrudeSql", ["target": read])
        }
        func refused() -> Bool {
            do {
                try intrude()
                return false
            } catch {
                return "\(error)".contains("read products")
            }
        }
        for _ in 0..<3 { try intrude() }

        var grants = host.access.grants
        grants.configured["intruder"] = []
        host.access.grants = grants
        host.app.rebuildDependencies()
        #expect(refused(), "taken back: the read is refused")
        #expect(refused(), "and stays refused")

        grants.configured["intruder"] = [.read(table: "products")]
        host.access.grants = grants
        host.app.rebuildDependencies()
        #expect(throws: Never.self, "given back: the read runs again") { try intrude() }
    }
}
