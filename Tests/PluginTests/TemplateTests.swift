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
        // An SDK folder without its contract kit (the package the template's test depends on).
        try FileManager.default.createDirectory(atPath: home.path + "/sdk/ContractKit", withIntermediateDirectories: true)
        try "// swift-tools-version:6.0\n".write(toFile: home.path + "/sdk/Package.swift", atomically: true, encoding: .utf8)
        let noKit = try home.coordsh(["plugin", "new", "shelf", "--sdk", home.path + "/sdk", "--path", home.path + "/k"])
        #expect(noKit.status == 2)
        #expect(noKit.stderr.hasPrefix("coordsh: error: no contract kit at \(home.path)/sdk/ContractKit"), "\(noKit.stderr)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/k"))
        // An SDK folder with no CoordShop beside it.
        try "// swift-tools-version:6.0\n".write(toFile: home.path + "/sdk/ContractKit/Package.swift", atomically: true, encoding: .utf8)
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

    @Test("plugin new --lang c and --lang rust: a package that builds with make or cargo against this SDK as generated, passes plugin check and runs", .enabled(if: FixtureBuilder.cargo != nil, "cargo is not installed"))
    func foreignLanguages() throws {
        let home = try PluginHome("templatelang")
        defer { home.remove() }
        let c = try home.coordsh(["plugin", "new", "wave", "--lang", "c", "--path", home.path + "/wave"])
        #expect(c.status == 0 && c.stdout.contains("build it with: cd \(home.path)/wave && make"), "\(c.stdout)\(c.stderr)")
        let make = try run("/usr/bin/make", ["-s", "-C", home.path + "/wave"], environment: ProcessInfo.processInfo.environment, mergeOutput: true)
        #expect(make.status == 0, "\(make.stdout)")
        let rust = try home.coordsh(["plugin", "new", "tide", "--lang", "rust", "--path", home.path + "/tide"])
        #expect(rust.status == 0, "\(rust.stdout)\(rust.stderr)")
        let cargo = try FixtureBuilder.cargoBuild(manifest: home.path + "/tide/Cargo.toml", target: home.path + "/tide/target")
        #expect(cargo.status == 0, "\(cargo.stdout)")
        try FileManager.default.createDirectory(atPath: home.path + "/plugins", withIntermediateDirectories: true)
        for (built, name) in [(home.path + "/wave/libwave.so", "libwave.so"), (home.path + "/tide/target/debug/libtide.so", "libtide.so")] {
            let check = try home.coordsh(["plugin", "check", built])
            #expect(check.status == 0 && check.stdout.hasSuffix("18 passed, 0 failed\n"), "\(name): \(check.stdout)")
            try FileManager.default.copyItem(atPath: built, toPath: home.path + "/plugins/" + name)
        }
        let shell = try home.coordsh(["--plugin-dir", home.path + "/plugins", "-c", "wave show 3", "-c", "tide show 4"])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == "── Item 3 ──\nnote: item 4\n", "\(shell.stdout)")
        let bad = try home.coordsh(["plugin", "new", "reef", "--lang", "go", "--path", home.path + "/reef"])
        #expect(bad.status == 2 && bad.stderr == "coordsh: error: --lang go: coordsh makes plugins in swift, c or rust\n", "\(bad.stderr)")
    }
}
