import Foundation

/// A plugin author's first build: `coordsh plugin new` then `swift build` in the new package,
/// from nothing, with the macros' plugin the coordsh build made (the default) and built from
/// swift-syntax (`--no-prebuilt`, the baseline: what every first build cost before). One
/// round each: a from-source build takes minutes.
enum PluginBuildBench {
    static func run(_ environment: BenchEnvironment) throws -> [ResultRow] {
        let path = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { "\($0)/swift" }
        guard let swift = path.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return [ResultRow(measurement: "plugin first build", figure: "-", baseline: "swift not on PATH", ratio: "-", goal: "≤ 30 s", verdict: nil)]
        }
        // The person's own SwiftPM cache (swift-syntax is resolved from it): the real HOME.
        let real = ProcessInfo.processInfo.environment
        func firstBuild(_ name: String, _ extra: [String]) throws -> Double {
            let package = try environment.folder("build-" + name)
            try? FileManager.default.removeItem(atPath: package)
            let created = environment.run(["plugin", "new", name, "--path", package] + extra)
            guard created.status == 0 else { throw BenchFailure("plugin new \(name) failed") }
            let build = runMeasured(swift, ["build", "--package-path", package], environment: real)
            guard build.status == 0 else { throw BenchFailure("swift build of \(name) failed") }
            return build.seconds
        }
        let prebuilt = try firstBuild("prebuilt", [])
        let source = try firstBuild("fromsource", ["--no-prebuilt"])
        return [ResultRow(
            measurement: "plugin new → first swift build", figure: String(format: "%.1f s", prebuilt),
            baseline: String(format: "%.1f s (macros from swift-syntax)", source), ratio: times(prebuilt / source),
            goal: "≤ 30 s", verdict: met(prebuilt <= 30))]
    }
}
