import Foundation
import TestSupport
import Testing

/// A folder's plugins are taken in the order of their file names, whatever order the folder
/// lists them in: which of two files of one plugin is loaded, and which refused as its
/// duplicate, is the same at every start — vetted fresh or registered from the cache.
@Suite("Load order: a folder's plugins by file name")
struct LoadOrderTests {
    @Test("four copies of one plugin, written out of order: the first by name is loaded and the others refused in name order, at the first start and the next; a new fifth copy first by name wins over the cached one")
    func firstByNameWins() throws {
        let home = try PluginHome("loadorder")
        defer { home.remove() }
        let folder = try home.folder("plugins")
        // Written in an order that is neither the names' nor its reverse.
        for name in ["libmu.so", "libalpha.so", "libzeta.so", "libgamma.so"] {
            try FileManager.default.copyItem(atPath: BuildProducts.plugin("Content"), toPath: folder + "/" + name)
        }
        let config = home.path + "/order.toml"
        try "[plugins]\ndirs = [\"\(folder)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        for start in ["vetted", "from the cache"] {
            let result = try home.coordsh(["--config", config, "-c", "plugins"])
            #expect(result.status == 0, "\(start): \(result.stderr)")
            let lines = result.stdout.split(separator: "\n").map(String.init)
            #expect(lines.first { $0.hasPrefix("content ") }?.contains("\(folder)/libalpha.so") == true, "\(start): \(result.stdout)")
            let refused = lines.filter { $0.hasPrefix("refused ") }
            #expect(refused == ["libgamma.so", "libmu.so", "libzeta.so"].map {
                "refused \(folder)/\($0): duplicate plugin name 'content': already loaded from \(folder)/libalpha.so"
            }, "\(start): \(result.stdout)")
        }

        // A fifth copy, first by name and new, beside four the cache knows: it is vetted and
        // loaded, and the copy registered from the cache until now is refused after it.
        try FileManager.default.copyItem(atPath: BuildProducts.plugin("Content"), toPath: folder + "/libaaa.so")
        let mixed = try home.coordsh(["--config", config, "-c", "plugins"])
        #expect(mixed.status == 0, "\(mixed.stderr)")
        let lines = mixed.stdout.split(separator: "\n").map(String.init)
        #expect(lines.first { $0.hasPrefix("content ") }?.contains("\(folder)/libaaa.so") == true, "\(mixed.stdout)")
        #expect(lines.filter { $0.hasPrefix("refused ") } == ["libalpha.so", "libgamma.so", "libmu.so", "libzeta.so"].map {
            "refused \(folder)/\($0): duplicate plugin name 'content': already loaded from \(folder)/libaaa.so"
        }, "\(mixed.stdout)")
    }
}
