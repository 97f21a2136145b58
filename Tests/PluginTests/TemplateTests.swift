import Foundation
import TestSupport
import Testing

/// The generated package is built, checked and run against the installed SDK in
/// InstallTests; here, what `plugin new` refuses and which macro plugin it hands the package.
@Suite("coordsh plugin new: what it refuses, what it generates")
struct TemplateTests {
    @Test("a bad name, a bundled plugin's name or an occupied folder is one line and exit 2")
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
        let bundled = try home.coordsh(["plugin", "new", "content", "--path", home.path + "/c"])
        #expect(bundled.status == 2)
        #expect(bundled.stderr == "coordsh: error: plugin name 'content' is taken by the plugin in \(BuildProducts.plugin("Content")), which this coordsh loads; a second 'content' would be refused beside it\n")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/c"))
        // An SDK folder with no CoordShop beside it.
        try FileManager.default.createDirectory(atPath: home.path + "/sdk", withIntermediateDirectories: true)
        try "// swift-tools-version:6.0\n".write(toFile: home.path + "/sdk/Package.swift", atomically: true, encoding: .utf8)
        let noShop = try home.coordsh(["plugin", "new", "shelf", "--shop", "--sdk", home.path + "/sdk", "--path", home.path + "/s"])
        #expect(noShop.status == 2)
        #expect(noShop.stderr.hasPrefix("coordsh: error: no CoordShop package at \(home.path)/shop"), "\(noShop.stderr)")
    }

    @Test("the macros' plugin: the build's own by default (no swift-syntax to compile), from source with --no-prebuilt")
    func macroPlugin() throws {
        let home = try PluginHome("templatemacros")
        defer { home.remove() }
        let prebuilt = try home.coordsh(["plugin", "new", "shelf", "--path", home.path + "/p"])
        #expect(prebuilt.status == 0, "\(prebuilt.stderr)")
        #expect(prebuilt.stdout.contains("CoordMacroPlugin-tool (prebuilt)"), "\(prebuilt.stdout)")
        let manifest = try String(contentsOfFile: home.path + "/p/Package.swift", encoding: .utf8)
        #expect(manifest.contains("-load-plugin-executable") && !manifest.contains("CoordMacroBuild\", package: \"SDK\"),"), "\(manifest)")
        #expect(FileManager.default.isExecutableFile(atPath: BuildProducts.directory + "/CoordMacroPlugin-tool"))
        let source = try home.coordsh(["plugin", "new", "shelf", "--no-prebuilt", "--path", home.path + "/s"])
        #expect(source.status == 0 && source.stdout.contains("built from swift-syntax"), "\(source.stdout)")
        let fromSource = try String(contentsOfFile: home.path + "/s/Package.swift", encoding: .utf8)
        #expect(fromSource.contains(".product(name: \"CoordMacroBuild\", package: \"SDK\")") && !fromSource.contains("unsafeFlags"), "\(fromSource)")
    }
}
