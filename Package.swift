// swift-tools-version:6.0
// coordsh: a command shell whose features are plugins, loaded with dlopen and called
// through libffi. See README.md and ../shared/DESIGN.md.
import PackageDescription

let sdk = Target.Dependency.product(name: "CoordSDK", package: "SDK")
/// The shop's shared model and service keys, for the four bundled plugins (the host knows no shop
/// type: a scene's visitor and login cross through the SDK's `SceneVisitor` and `SceneLogins`).
/// Its own package (Sources/Shop), so that its image links libCoordSDK.so rather than a copy.
let shop = Target.Dependency.product(name: "CoordShop", package: "Shop")

/// One feature plugin: a dynamic library that depends on nothing the host also contains
/// except the shared SDK image. Its pages and messages are declared with the SDK's macros
/// (compile time only: nothing of them is linked); CoordMacroBuild builds their plugin here
/// (and it is the prebuilt one `coordsh plugin new` hands to outside plugins).
func plugin(_ name: String, resources: [Resource]? = nil) -> Target {
    .target(
        name: "\(name)Plugin",
        dependencies: [sdk, shop, .product(name: "CoordMacros", package: "SDK"), .product(name: "CoordMacroBuild", package: "SDK")],
        path: "Plugins/\(name)", resources: resources)
}

