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

    @Test("the watcher: many files at once, a rename, a removal and a file written in two steps; the shell ends with what the folder holds, each plugin once")
    func watcherEdgeCases() throws {
        let home = try PluginHome("watcher")
        defer { home.remove() }
        let folder = try home.folder("plugins")
        let staging = try home.folder("staging")
        try FixtureBuilder.buildProbe(output: staging + "/libprobe.so")
        // Only the watched folder: the shell starts with no plugin at all.
        let config = home.path + "/only-folder.toml"
        try "[plugins]\ndirs = [\"\(folder)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let shell = try LiveShell(["--config", config, "--keep-going"], environment: home.environment)
        #expect(shell.send("plugins").contains("no plugins loaded"))

        // The four bundled plugins arrive at once: each loaded once, none refused.
        for name in BuildProducts.bundledPlugins {
            try FileManager.default.copyItem(atPath: BuildProducts.plugin(name), toPath: folder + "/lib\(name)Plugin.so")
        }
        let arrived = shell.send("plugins")
        for name in ["account", "cart", "content", "payment"] {
            #expect(arrived.components(separatedBy: "\n\(name) 0.3.0  prefix").count == 2, "\(name): \(arrived)")
        }
        #expect(!arrived.contains("refused"), "\(arrived)")

        // Renamed: the same plugin under a new name, not a duplicate and not a refusal.
        try FileManager.default.moveItem(atPath: folder + "/libContentPlugin.so", toPath: folder + "/libContent-renamed.so")
        let renamed = shell.send("content show 9")
        #expect(renamed.hasPrefix("── #9 Red Sneakers ──"), "\(renamed)")
        #expect(!renamed.contains("refused") && !renamed.contains("duplicate"), "\(renamed)")

        // Removed: still loaded (Swift images are never unloaded), and `plugins` says so.
        try FileManager.default.removeItem(atPath: folder + "/libCartPlugin.so")
        #expect(shell.send("cart add 9").contains("── Cart (1 item) ──"))
        let removed = shell.send("plugins")
        #expect(removed.contains("\(folder)/libCartPlugin.so  (file gone since it was loaded; loaded until coordsh restarts)"), "\(removed)")

        // Written in two steps: the half is refused, the whole is loaded, and the refusal goes.
        let probe = try Data(contentsOf: URL(fileURLWithPath: staging + "/libprobe.so"))
        let target = folder + "/libprobe.so"
        #expect(FileManager.default.createFile(atPath: target, contents: probe.prefix(40), attributes: [.posixPermissions: 0o755]))
        let half = shell.send("echo half")
        #expect(half.contains("coordsh: refused plugin \(target): "), "\(half)")
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: target))
        try handle.seekToEnd()
        try handle.write(contentsOf: probe.dropFirst(40))
        try handle.close()
        let whole = shell.send("probe ping 1")
        #expect(whole.contains("note: loaded plugin probe 1.0.0 from \(target)"), "\(whole)")
        // A refused file that is then removed is no longer listed as refused.
        try "not a plugin\n".write(toFile: folder + "/libjunk.so", atomically: false, encoding: .utf8)
        #expect(shell.send("echo junk").contains("coordsh: refused plugin \(folder)/libjunk.so: "))
        try FileManager.default.removeItem(atPath: folder + "/libjunk.so")
        #expect(shell.send("plugins rescan") == "no new or changed plugins in \(folder)\n")
        let end = shell.send("plugins")
        #expect(end.components(separatedBy: "prefix").count == 6, "five plugins, each once: \(end)")
        #expect(!end.contains("refused"), "\(end)")
        #expect(shell.finish() == 0)
    }
}
