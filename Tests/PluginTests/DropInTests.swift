import Foundation
import TestSupport
import Testing

@Suite("Plugins dropped into a folder while the shell runs")
struct DropInTests {
    @Test("a dropped plugin appears; a new version or a changed file says a restart is needed")
    func dropIn() throws {
        let home = try PluginHome("dropin")
        defer { home.remove() }
        let folder = try home.folder("plugins")
        let staging = try home.folder("staging")
        try FixtureBuilder.buildProbe(output: staging + "/libprobe.so")
        try FixtureBuilder.buildProbe("NEWVERSION", output: staging + "/libcart-next.so")
        try FixtureBuilder.buildProbe("LEAK", output: staging + "/libprobe-changed.so")
        let shell = try LiveShell(["--config", try home.config(directories: [folder]), "--keep-going"], environment: home.environment)

        #expect(!shell.send("plugins").contains("probe"))
        // Copied in: the folder watcher sees it, and it is vetted and loaded before the next command.
        try FileManager.default.copyItem(atPath: staging + "/libprobe.so", toPath: folder + "/libprobe.so")
        let ping = shell.send("probe ping 2")
        #expect(ping.contains("note: loaded plugin probe 1.0.0 from \(folder)/libprobe.so"), "\(ping)")
        #expect(ping.contains("Probe probe/item id=2"), "\(ping)")

        // Another version of a loaded plugin is not loaded next to it.
        try FileManager.default.copyItem(atPath: staging + "/libcart-next.so", toPath: folder + "/libcart-next.so")
        let next = shell.send("cart show")
        #expect(next.contains("coordsh: refused plugin \(folder)/libcart-next.so: is version 9.9.9 of plugin 'cart', whose version 0.3.0 is loaded from \(BuildProducts.plugin("Cart")); restart coordsh to load the new version (Swift images are never unloaded)"), "\(next)")
        // …and the command still runs, on the loaded version.
        #expect(next.contains("── Cart (0 items) ──\n(empty)\n"), "\(next)")

        // The loaded file itself replaced: a restart is needed; the running plugin keeps working.
        let replacement = try Data(contentsOf: URL(fileURLWithPath: staging + "/libprobe-changed.so"))
        // Replaced the safe way (a new file renamed over the old): overwriting a mapped library in
        // place would change the code under the running shell.
        try replacement.write(to: URL(fileURLWithPath: folder + "/libprobe.so"), options: .atomic)
        let changed = shell.send("probe ping 3")
        #expect(changed.contains("refused plugin \(folder)/libprobe.so: changed since plugin 'probe' was loaded from it; restart coordsh to load the new version"), "\(changed)")
        #expect(changed.contains("Probe probe/item id=3"), "\(changed)")

        // Refusals stay listed with their reasons; an explicit load of the new version says the same.
        let listing = shell.send("plugins")
        #expect(listing.contains("refused \(folder)/libcart-next.so: is version 9.9.9 of plugin 'cart'"), "\(listing)")
        let load = shell.send("plugins load \(folder)/libcart-next.so")
        #expect(load.contains("coordsh: error: refused plugin \(folder)/libcart-next.so: is version 9.9.9"), "\(load)")
        #expect(shell.send("plugins rescan").contains("no new or changed plugins"))
        #expect(shell.finish() == 1)
    }
}
