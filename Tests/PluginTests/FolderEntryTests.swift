import Foundation
import TestSupport
import Testing

/// A start registers each cached, unchanged plugin from its folder entry (one `fstatat`) and
/// does not open its file; everything the start checks of a file it can check from the entry
/// is still checked, and a file it cannot judge that way is opened as before. Through the real
/// binary and real `.so` files, counted by `plugins --json`'s `files_opened`.
@Suite("Plugins registered from their folder entries")
struct FolderEntryTests {
    @Test("the start after the first opens none of the cached plugins' files; a plugin's first use opens its file once")
    func cachedPluginsUnopened() throws {
        let home = try PluginHome("entries")
        defer { home.remove() }
        let config = try home.config(directories: [])
        let first = try home.plugins(config: config).json
        #expect(first.loadedNames == ["account", "cart", "content", "payment"])
        #expect(first["files_opened"] as? Int == 4, "\(first)")
        let second = try home.plugins(config: config).json
        #expect(second.loadedNames == ["account", "cart", "content", "payment"])
        #expect(second["vetting_processes"] as? Int == 0)
        #expect(second["files_opened"] as? Int == 0, "\(second)")

        // A command that needs plugins: each one loaded is opened once, when first used.
        let used = try home.coordsh(["--config", config, "--db", home.path + "/shop.sqlite", "--json", "-c", "cart add 3", "-c", "plugins"])
        #expect(used.status == 0, "\(used.stderr)")
        let last = try #require(used.stdout.split(separator: "\n").last)
        let json = try #require(try JSONSerialization.jsonObject(with: Data(last.utf8)) as? [String: Any])
        let images = try #require(json["images_loaded"] as? Int)
        #expect(images >= 1)
        #expect(json["files_opened"] as? Int == images, "\(json)")
    }

    @Test("a plugin folder made writable by its group after its plugin was cached: the next start refuses the plugin, naming the folder; fixed, it registers again unopened")
    func folderChangedAfterCaching() throws {
        let home = try PluginHome("entryperms")
        defer { home.remove() }
        let extra = try home.folder("extra")
        try FixtureBuilder.buildProbe(output: extra + "/libprobe.so")
        let config = try home.config(directories: [extra])
        #expect(try home.plugins(config: config).json.loadedNames.contains("probe"))
        #expect(try home.plugins(config: config).json["files_opened"] as? Int == 0)

        // The folder's mode is not the file's: the cached verdict still matches the file.
        chmod(extra, 0o775)
        let refused = try home.plugins(config: config).json
        #expect(!refused.loadedNames.contains("probe"), "\(refused)")
        let refusal = try #require(refused.refusedByFile["libprobe.so"])
        #expect(refusal.kind == "insecure_permissions")
        #expect(refusal.reason.hasPrefix("its folder \(extra) is writable by its group (mode 775)"), "\(refusal.reason)")

        chmod(extra, 0o755)
        let fixed = try home.plugins(config: config).json
        #expect(fixed.loadedNames.contains("probe"), "\(fixed)")
        #expect(fixed["vetting_processes"] as? Int == 0)
        #expect(fixed["files_opened"] as? Int == 0, "\(fixed)")
    }
}
