import CoordSDK
import Foundation
import TestSupport

/// Builds the broken-plugin fixtures into a temporary folder: C ones with the system C
/// compiler, and a Swift one with swiftc against the SDK module the build produced.
enum FixtureBuilder {
    struct BuildFailed: Error, CustomStringConvertible { let description: String }

    static let cKinds: [(file: String, kind: Int)] = [
        ("libnoentry.so", 1), ("libbadmagic.so", 2), ("libfutureabi.so", 3),
        ("libentryerror.so", 4), ("libothersdk.so", 5), ("libothercompiler.so", 6),
    ]

    static var fixtures: String { BuildProducts.packageRoot + "/Tests/LoaderTests/fixtures" }
    static var abiInclude: String { BuildProducts.packageRoot + "/Sources/SDK/Sources/CCoordABI/include" }

    /// Builds every fixture into `directory`, plus a text file named like a plugin.
    static func buildAll(into directory: String) throws {
        try "this is not a shared object\n".write(toFile: directory + "/libX.so", atomically: true, encoding: .utf8)
        for (file, kind) in cKinds {
            try tool("cc", [
                "-shared", "-fPIC", "-o", directory + "/" + file, "-I", abiInclude, "-DKIND=\(kind)",
                "-DSDK_VERSION=\"\(CoordSDKVersion.library)\"", "-DSWIFT_VERSION=\"\(CoordSDKVersion.compiler)\"",
                fixtures + "/c_plugin.c",
            ])
        }
        try buildSwiftPlugin(fixtures + "/duplicate_prefix.swift", module: "DuplicatePrefix", output: directory + "/libduplicateprefix.so")
    }

    /// Compiles one Swift source into a plugin exactly as an outside author would: against the
    /// built `CoordSDK` module, linking `libCoordSDK.so`.
    static func buildSwiftPlugin(_ source: String, module: String, output: String) throws {
        let build = BuildProducts.directory
        let modulemap = build + "/CCoordABI.build/module.modulemap"
        try tool("swiftc", [
            "-emit-library", "-module-name", module, "-I", build + "/Modules",
            "-Xcc", "-fmodule-map-file=\(modulemap)", "-L", build, "-lCoordSDK", source, "-o", output,
        ])
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
