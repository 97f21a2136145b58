import Foundation
import TestSupport
import Testing

/// The SDK's promise to plugin authors (PLUGIN-GUIDE.md, "Which SDK a plugin needs"): a plugin
/// written against an earlier SDK still compiles, one built against an earlier release of the
/// same major still loads, one built against a newer release is refused, and a change that
/// breaks a stored release without a new major does not pass `scripts/sdk-api check`.
@Suite("Plugins built against earlier SDK releases")
struct SDKCompatibilityTests {
    static let old = FixtureBuilder.sources + "/sdk-0.5"
    static let releases = BuildProducts.packageRoot + "/Sources/SDK/Releases"
    static let shopReleases = BuildProducts.packageRoot + "/Sources/Shop/Releases"

    /// The stored releases of a library, oldest first, as (version, folder).
    static func stored(_ name: String, in folder: String) throws -> [(version: [Int], path: String)] {
        try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix(name + "-") }
            .map { (version: $0.dropFirst(name.count + 1).split(separator: ".").compactMap { Int($0) }, path: folder + "/" + $0) }
            .sorted { $0.version.lexicographicallyPrecedes($1.version) }
    }

    @Test("a plugin as the template wrote it for SDK 0.5.0 builds against today's SDK unchanged and runs; a 0.5.0 shop plugin builds with the one line the move asks for")
    func oldSourcesBuild() throws {
        let home = try PluginHome("old-source")
        defer { home.remove() }
        let plugins = try home.folder("plugins")
        try FixtureBuilder.buildSwiftPlugin(Self.old + "/Weather.swift", module: "Weather", output: plugins + "/libweather.so")
        try FixtureBuilder.buildSwiftPlugin(
            Self.old + "/Favourites.swift", module: "Favourites", output: plugins + "/libfavourites.so", defines: ["SHOP"], libraries: ["CoordShop"])
        let shell = try home.coordsh(["--plugin-dir", plugins, "-c", "weather show 2", "-c", "open favourites/list"])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == "── Item 2 ──\nThis is item 2. 'back' returns to the list.\n── Favourites of nobody ──\nnone yet\n", "\(shell.stdout)")
    }

    @Test("a 0.5.0 plugin that uses the shop's keys without CoordShop is told, at each, to import CoordShop")
    func movedKeysNameTheirLibrary() throws {
        let folder = try makeTemporaryDirectory("moved")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        do {
            try FixtureBuilder.buildSwiftPlugin(Self.old + "/Favourites.swift", module: "Favourites", output: folder + "/lib.so")
            Issue.record("a plugin that names Services.user without CoordShop compiled")
        } catch {
            let text = "\(error)"
            #expect(text.contains("error: 'Product' is unavailable: moved to CoordShop in SDK 0.6.0: depend on the CoordShop product and 'import CoordShop'"), "\(text)")
            #expect(text.contains("error: 'user' is unavailable: moved to CoordShop in SDK 0.6.0"), "\(text)")
            #expect(!text.contains("cannot find type 'Product'") && !text.contains("has no member 'user'"), "\(text)")
        }
    }

    @Test("a plugin built against the oldest stored release of this major loads in today's coordsh and works; plugin check says both versions")
    func oldReleaseLoads() throws {
        let sdk = try #require(try Self.stored("CoordSDK", in: Self.releases).first { $0.version.first == Self.currentMajor })
        let shop = try #require(try Self.stored("CoordShop", in: Self.shopReleases).last)
        let home = try PluginHome("old-release")
        defer { home.remove() }
        let plugins = try home.folder("plugins")
        try FixtureBuilder.buildSwiftPlugin(Self.old + "/Weather.swift", module: "Weather", output: plugins + "/libweather.so", releases: [sdk.path])
        try FixtureBuilder.buildSwiftPlugin(
            Self.old + "/Favourites.swift", module: "Favourites", output: plugins + "/libfavourites.so", defines: ["SHOP"], libraries: ["CoordShop"],
            releases: [sdk.path, shop.path])
        let shell = try home.coordsh(["--plugin-dir", plugins, "-c", "weather show 2", "-c", "back", "-c", "open favourites/list"])
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(shell.stdout == "── Item 2 ──\nThis is item 2. 'back' returns to the list.\n── Weather ──\nItems 1, 2 and 3. Open one with 'weather show ID'.\n── Favourites of nobody ──\nnone yet\n", "\(shell.stdout)")
        let check = try home.coordsh(["plugin", "check", plugins + "/libweather.so"])
        let release = sdk.version.map(String.init).joined(separator: ".")
        #expect(check.status == 0 && check.stdout.contains("built against CoordSDK \(release), loaded with \(Self.current)"), "\(check.stdout)")
    }

    @Test("a plugin built against a newer minor release than this coordsh's is refused, naming both versions")
    func newerReleaseRefused() throws {
        let newest = try #require(try Self.stored("CoordSDK", in: Self.releases).last)
        let home = try PluginHome("newer-release")
        defer { home.remove() }
        let future = try home.folder("CoordSDK-future")
        let parts = Self.current.split(separator: ".").compactMap { Int($0) }
        let newer = "\(parts[0]).\(parts[1] + 1).0"
        // The newest release's interface as the next minor would report itself.
        let interface = try String(contentsOfFile: newest.path + "/CoordSDK.swiftinterface", encoding: .utf8)
        let old = "get { \"\(newest.version.map(String.init).joined(separator: "."))\" }"
        #expect(interface.contains(old))
        try interface.replacingOccurrences(of: old, with: "get { \"\(newer)\" }").write(toFile: future + "/CoordSDK.swiftinterface", atomically: true, encoding: .utf8)
        try FileManager.default.copyItem(atPath: newest.path + "/include", toPath: future + "/include")
        let plugins = try home.folder("plugins")
        try FixtureBuilder.buildSwiftPlugin(Self.old + "/Weather.swift", module: "Weather", output: plugins + "/libweather.so", releases: [future])
        let shell = try home.coordsh(["--plugin-dir", plugins, "-c", "weather show 2"])
        #expect(shell.status != 0)
        #expect(shell.stderr.contains(
            "refused plugin \(plugins)/libweather.so: SDK version mismatch — plugin was built against CoordSDK \(newer), newer than this coordsh's \(Self.current); update coordsh to CoordSDK \(newer) or later, or rebuild the plugin against \(Self.current)"),
            "\(shell.stderr)")
    }

    /// This build's SDK version, from its interface (what `compiledAgainst` reports).
    static var current: String {
        let text = (try? String(contentsOfFile: BuildProducts.directory + "/Modules/CoordSDK.swiftinterface", encoding: .utf8)) ?? ""
        guard let range = text.range(of: #"compiledAgainst: Swift\.String \{\s*get \{ "([0-9.]+)" \}"#, options: .regularExpression) else { return "?" }
        return String(text[range].split(separator: "\"")[1])
    }
    static var currentMajor: Int { Int(current.split(separator: ".").first ?? "") ?? -1 }

    /// Runs `scripts/sdk-api check` on a copy of this build's interfaces, edited by `edit`.
    static func apiCheck(_ edit: (inout String) -> Void = { _ in }) throws -> RunResult {
        let modules = try makeTemporaryDirectory("api-modules")
        defer { try? FileManager.default.removeItem(atPath: modules) }
        for name in ["CoordSDK", "CoordShop"] {
            var text = try String(contentsOfFile: BuildProducts.directory + "/Modules/\(name).swiftinterface", encoding: .utf8)
            if name == "CoordSDK" { edit(&text) }
            try text.write(toFile: modules + "/\(name).swiftinterface", atomically: true, encoding: .utf8)
        }
        return try run(
            BuildProducts.packageRoot + "/scripts/sdk-api", ["check", "--modules", modules],
            environment: ProcessInfo.processInfo.environment, mergeOutput: true)
    }

    @Test("scripts/sdk-api check passes the tree, and fails a removed API, a changed released interface, and an older version; a new minor may add, a new major may break")
    func breakageIsCaught() throws {
        let tree = try Self.apiCheck()
        #expect(tree.status == 0, "\(tree.stdout)")
        #expect(tree.stdout.contains("sdk-api: CoordSDK \(Self.current): keeps "), "\(tree.stdout)")

        let removal = "  @_Concurrency.MainActor public func removeHandler(_ name: CoordSDK.MessageName)\n"
        let removed = try Self.apiCheck { $0 = $0.replacingOccurrences(of: removal, with: "") }
        #expect(removed.status == 1 && removed.stdout.contains("API breakage: func Responder.removeHandler(_:) has been removed"), "\(removed.stdout)")

        let addition = "  @_Concurrency.MainActor public func removeAllHandlers()\n"
        let added = try Self.apiCheck { $0 = $0.replacingOccurrences(of: removal, with: removal + addition) }
        #expect(added.status == 1 && added.stdout.contains("CoordSDK \(Self.current) is released, and the interface has changed since"), "\(added.stdout)")

        let parts = Self.current.split(separator: ".").compactMap { Int($0) }
        func version(_ text: inout String, _ new: String) { text = text.replacingOccurrences(of: "get { \"\(Self.current)\" }", with: "get { \"\(new)\" }") }
        let minor = try Self.apiCheck { version(&$0, "\(parts[0]).\(parts[1] + 1).0"); $0 = $0.replacingOccurrences(of: removal, with: removal + addition) }
        #expect(minor.status == 0, "an addition in a new minor: \(minor.stdout)")
        let brokenMinor = try Self.apiCheck { version(&$0, "\(parts[0]).\(parts[1] + 1).0"); $0 = $0.replacingOccurrences(of: removal, with: "") }
        #expect(brokenMinor.status == 1 && brokenMinor.stdout.contains("has been removed"), "a removal in a new minor: \(brokenMinor.stdout)")
        let major = try Self.apiCheck { version(&$0, "\(parts[0] + 1).0.0"); $0 = $0.replacingOccurrences(of: removal, with: "") }
        #expect(major.status == 0 && major.stdout.contains("no stored release in its series"), "a removal in a new major: \(major.stdout)")
        let older = try Self.apiCheck { version(&$0, "\(parts[0]).0.0") }
        #expect(parts[1] == 0 || (older.status == 1 && older.stdout.contains("is older than its stored release")), "\(older.stdout)")
    }
}
