import Foundation
import TestSupport
import Testing

/// `./install` as a user runs it: into a prefix, then the installed coordsh from another
/// folder with no config anywhere, a plugin generated and checked against the installed SDK,
/// and `--uninstall` leaving nothing. The products are the ones this test run built
/// (`--products`), so the suite stays one build.
@Suite("./install: coordsh on PATH from any folder, plugins built against the installed SDK, removed exactly")
struct InstallTests {
    static let script = BuildProducts.packageRoot + "/install"

    @Test("install into a temporary prefix, shop from /, plugin new → build → check → swift test against the installed SDK, uninstall leaves nothing")
    func installUseUninstall() throws {
        let home = try PluginHome("install")
        defer { home.remove() }
        let prefix = home.path + "/prefix"
        let install = try run(Self.script, ["--products", BuildProducts.directory, prefix], environment: home.environment)
        #expect(install.status == 0, "\(install.stderr)")
        #expect(install.stdout.hasPrefix("installed coordsh in \(prefix): "))
        let coordsh = prefix + "/bin/coordsh"
        let library = prefix + "/lib/coordsh"

        // From /, with nothing but HOME: the installed config, plugins and library are found
        // through the executable's own location ($ORIGIN), no LD_LIBRARY_PATH.
        let shop = try run(
            coordsh, ["--keep-going", "-c", "open content/catalog", "-c", "content show 9", "-c", "cart add", "-c", "cart offer WELCOME10", "-c", "plugins", "-c", "config"],
            environment: home.environment, directory: "/")
        #expect(shop.status == 0, "\(shop.stderr)\n\(shop.stdout)")
        #expect(shop.stdout.contains("── Catalog (60 products) ──"))
        #expect(shop.stdout.contains("offer WELCOME10 −4.50 EUR"))
        for name in ["Content", "Account", "Cart", "Payment"] {
            #expect(shop.stdout.contains("\(library)/lib\(name)Plugin.so"))
        }
        #expect(shop.stdout.contains("config file: \(prefix)/share/coordsh/coordsh.toml (installed beside the executable)"))
        #expect(shop.stdout.contains("  plugin folders     \(library), "))
        // The plugin folder is found from where the loader mapped the SDK library, every time
        // (a partial read of /proc/self/maps once lost it about every other start).
        for _ in 0..<8 {
            let plugins = try run(coordsh, ["-c", "plugins"], environment: home.environment, directory: "/")
            // Loaded, or registered from the cache and loaded on first use: listed either way.
            let listed = plugins.stdout.split(separator: "\n").filter {
                ($0.hasSuffix("Plugin.so") || $0.hasSuffix("Plugin.so  registered, loaded on first use")) && $0.contains(library)
            }
            #expect(listed.count == 4, "\(plugins.stdout)")
        }

        // The supervised shell's app process is the coordsh-server installed beside it.
        let supervised = try run(coordsh, ["--supervised", "-c", "cart add 3"], environment: home.environment, directory: "/")
        #expect(supervised.status == 0 && supervised.stdout.contains("#3   Leather Boots"), "\(supervised.stderr)\n\(supervised.stdout)")

        // A new plugin from the installed binary builds against the installed SDK.
        let package = home.path + "/weather"
        let created = try run(coordsh, ["plugin", "new", "weather", "--path", package], environment: home.environment, directory: home.path)
        #expect(created.status == 0, "\(created.stderr)")
        #expect(created.stdout.contains("built against the SDK in \(prefix)/share/coordsh/sdk"))
        #expect(created.stdout.contains("Sources/WeatherPlugin/WeatherCoordinator.swift"))
        let manifest = try String(contentsOfFile: package + "/Package.swift", encoding: .utf8)
        #expect(manifest.contains(".package(path: \"\(prefix)/share/coordsh/sdk\")"))
        // The macros' plugin is the installed one: the first build compiles no swift-syntax.
        #expect(created.stdout.contains("the macros' plugin: \(prefix)/libexec/coordsh/CoordMacroPlugin-tool (prebuilt)"), "\(created.stdout)")
        #expect(manifest.contains("\"-load-plugin-executable\", \"\(prefix)/libexec/coordsh/CoordMacroPlugin-tool#CoordMacroPlugin\""))
        let taken = try run(coordsh, ["plugin", "new", "cart", "--path", home.path + "/cart"], environment: home.environment)
        #expect(taken.status == 2)
        #expect(taken.stderr == "coordsh: error: plugin name 'cart' is taken by the plugin in \(library)/libCartPlugin.so, which this coordsh loads; a second 'cart' would be refused beside it\n")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/cart"))

        let swift = try #require(
            (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swift" }
                .first { FileManager.default.isExecutableFile(atPath: $0) })
        var environment = ProcessInfo.processInfo.environment.merging(home.environment) { _, new in new }
        // SwiftPM's lock files go to the temporary folder, named for the package's path: in
        // HOME, they go with it.
        environment["TMPDIR"] = try home.folder("tmp")
        // With the prebuilt macro plugin: the SDK and the plugin, no swift-syntax (seconds).
        let build = try run(swift, ["build", "--package-path", package], environment: environment, mergeOutput: true, timeout: 900)
        #expect(build.status == 0, "\(build.stdout)")
        #expect(!build.stdout.contains("Compiling SwiftSyntax"), "\(build.stdout)")
        let plugin = package + "/.build/debug/libWeatherPlugin.so"

        let check = try run(coordsh, ["plugin", "check", "--alone", plugin], environment: home.environment)
        #expect(check.status == 0, "\(check.stdout)")
        #expect(check.stdout.hasSuffix("18 passed, 0 failed\n"))

        let shell = try run(
            coordsh, ["--plugin-dir", package + "/.build/debug", "-c", "weather show 2", "-c", "back", "-c", "help weather"],
            environment: home.environment)
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout.contains("Item 2"))
        #expect(shell.stdout.contains("Items 1, 2 and 3"))
        #expect(shell.stdout.contains("weather show ID"))