let package = Package(
    name: "coordsh",
    products: [
        .executable(name: "coordsh", targets: ["coordsh"]),
        .executable(name: "coordsh-front", targets: ["coordsh-front"]),
        .executable(name: "coordsh-server", targets: ["coordsh-server"]),
        .library(name: "ContentPlugin", type: .dynamic, targets: ["ContentPlugin"]),
        .library(name: "AccountPlugin", type: .dynamic, targets: ["AccountPlugin"]),
        .library(name: "CartPlugin", type: .dynamic, targets: ["CartPlugin"]),
        .library(name: "PaymentPlugin", type: .dynamic, targets: ["PaymentPlugin"]),
    ],
    dependencies: [
        .package(path: "Sources/SDK"),
        // CoordLoading and CoordContract, on the SDK's product (why: its Package.swift).
        .package(path: "Sources/SDK/ContractKit"),
        .package(path: "Sources/Shop"),
        .package(url: "https://github.com/apple/swift-argument-parser", exact: "1.8.2"),
        .package(url: "https://github.com/LebJe/TOMLKit", exact: "0.6.0"),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
        .package(url: "https://github.com/apple/swift-crypto", exact: "4.5.2"),
        // coordsh serve: the listener (NIO), its log (swift-log) and its graceful SIGTERM
        // (service-lifecycle).
        .package(url: "https://github.com/apple/swift-nio", exact: "2.101.3"),
        .package(url: "https://github.com/apple/swift-log", exact: "1.16.2"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", exact: "2.13.0"),
        // serve --metrics: the figures as swift-metrics instruments, served in Prometheus's
        // text format by swift-prometheus's registry.
        .package(url: "https://github.com/apple/swift-metrics", exact: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", exact: "2.4.1"),
        // ./bench: latency percentiles of the served commands.
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift", exact: "0.2.0"),
        // The SDK's macros are built on it; MacroTests checks their expansions with its test support.
        .package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1"),
    ],
    targets: [
        // Line editing, history and completion from libedit (BSD), not GNU readline; opened
        // with dlopen by the interactive prompt, so that scripts and workers never map it.
        .target(name: "CLineEdit"),
        // Descriptor passing (SCM_RIGHTS) between a supervised front and its worker.
        .target(name: "CSocketPass"),
        // The sealed memory file a supervised front shares with each worker (memfd_create).
        .target(name: "CMemoryFile"),
        // Children that inherit only what they are given (posix_spawn's closefrom action).
        .target(name: "CSpawn"),
        // Where an already loaded library was found (dlinfo): libCoordSDK.so's folder.
        .target(name: "CLoadedLibrary"),
        // The kernel's confinement of a process that runs plugin code: Landlock and seccomp
        // (CSandbox: the system calls), and the policy type and its enforcement (CoordSandbox).
        .target(name: "CSandbox"),
        .target(name: "CoordSandbox", dependencies: ["CSandbox"]),
        .target(name: "CoordRuntime", dependencies: [
            sdk, .product(name: "CoordLoading", package: "ContractKit"), .product(name: "CoordContract", package: "ContractKit"), "CSpawn", "CLoadedLibrary",
            "CoordSandbox", "CoordProtocol",
            "TOMLKit", .product(name: "Crypto", package: "swift-crypto"),
            // scrypt for the host's password hashing: the one BoringSSL in the process.
            .product(name: "CryptoExtras", package: "swift-crypto"),
        ],
        // The built-in defaults: config/coordsh.toml itself (a symlink), compiled in.
        resources: [.embedInCode("coordsh.toml")]),
        // The data managers: the one image that links GRDB (SQLite) and loads libpq (PostgreSQL).
        // Plugins reach the data only through the SDK's DataManaging, so no client library's
        // type ever crosses the dlopen boundary.
        // libpq's declarations (the system's libpq-dev), for the PostgreSQL data manager;
        // CLibPQLoader dlopens libpq when a PostgreSQL database is first opened, so that a
        // SQLite shell never maps it and the libraries it needs. (No pkgConfig: that would link
        // libpq into every image that imports it.)
        .systemLibrary(name: "CLibPQ", providers: [.apt(["libpq-dev"])]),
        .target(name: "CLibPQLoader", dependencies: ["CLibPQ"]),
        // A private SQLite connection with an authorizer: what a plugin's statement would touch
        // is known before it runs (CoordData's DataGuard). GRDB keeps the store's own
        // connections' authorizer for itself.
        .target(name: "CSQLiteCheck", linkerSettings: [.linkedLibrary("sqlite3")]),
        // GRDB's cached statements run directly where its general path costs more than SQLite:
        // a plugin's queries (bound, stepped, read column by column) and the check's read of the
        // schema version before each transaction.
        .target(name: "CSQLiteQuery", linkerSettings: [.linkedLibrary("sqlite3")]),
        // The store's log kept between processes and checkpointed at the end only by a process
        // that changed something (SQLite's db_config, which is variadic, and a file control).
        .target(name: "CSQLiteLog", linkerSettings: [.linkedLibrary("sqlite3")]),
        .target(name: "CoordData", dependencies: [sdk, "CoordRuntime", .product(name: "GRDB", package: "GRDB.swift"), "CLibPQ", "CLibPQLoader", "CSQLiteCheck", "CSQLiteLog", "CSQLiteQuery"]),
        // What each plugin's code cost (per plugin and message or page: runs, errors, own time,
        // SQL, queue waits), fed by the SDK's FeatureClock; `plugins stats` shows it.
        .target(name: "CoordAccounting", dependencies: [sdk, .product(name: "Histogram", package: "hdrhistogram-swift")]),
        // `serve --metrics`: each plugin's figures (fed by PluginStats), the front's restarts and
        // clients, as swift-metrics instruments in a Prometheus registry; the worker's half
        // asked for over a channel of its own, and the HTTP endpoint a monitoring system scrapes.
        .target(name: "CoordMetrics", dependencies: [
            sdk, "CoordAccounting", .product(name: "Metrics", package: "swift-metrics"), .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"), .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        // The app as pictures: diagrams written as Graphviz DOT or Mermaid (`tree`, `trace`,
        // `map` with --format).
        .target(name: "CoordPicture"),
        // The client protocol of `coordsh serve` (PROTOCOL.md): frames and messages, nothing
        // else, so that the server, `coordsh connect` and the fuzzers share one decoder.
        .target(name: "CoordProtocol"),
        // The session core: an app (AppHost) and a scene's session on it — commands, builtins,
        // completion, replies — in this process, with no terminal and no transport. What the
        // worker and `serve` run; the local side of the scene seam (`ShellBackend`).
        .target(name: "CoordSession", dependencies: [
            sdk, .product(name: "CoordLoading", package: "ContractKit"), "CoordRuntime", "CoordData", "CoordProtocol", "CoordAccounting", "CoordPicture",
        ]),
        // The client: a scene of a server over its socket (`coordsh connect`, the supervised
        // shell's and server's link to their worker).
        .target(name: "CoordClient", dependencies: [sdk, "CoordSession", "CoordProtocol"]),
        // A hung worker's stack, asked for before it is killed: the worker's handler and the
        // front's signal to its main thread.
        .target(name: "CStackReport"),
        // The epoll watch set the supervisors wait on: readable when any worker or scene is.
        .target(name: "CWatchSet"),
        // Supervision: the app in a worker process, restarted after a crash, upgraded in place;
        // a decorator over the client's remote scene.
        .target(name: "CoordSupervision", dependencies: [
            sdk, "CoordRuntime", "CoordSession", "CoordClient", "CoordProtocol", "CoordAccounting", "CSocketPass", "CSpawn", "CWatchSet", "CStackReport",
            "CMemoryFile",
        ]),
        // The terminal: the line editor, the prompt, the password prompt and the loop that
        // drives a scene (local, remote or supervised) in batch or interactively.
        .target(name: "CoordTerminal", dependencies: [
            sdk, "CoordRuntime", "CoordData", "CoordSession", "CoordClient", "CoordSupervision", "CoordProtocol", "CoordAccounting", "CLineEdit", "CoordPicture",
        ]),
        // The plugin author's tools: `plugin check` (the contract suite in a child) and
        // `plugin new`.
        .target(name: "CoordPluginTools", dependencies: [
            sdk, .product(name: "CoordLoading", package: "ContractKit"), "CoordRuntime", "CoordData", "CoordSession",
            .product(name: "CoordContract", package: "ContractKit"),
        ]),
        // `coordsh serve`: one app, a scene per client on a Unix socket.
        .target(name: "CoordServe", dependencies: [
            sdk, "CoordSession", "CoordClient", "CoordSupervision", "CoordRuntime", "CoordProtocol", "CSocketPass", "CWatchSet", "CStackReport",
            "CMemoryFile", "CoordMetrics", "CoordAccounting", .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "NIOCore", package: "swift-nio"), .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOConcurrencyHelpers", package: "swift-nio"), .product(name: "Logging", package: "swift-log"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        // The fuzz targets (RELIABILITY.md): each parser that takes outside bytes, with what
        // must hold for any input. ./test runs them over the committed corpus; ./fuzz builds
        // CoordFuzzer with libFuzzer and AddressSanitizer in a build folder of its own.
        .target(name: "CoordFuzz", dependencies: [
            sdk, .product(name: "CoordLoading", package: "ContractKit"), "CoordRuntime", "CoordSession", "CoordProtocol",
        ]),
        .executableTarget(name: "CoordFuzzer", dependencies: ["CoordFuzz"]),
        // The command line both executables share: the shell's options, connect, plugin.
        .target(name: "CoordCLI", dependencies: ["CoordTerminal", "CoordPluginTools", "CoordRuntime", "CoordSupervision", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // Three executables (HostExecutables): `coordsh`, a launcher in C that starts the
        // shell and, for a supervised shell, its app process at the same moment; the shell
        // (coordsh-front) without SwiftNIO, which every start of it would map; and
        // coordsh-server with `serve` and the supervised app process. Installed in PREFIX/bin,
        // each Swift one finds libCoordSDK.so in PREFIX/lib/coordsh; in the build tree the
        // library sits beside it ($ORIGIN, SwiftPM's own rpath).
        // The launcher needs only the C library, linked statically: no dynamic loader at all
        // (≈ 0.9 ms a start, against ≈ 2.4 ms with the Swift runtime mapped). SwiftPM links
        // every executable with swiftc, whose image-registration object asks for two runtime
        // functions; launcher.c answers them, so no part of the runtime is linked in.
        .executableTarget(name: "coordsh", linkerSettings: [.unsafeFlags(["-static-executable"])]),
        .executableTarget(
            name: "coordsh-front", dependencies: ["CoordCLI", shop],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath=$ORIGIN/../lib/coordsh"])]),
        .executableTarget(
            name: "coordsh-server",
            dependencies: ["CoordCLI", "CoordServe", shop, .product(name: "ArgumentParser", package: "swift-argument-parser")],
            linkerSettings: [.unsafeFlags(["-Xlinker", "-rpath=$ORIGIN/../lib/coordsh"])]),
        // The shipped catalog (config/catalog.json, a symlink) is compiled in: the shop works
        // with no config file anywhere.
        plugin("Content", resources: [.embedInCode("catalog.json")]),
        // Password hashing is the host's service (Services.passwords): no crypto in a plugin.
        plugin("Account"),
        plugin("Cart"),
        plugin("Payment"),
        // ./bench: the benchmarks (release), and the trivial executable start-up is compared with.
        .executableTarget(
            name: "CoordBench",
            dependencies: [
                sdk, shop, .product(name: "CoordLoading", package: "ContractKit"), "CoordSession", "CoordClient", "CoordRuntime", "CoordProtocol", "CoordAccounting", "CoordMetrics",
                .product(name: "GRDB", package: "GRDB.swift"), "CLibPQ",
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            path: "Benchmarks/CoordBench", exclude: ["fixtures"],
            // The plain libpq loop (the PostgreSQL baseline) calls libpq directly.
            linkerSettings: [.linkedLibrary("pq")]),
        .executableTarget(name: "TrivialExecutable", path: "Benchmarks/Trivial"),
        .executableTarget(name: "FoundationBaseline", path: "Benchmarks/FoundationBaseline"),
        .target(name: "TestSupport", dependencies: [sdk, "CoordRuntime", "CoordData"], path: "Tests/TestSupport"),
        .testTarget(name: "LoaderTests", dependencies: [sdk, .product(name: "CoordLoading", package: "ContractKit"), "CoordRuntime", "CoordSandbox", "TestSupport"]),
        .testTarget(name: "PluginTests", dependencies: ["TestSupport"], exclude: ["fixtures"]),
        .testTarget(name: "ShopTests", dependencies: [sdk, shop, "CoordData", "CoordRuntime", "TestSupport"]),
        .testTarget(name: "PTYTests", dependencies: ["TestSupport"], exclude: ["interactive.py"]),
        .testTarget(name: "TranscriptTests", dependencies: ["TestSupport", .product(name: "CoordContract", package: "ContractKit")], exclude: ["transcripts"]),
        .testTarget(name: "FuzzTests", dependencies: ["CoordFuzz", "TestSupport"]),
        // The command line's fast reading (CommonLine) against swift-argument-parser's.
        .testTarget(name: "CLITests", dependencies: ["CoordCLI", "CoordTerminal", .product(name: "ArgumentParser", package: "swift-argument-parser")]),
        // @Page and @Messages: what they generate for every supported shape, and each compile error.
        .testTarget(name: "MacroTests", dependencies: [
            .product(name: "CoordMacroExpansion", package: "SDK"),
            .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacrosGenericTestSupport", package: "swift-syntax"),
            .product(name: "SwiftSyntaxMacroExpansion", package: "swift-syntax"),
        ]),
        .testTarget(name: "ServeTests", dependencies: ["TestSupport", "CoordProtocol", "CoordClient"], exclude: ["client.py", "frames.py", "front.py", "scrape.py"]),
    ]
)

// Start-up (issue 41): a concrete generic type's metadata (a `Set<String>`'s storage, a
// `[Int32: HandlerEntry]`'s) comes from the accessor the compiler writes with the conformances
// it already knows, not from demangling the type's name at run time: that path checks each
// generic requirement by looking the conformance up, and the runtime's first look-up of a
// conformance reads every loaded image's conformance records (≈ 400,000 instructions each; six
// of them were a tenth of `coordsh -c 'echo ok'`). The SDK's and the shop's packages say the same.
// A manifest cannot give the dependencies (SwiftNIO, GRDB, …) a flag: `scripts/build-release`,
// which ./run, ./bench and ./install build with, passes it to every module.
let metadataAccessors = SwiftSetting.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])
for target in package.targets where target.type == .regular || target.type == .executable {
    target.swiftSettings = (target.swiftSettings ?? []) + [metadataAccessors]
}
