import CoordData
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// `coordsh plugin new NAME`: a plugin package outside this tree that builds with one
/// command and passes `coordsh plugin check` unchanged — a coordinator, a Page enum with two
/// pages and a message enum with one message (both declared with the SDK's macros), and a
/// test that runs the contract suite.
public enum PluginTemplate {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        public init(description: String) { self.description = description }
    }

    /// The SDK package this binary's plugins must be built against: the one installed beside
    /// it (`PREFIX/share/coordsh/sdk` for `PREFIX/bin/coordsh`), else the `Sources/SDK` of the
    /// checkout it was built from. A plugin built against it loads in this coordsh and every
    /// later one of the same SDK major (PLUGIN-GUIDE.md, "Which SDK a plugin needs"), never in an
    /// older one, so the template depends on the SDK of the coordsh that will load it, by path.
    public static var defaultSDKPath: String {
        let prefix = (Config.executableDirectory() as NSString).deletingLastPathComponent
        let installed = prefix + "/share/coordsh/sdk"
        if FileManager.default.fileExists(atPath: installed + "/Package.swift") { return installed }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("SDK").path
    }

    /// The SDK's macro plugin as this coordsh's build made it, if it is at hand: beside the
    /// binary in a checkout's build folder, or `PREFIX/libexec/coordsh` once installed. A
    /// plugin package handed it (`-load-plugin-executable`) does not compile swift-syntax for
    /// the macros: its first build takes seconds, not minutes. The same toolchain built it,
    /// and the compiler talks to a macro plugin over a versioned protocol.
    public static var prebuiltMacroPlugin: String? {
        let directory = Config.executableDirectory()
        let candidates = [
            directory + "/CoordMacroPlugin-tool",
            (directory as NSString).deletingLastPathComponent + "/libexec/coordsh/CoordMacroPlugin-tool",
        ]
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// The CoordShop package that goes with the SDK at `sdkPath`: beside it, as the install
    /// (`share/coordsh/sdk`, `share/coordsh/shop`) and the checkout (`Sources/SDK`,
    /// `Sources/Shop`) lay them out.
    public static func shopPath(besideSDK sdkPath: String) -> String {
        let parent = (sdkPath as NSString).deletingLastPathComponent
        return parent + ((sdkPath as NSString).lastPathComponent == "SDK" ? "/Shop" : "/shop")
    }

    /// Writes the package into `directory` and returns the files written. `taken` maps the
    /// names and prefixes of the plugins this coordsh loads to their files: a new plugin with
    /// one of them could never load beside it. `shopPath`: a plugin of the shop, which
    /// depends on CoordShop (its model and service keys) in the plugin and its test.
    /// `macroPlugin`: the prebuilt macro plugin the package hands its compiler; nil builds it
    /// from swift-syntax (minutes, once).
    public static func create(
        name: String, in directory: String, sdkPath: String, shopPath: String? = nil, macroPlugin: String? = nil, taken: [String: String] = [:]
    ) throws -> [String] {
        try checkName(name, taken: taken)
        guard FileManager.default.fileExists(atPath: sdkPath + "/Package.swift") else {
            throw Failure(description: "no coordsh SDK package at \(sdkPath); pass --sdk with the Sources/SDK folder of the coordsh checkout that built this binary")
        }
        guard FileManager.default.fileExists(atPath: sdkPath + "/ContractKit/Package.swift") else {
            throw Failure(description: "no contract kit at \(sdkPath)/ContractKit (it is part of the SDK's folder); pass --sdk with the Sources/SDK folder of the coordsh checkout that built this binary")
        }
        if let shopPath, !FileManager.default.fileExists(atPath: shopPath + "/Package.swift") {
            throw Failure(description: "no CoordShop package at \(shopPath) (it is installed beside the SDK); pass --sdk with the SDK folder it sits beside")
        }
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: directory), !existing.isEmpty {
            throw Failure(description: "\(directory) already exists and is not empty")
        }
        let type = name.prefix(1).uppercased() + name.dropFirst()
        let module = "\(type)Plugin"
        let files: [(String, String)] = [
            ("Package.swift", packageManifest(name: name, module: module, sdkPath: sdkPath, shopPath: shopPath, macroPlugin: macroPlugin)),
            ("Sources/\(module)/\(module).swift", pluginSource(name: name, type: type, shop: shopPath != nil)),
            ("Sources/\(module)/\(type)Page.swift", pageSource(name: name, type: type)),
            ("Sources/\(module)/\(type)Message.swift", messageSource(name: name, type: type)),
            ("Sources/\(module)/\(type)Coordinator.swift", coordinatorSource(name: name, type: type)),
            ("Sources/\(module)/\(type)View.swift", viewSource(name: name, type: type)),
            ("Tests/\(module)Tests/ContractTests.swift", testSource(module: module)),
            ("README.md", readme(name: name, module: module)),
            (".gitignore", ".build/\nPackage.resolved\n"),
        ]
        for (path, text) in files {
            let full = (directory as NSString).appendingPathComponent(path)
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        return files.map(\.0)
    }

    /// A plugin in another language than Swift, through the plain C interface (ABI 2): the
    /// SDK's template for it (`Templates/c`, `Templates/rust` in the SDK package) with the
    /// name put in, building against that SDK's header (or its Rust declarations,
    /// `Rust/coordsh-sys`). Returns the files written.
    public static func createForeign(language: String, name: String, in directory: String, sdkPath: String, taken: [String: String] = [:]) throws -> [String] {
        try checkName(name, taken: taken)
        let templates = sdkPath + "/Templates/" + language
        guard FileManager.default.fileExists(atPath: templates) else {
            throw Failure(description: "no \(language) template at \(templates); pass --sdk with the Sources/SDK folder of the coordsh checkout that built this binary")
        }
        if let existing = try? FileManager.default.contentsOfDirectory(atPath: directory), !existing.isEmpty {
            throw Failure(description: "\(directory) already exists and is not empty")
        }
        let files: [(from: String, to: String)] = language == "c"
            ? [("plugin.c", "\(name).c"), ("Makefile", "Makefile")]
            : [("Cargo.toml", "Cargo.toml"), ("src/lib.rs", "src/lib.rs")]
        let typeName = name.prefix(1).uppercased() + name.dropFirst()
        for file in files {
            let text = try String(contentsOfFile: templates + "/" + file.from, encoding: .utf8)
                .replacingOccurrences(of: "__NAME__", with: name).replacingOccurrences(of: "__Name__", with: typeName)
                .replacingOccurrences(of: "__SDK__", with: sdkPath)
            let full = (directory as NSString).appendingPathComponent(file.to)
            try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: full, atomically: true, encoding: .utf8)
        }
        let ignore = language == "c" ? "lib\(name).so\n" : "target/\nCargo.lock\n"
        try ignore.write(toFile: directory + "/.gitignore", atomically: true, encoding: .utf8)
        return files.map(\.to) + [".gitignore"]
    }

    /// A name a new plugin may have: lower-case letters and digits, and none this coordsh
    /// loads already (`taken` maps the names and prefixes of its plugins to their files).
    static func checkName(_ name: String, taken: [String: String]) throws {
        guard let first = name.first, first.isASCII, first.isLowercase,
              name.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber) }), name != "global" else {
            throw Failure(description: "plugin name '\(name)' must be lower-case letters and digits, starting with a letter (it is also the message prefix), and not 'global'")
        }
        if let file = taken[name] {
            throw Failure(description: "plugin name '\(name)' is taken by the plugin in \(file), which this coordsh loads; a second '\(name)' would be refused beside it")
        }
    }

    /// The names and message prefixes of the plugins this coordsh loads (bundled and
    /// installed), from the folders of the configuration in force, each with its file.
    /// Loading goes through the loader, so it is vetted and cached as at start-up.
    @MainActor
    public static func takenNames(configPath: String?) -> [String: String] {
        guard let config = try? ConfigDiscovery.load(option: configPath) else { return [:] }
        let app = AppCoordinator()
        // The host's services, so that plugins which need them register; nothing is opened
        // (the database is never touched: only the registrations are wanted).
        HostServices.provide(
            to: app, environment: HostEnvironment(dataDirectory: config.expandedDataDirectory(), configFile: config.source, settings: config.featureSettings),
            data: SQLiteDataManager(path: config.expandedDatabasePath()), secrets: NoTerminal())
        let loader = PluginLoader(app: app)
        LoaderSetup.configure(loader, config: config)
        loader.loadAll(from: config.expandedPluginDirectories())
        var taken: [String: String] = [:]
        for plugin in loader.loaded {
            taken[plugin.origin.name] = plugin.origin.path
            for name in plugin.features {
                taken[name] = plugin.origin.path
                if let prefix = app.features.feature(named: name)?.definition.prefix { taken[prefix] = plugin.origin.path }
            }
        }
        return taken
    }

    static func packageManifest(name: String, module: String, sdkPath: String, shopPath: String?, macroPlugin: String?) -> String {
        let shopPackage = shopPath.map {
            """

                    // CoordShop, the shop's model and service keys (Product, Money, Services.user …): the
                    // version the host has, beside its SDK. The loader checks it (see the plugin's `libraries`).
                    .package(path: "\($0)"),
            """
        } ?? ""
        let shopProduct = shopPath == nil ? "" : " .product(name: \"CoordShop\", package: \"Shop\"),"
        let macros = macroPlugin.map {
            """
                    // CoordMacros: @Page and @Messages (compile time only; nothing of them is linked). Their
                    // plugin is the one coordsh's build made, handed to the compiler: no swift-syntax to
                    // build. (Without it, depend on .product(name: "CoordMacroBuild", package: "SDK")
                    // instead of the flag: `coordsh plugin new --no-prebuilt` does.)
                    .target(
                        name: "\(module)",
                        dependencies: [.product(name: "CoordSDK", package: "SDK"),\(shopProduct) .product(name: "CoordMacros", package: "SDK")],
                        swiftSettings: [.unsafeFlags(["-load-plugin-executable", "\($0)#CoordMacroPlugin"])]),
            """
        } ?? """
                    // CoordMacros: @Page and @Messages (compile time only; nothing of them is linked);
                    // CoordMacroBuild builds their plugin from swift-syntax (minutes, the first time).
                    .target(name: "\(module)", dependencies: [
                        .product(name: "CoordSDK", package: "SDK"),\(shopProduct) .product(name: "CoordMacros", package: "SDK"),
                        .product(name: "CoordMacroBuild", package: "SDK"),
                    ]),
            """
        return """
        // swift-tools-version:6.0
        // A coordsh feature plugin. `swift build` makes .build/debug/lib\(module).so; drop it into a
        // plugin folder (or run `coordsh plugin check` on it).
        import PackageDescription

        let package = Package(
            name: "\(name)",
            products: [
                // A dynamic library: coordsh loads it with dlopen.
                .library(name: "\(module)", type: .dynamic, targets: ["\(module)"]),
            ],
            dependencies: [
                // The SDK of the coordsh build that will load this plugin: the plugin then loads in
                // it and every later coordsh of the same SDK major, built with the same compiler.
                .package(path: "\(sdkPath)"),\(shopPackage)
                // The contract suite the test runs (CoordContract), in the SDK's folder: its own
                // package, so that the test links the one libCoordSDK.so the plugin does.
                .package(path: "\(sdkPath)/ContractKit"),
            ],
            targets: [
        \(macros)
                // The test loads the built .so like the shell does, so it does not depend on the
                // plugin target (that would link a second copy of it into the test). It names the
                // shared products (CoordSDK\(shopPath == nil ? "" : ", CoordShop")) so that it links the one copy of each the plugin uses.
                .testTarget(name: "\(module)Tests", dependencies: [
                    .product(name: "CoordSDK", package: "SDK"),\(shopProduct) .product(name: "CoordContract", package: "ContractKit"),
                ]),
            ]
        )

        """
    }

    static func pluginSource(name: String, type: String, shop: Bool) -> String {
        let imports = shop ? "import CoordSDK\nimport CoordShop" : "import CoordSDK"
        let libraries = shop
            ? """

                  /// Built against the shop's model: the loader checks the host's CoordShop version
                  /// before `register`, and refuses this plugin in one line if it differs.
                  var libraries: [LibraryRequirement] { [CoordShopVersion.requirement] }

              """
            : ""
        return """
        \(imports)

        /// What the host gets from the entry below: it registers the feature — its name, its pages,
        /// its messages (and with them its message prefix) and how to make its coordinator.
        final class \(type)Plugin: CoordPlugin {\(libraries)
            @MainActor func register(with registrar: any PluginRegistrar) throws {
                try registrar.register(FeatureDefinition(
                    name: "\(name)", summary: "the \(name) feature",
                    pages: \(type)Page.self, messages: \(type)Message.self,
                    coordinator: { \(type)Coordinator() }))
            }
        }

        /// The one C symbol the host looks up. It fills the descriptor (magic, ABI, SDK and compiler
        /// versions, name, version) and hands over the plugin object.
        @_cdecl("coordsh_plugin_entry")
        public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
            PluginEntry.fill(descriptor, name: "\(name)", version: "0.1.0") { \(type)Plugin() }
        }

        """
    }

    static func pageSource(name: String, type: String) -> String {
        """
        import CoordMacros
        import CoordSDK

        /// The screens of the feature, one case each. The shell opens them by route:
        /// `\(name)/home`, `\(name)/item id=3`. @Page makes the route names, the typed parameters
        /// (from the associated values) and the summaries (from these comments).
        @Page(feature: "\(name)")
        enum \(type)Page: Page {
            /// the list of items
            case home
            /// one item
            /// - Parameter id: item number
            case item(id: Int)
        }

        """
    }

    static func messageSource(name: String, type: String) -> String {
        """
        import CoordMacros
        import CoordSDK

        /// What the feature does when asked, one case per message: `\(name) show 3` at the prompt
        /// is `\(name)Show(id: 3)` on the chain. @Messages makes the declarations the shell parses
        /// and completes against, and the coordinator switches over the cases.
        @Messages(prefix: "\(name)")
        enum \(type)Message: FeatureMessage {
            /// show one item
            /// - Parameter id: item number
            case show(id: Int)
        }

        """
    }

    static func coordinatorSource(name: String, type: String) -> String {
        """
        import CoordSDK

        /// Owns the feature's flow. `\(name) show 3`, typed anywhere, travels up the chain to the root,
        /// which routes the `\(name)` prefix here. Coordinators, views and services live on the main
        /// actor: the tree and every message on it are one thread's, so a handler never races another.
        final class \(type)Coordinator: Coordinator {
            init() {
                super.init(identifier: \(type)Page.feature)
                // One switch over the messages: a case not handled does not compile. The arguments
                // arrive typed and checked against the declaration. [unowned self]: the handler
                // must not keep its coordinator alive after stop.
                handle(\(type)Message.self) { [unowned self] message, _ in
                    switch message {
                    case .show(let id):
                        try show(\(type)Page.item(id: id))
                    }
                    return .handled
                }
            }

            /// The list is the bottom page, so that `back` from an item returns to it.
            override func start() {
                super.start()
                _ = try? root(\(type)Page.home)
            }

            override func makeView(for page: any Page) throws -> PageView {
                \(type)View(page: page)
            }
        }

        """
    }

    static func viewSource(name: String, type: String) -> String {
        """
        import CoordSDK

        /// Renders a page as text. It never navigates: to go somewhere it sends a message.
        final class \(type)View: PageView {
            override func render() -> Rendering {
                switch page as? \(type)Page {
                case .item(let id):
                    Rendering(title: "Item \\(id)", lines: ["This is item \\(id). 'back' returns to the list."], fields: ["id": "\\(id)"])
                default:
                    Rendering(title: "\(type)", lines: ["Items 1, 2 and 3. Open one with '\(name) show ID'."])
                }
            }
        }

        """
    }

    static func testSource(module: String) -> String {
        """
        import CoordContract
        import Foundation
        import Testing

        /// The coordsh plugin contract, run against the .so that `swift test` built. (In process: a
        /// crash ends the run. `coordsh plugin check` runs the same suite in a child process.)
        @Test @MainActor func meetsThePluginContract() throws {
            let results = ContractSuite(pluginAt: try builtPlugin()).runAll()
            for result in results where !result.passed { Issue.record("\\(result)") }
            #expect(results.count == ContractSuite.checks.count)
        }

        /// The build folder holds the test bundle and lib\(module).so side by side.
        func builtPlugin() throws -> String {
            let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
            var folder = URL(fileURLWithPath: exe).deletingLastPathComponent()
            while folder.path != "/" {
                let candidate = folder.appendingPathComponent("lib\(module).so").path
                if FileManager.default.fileExists(atPath: candidate) { return candidate }
                folder.deleteLastPathComponent()
            }
            throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "lib\(module).so"])
        }

        """
    }

    static func readme(name: String, module: String) -> String {
        """
        # \(name) — a coordsh plugin

            swift build                                        # makes .build/debug/lib\(module).so
            coordsh plugin check .build/debug/lib\(module).so  # the contract suite, crash-isolated
            swift test                                         # the same suite from this package
            coordsh --plugin-dir .build/debug -c '\(name) show 2'

        Or copy the .so into `~/.local/share/coordsh/plugins/` (mode 644, your own folder): a running
        shell picks it up. Build it with the same Swift compiler and the same coordsh SDK as the shell
        that loads it. The coordsh README's plugin author's guide says the rest.

        """
    }
}
