@_spi(Host) import CoordSDK
import Foundation

/// Builds the broken-plugin corpus the loader and contract tests use: C plugins with the
/// system C compiler against the real ABI header, Swift plugins with swiftc against the SDK
/// module the build produced (as an outside author would), and files that are broken as
/// files (empty, truncated, for another CPU).
public enum FixtureBuilder {
    public struct BuildFailed: Error, CustomStringConvertible { public let description: String }

    /// The SDK version this build's coordsh has (what its refusals name).
    public static var sdkVersion: String { CoordSDKVersion.library }

    public static var sources: String { BuildProducts.packageRoot + "/Tests/PluginTests/fixtures" }
    static var abiInclude: String { BuildProducts.packageRoot + "/Sources/SDK/Sources/CCoordABI/include" }

    /// The C fixtures by `KIND` in c_plugin.c.
    public enum CKind: Int, CaseIterable {
        case noEntry = 1, badMagic, futureABI, entryError, otherSDK, otherCompiler, segfault, hang
    }

    /// The handshake refusals that are safe to load in process (nothing crashes or hangs):
    /// a text file, the C kinds 1–6, a Swift plugin claiming the prefix `cart`, and two shop
    /// plugins built against a CoordShop or a library this host does not have.
    public static func buildHandshakeCorpus(into directory: String) throws {
        try "this is not a shared object\n".write(toFile: directory + "/libX.so", atomically: true, encoding: .utf8)
        let files: [(String, CKind)] = [
            ("libnoentry.so", .noEntry), ("libbadmagic.so", .badMagic), ("libfutureabi.so", .futureABI),
            ("libentryerror.so", .entryError), ("libothersdk.so", .otherSDK), ("libothercompiler.so", .otherCompiler),
        ]
        for (file, kind) in files { try buildC(kind, output: directory + "/" + file) }
        try buildSwiftPlugin(sources + "/duplicate_prefix.swift", module: "DuplicatePrefix", output: directory + "/libduplicateprefix.so")
        try buildSwiftPlugin(sources + "/other_shop.swift", module: "OtherShop", output: directory + "/libothershop.so", libraries: ["CoordShop"])
        try buildSwiftPlugin(
            sources + "/other_shop.swift", module: "NoFarm", output: directory + "/libnofarm.so", defines: ["UNLINKED"], libraries: ["CoordShop"])
    }

    /// A C fixture of one kind.
    public static func buildC(_ kind: CKind, output: String) throws {
        try tool("cc", [
            "-shared", "-fPIC", "-o", output, "-I", abiInclude, "-DKIND=\(kind.rawValue)",
            "-DSDK_VERSION=\"\(CoordSDKVersion.library)\"", "-DSWIFT_VERSION=\"\(CoordSDKVersion.compiler)\"",
            sources + "/c_plugin.c",
        ])
    }

    /// A plain C plugin (ABI version 2) from `source`, built with the system's C compiler
    /// against the ABI header alone, as its author would.
    public static func buildCPlugin(_ source: String, output: String, defines: [String] = []) throws {
        try tool("cc", ["-shared", "-fPIC", "-Wall", "-Werror", "-o", output, "-I", abiInclude, source] + defines.map { "-D" + $0 })
    }