        let test = try run(swift, ["test", "--package-path", package], environment: environment, mergeOutput: true, timeout: 900)
        #expect(test.status == 0, "\(test.stdout)")
        #expect(test.stdout.contains("meetsThePluginContract"))

        // A plugin of the shop: CoordShop from beside the installed SDK, in the plugin and its
        // test, builds, checks and passes its own test as generated.
        let shelf = home.path + "/shelf"
        let shopCreated = try run(coordsh, ["plugin", "new", "shelf", "--shop", "--path", shelf], environment: home.environment, directory: home.path)
        #expect(shopCreated.status == 0, "\(shopCreated.stderr)")
        #expect(shopCreated.stdout.contains("and CoordShop in \(prefix)/share/coordsh/shop"))
        let shopBuild = try run(swift, ["build", "--package-path", shelf], environment: environment, mergeOutput: true, timeout: 900)
        #expect(shopBuild.status == 0, "\(shopBuild.stdout)")
        let shopCheck = try run(coordsh, ["plugin", "check", shelf + "/.build/debug/libShelfPlugin.so"], environment: home.environment)
        #expect(shopCheck.status == 0 && shopCheck.stdout.hasSuffix("18 passed, 0 failed\n"), "\(shopCheck.stdout)")
        let shopTest = try run(swift, ["test", "--package-path", shelf], environment: environment, mergeOutput: true, timeout: 900)
        #expect(shopTest.status == 0 && shopTest.stdout.contains("meetsThePluginContract"), "\(shopTest.stdout)")

        // A C plugin from the installed coordsh: its template and the ABI header are the
        // installed SDK's.
        let cPackage = home.path + "/wave"
        let cCreated = try run(coordsh, ["plugin", "new", "wave", "--lang", "c", "--path", cPackage], environment: home.environment)
        #expect(cCreated.status == 0 && cCreated.stdout.contains("built against the SDK in \(prefix)/share/coordsh/sdk"), "\(cCreated.stdout)\(cCreated.stderr)")
        let make = try run("/usr/bin/make", ["-s", "-C", cPackage], environment: environment, mergeOutput: true)
        #expect(make.status == 0, "\(make.stdout)")
        let cCheck = try run(coordsh, ["plugin", "check", cPackage + "/libwave.so"], environment: home.environment)
        #expect(cCheck.status == 0 && cCheck.stdout.hasSuffix("18 passed, 0 failed\n"), "\(cCheck.stdout)")

        // Uninstall removes every file and every folder the install made: the prefix is gone.
        let uninstall = try run(Self.script, ["--uninstall", prefix], environment: home.environment)
        #expect(uninstall.status == 0, "\(uninstall.stderr)")
        #expect(uninstall.stdout == "uninstalled coordsh from \(prefix)\n")
        #expect(!FileManager.default.fileExists(atPath: prefix))
    }

    @Test("a prefix that cannot be written, or an uninstall with no manifest: one line, nothing installed or removed")
    func badPrefixes() throws {
        let home = try PluginHome("installbad")
        defer { home.remove() }
        // A prefix below a plain file can never be created, even by root.
        let file = home.path + "/file"
        try "not a folder\n".write(toFile: file, atomically: true, encoding: .utf8)
        let blocked = try run(Self.script, ["--products", BuildProducts.directory, file + "/prefix"], environment: home.environment)
        #expect(blocked.status == 1)
        #expect(blocked.stderr == "install: cannot create \(file)/prefix: \(file) is not a folder; nothing installed\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: home.path) == ["file"])

        // A half-usable prefix: bin can be made, lib cannot (a file is in the way).
        let partial = home.path + "/partial"
        try FileManager.default.createDirectory(atPath: partial, withIntermediateDirectories: false)
        try "in the way\n".write(toFile: partial + "/lib", atomically: true, encoding: .utf8)
        let half = try run(Self.script, ["--products", BuildProducts.directory, partial], environment: home.environment)
        #expect(half.status == 1)
        #expect(half.stderr == "install: cannot create \(partial)/lib/coordsh: \(partial)/lib is not a folder; nothing installed\n")
        // bin, made before lib was found blocked, is gone again.
        #expect(try FileManager.default.contentsOfDirectory(atPath: partial) == ["lib"])

        let mine = try home.folder("mine")
        try "keep me\n".write(toFile: mine + "/notes.txt", atomically: true, encoding: .utf8)
        let none = try run(Self.script, ["--uninstall", mine], environment: home.environment)
        #expect(none.status == 1)
        #expect(none.stderr == "install: no coordsh install in \(mine) (no share/coordsh/install-manifest there); nothing removed\n")
        #expect(try FileManager.default.contentsOfDirectory(atPath: mine) == ["notes.txt"])
    }
}