    /// cargo on PATH, or where rustup puts it (`~/.cargo/bin`); nil where Rust is not installed.
    public static let cargo: String? = {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/cargo" }
        return (path + [NSHomeDirectory() + "/.cargo/bin/cargo"]).first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// Builds the cargo package at `manifest` offline into `target`, with cargo's folder on PATH.
    public static func cargoBuild(manifest: String, target: String) throws -> RunResult {
        try cargo(["build", "--offline", "--quiet", "--manifest-path", manifest], target: target)
    }

    /// Runs cargo with `arguments`, building into `target`, with cargo's folder on PATH.
    public static func cargo(_ arguments: [String], target: String, mergeOutput: Bool = true) throws -> RunResult {
        guard let cargo else { throw BuildFailed(description: "cargo is not installed") }
        var environment = ProcessInfo.processInfo.environment
        environment["CARGO_TARGET_DIR"] = target
        environment["PATH"] = (cargo as NSString).deletingLastPathComponent + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
        return try run(cargo, arguments, environment: environment, mergeOutput: mergeOutput, timeout: 600)
    }

    /// One of `fixtures/c2_plugin.c`'s broken C plugins (see its KIND list).
    public static func buildBrokenCPlugin(kind: Int, output: String) throws {
        try buildCPlugin(sources + "/c2_plugin.c", output: output, defines: ["KIND=\(kind)"])
    }

    /// The probe plugin (`probe`, two pages, one message), or one of its broken variants:
    /// DUPNAME, NEWVERSION, DUPROUTE, UNMET, FATAL_ENTRY, PAGE_CRASH, LEAK, UNHANDLED.
    public static func buildProbe(_ variant: String? = nil, output: String) throws {
        try buildSwiftPlugin(
            sources + "/probe.swift", module: "Probe\(variant.map { "_\($0)" } ?? "")", output: output,
            defines: variant.map { [$0] } ?? [])
    }

    /// The crasher plugin (`crash now index|unwrap|fatal|loop`): vets and checks clean, traps
    /// on demand in its message handler.
    /// With `second`, the same as `crasher2` (prefix `crash2`).
    /// The crasher plugin (see fixtures/crasher.swift): `second` builds crasher2; `version` 2
    /// builds crasher 2.0.0 with one more page, 3 a version whose entry traps.
    public static func buildCrasher(output: String, second: Bool = false, version: Int = 1) throws {
        let defines = (second ? ["SECOND"] : []) + (version >= 2 ? ["V2"] : []) + (version >= 3 ? ["V3"] : [])
        try buildSwiftPlugin(sources + "/crasher.swift", module: second ? "Crasher2" : "Crasher", output: output, defines: defines)
    }

    /// The slowpoke plugin (see fixtures/slowpoke.swift): handlers that take as long as they are
    /// told, fail, are refused or run SQL; `second` builds slowpoke2 (prefix `slow2`).
    public static func buildSlowpoke(output: String, second: Bool = false) throws {
        try buildSwiftPlugin(sources + "/slowpoke.swift", module: second ? "Slowpoke2" : "Slowpoke", output: output, defines: second ? ["SECOND"] : [])
    }

    /// The intruder plugin (see fixtures/intruder.swift): `intrude read|write|list|exec|connect|
    /// bind|udp|unix|env|signal TARGET` tries to reach what no plugin was granted.
    /// With `entryWrites`, its entry point creates `$HOME/entry-was-here`.
    /// `reach`: capabilities (their text form) it declares besides `read products` and
    /// `service secrets` — paths, ports, programs only the test knows.
    public static func buildIntruder(output: String, entryWrites: Bool = false, declares: Bool = false, reach: [String]? = nil) throws {
        var extra: [String] = []
        if let reach {
            let source = output + ".reach.swift"
            let list = reach.map { "\"\($0)\"" }.joined(separator: ", ")
            try "import CoordSDK\nlet declaredReach: [Capability] = [\(list)].compactMap(Capability.init)\n".write(toFile: source, atomically: true, encoding: .utf8)
            extra.append(source)
        }
        try buildSwiftPlugin(
            sources + "/intruder.swift", module: "Intruder", output: output,
            defines: (entryWrites ? ["ENTRY_WRITES"] : []) + (declares ? ["DECLARES"] : []) + (reach != nil ? ["DECLARES_REACH"] : []),
            extraSources: extra)
        for source in extra { try? FileManager.default.removeItem(atPath: source) }
    }

    /// `no_landlock PROGRAM [ARGS…]` (fixtures/no_landlock.c): runs PROGRAM where the kernel
    /// answers ENOSYS to Landlock's calls, as a kernel without Landlock does.
    public static func buildNoLandlock(output: String) throws {
        try tool("cc", ["-o", output, sources + "/no_landlock.c"])
    }

    /// An empty file, the first 4 KiB of a real plugin, and a real plugin whose ELF header
    /// says it is for aarch64.
    public static func buildBrokenFiles(into directory: String) throws {
        try Data().write(to: URL(fileURLWithPath: directory + "/libempty.so"))
        let real = try Data(contentsOf: URL(fileURLWithPath: BuildProducts.plugin("Content")))
        try real.prefix(4096).write(to: URL(fileURLWithPath: directory + "/libtruncated.so"))
        var foreign = real
        // e_machine: aarch64 on an x86_64 host, x86_64 anywhere else.
        foreign[18] = foreign[18] == 62 ? 183 : 62
        foreign[19] = 0
        try foreign.write(to: URL(fileURLWithPath: directory + "/libforeign.so"))
    }

    /// Compiles one Swift source into a plugin exactly as an outside author would: against the
    /// built `CoordSDK` module, linking `libCoordSDK.so` (and each of `libraries`). `macros`:
    /// with the SDK's `@Page` and `@Messages`, expanded by the macro plugin the build made.
    /// `releases`: against those stored releases' interfaces (folders of `.swiftinterface`
    /// files, which the compiler builds into modules) instead of this build's modules, still
    /// linked with this build's libraries — a plugin built with an earlier SDK meeting this one.
    public static func buildSwiftPlugin(
        _ source: String, module: String, output: String, defines: [String] = [], libraries: [String] = [], extraSources: [String] = [],
        macros: Bool = false, releases: [String]? = nil
    ) throws {
        let build = BuildProducts.directory
        let modulemap = build + "/CCoordABI.build/module.modulemap"
        var search = ["-I", build + "/Modules", "-Xcc", "-fmodule-map-file=\(modulemap)"]
        var cache: String?
        if let releases {
            let folder = try makeTemporaryDirectory("module-cache")
            cache = folder
            search = ["-swift-version", "6", "-module-cache-path", folder] + releases.flatMap { release in
                ["-I", release] + (FileManager.default.fileExists(atPath: release + "/include") ? ["-I", release + "/include"] : [])
            }
        }
        defer { if let cache { try? FileManager.default.removeItem(atPath: cache) } }
        try tool("swiftc", ["-emit-library", "-module-name", module] + search + [
            "-Xcc", "-D_GNU_SOURCE", "-L", build, "-lCoordSDK", source,
        ] + extraSources + ["-o", output] + libraries.map { "-l\($0)" } + defines.flatMap { ["-D", $0] }
            + (macros ? ["-load-plugin-executable", build + "/CoordMacroPlugin-tool#CoordMacroPlugin"] : []))
    }

    /// The Swift files of `Examples/NAME` (the plugin guide's examples), in order.
    public static func exampleSources(_ name: String) throws -> [String] {
        let folder = BuildProducts.packageRoot + "/Examples/" + name
        return try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasSuffix(".swift") }.sorted().map { folder + "/" + $0 }
    }

    /// Builds one of the guide's examples into a plugin as its author would: every file of
    /// `Examples/NAME`, with the macros, against the SDK and `libraries`.
    public static func buildExample(_ name: String, output: String, libraries: [String] = []) throws {
        let sources = try exampleSources(name)
        guard let first = sources.first else { throw BuildFailed(description: "Examples/\(name) has no Swift file") }
        try buildSwiftPlugin(first, module: name, output: output, libraries: libraries, extraSources: Array(sources.dropFirst()), macros: true)
    }

    static func tool(_ name: String, _ arguments: [String]) throws {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin").split(separator: ":")
            .map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let path else { throw BuildFailed(description: "\(name) not found on PATH") }
        let result = try run(path, arguments, environment: ProcessInfo.processInfo.environment)
        guard result.status == 0 else {
            throw BuildFailed(description: "\(name) \(arguments.joined(separator: " ")) failed:\n\(result.stderr)")
        }
    }
}
