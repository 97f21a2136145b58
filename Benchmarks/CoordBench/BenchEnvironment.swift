import Foundation

/// Where the release build is and a private HOME for the runs, so that the user's own
/// plugins, database and verdict cache are never touched or measured.
struct BenchEnvironment {
    let build: String
    let packageRoot: String
    let scratch: String

    init() throws {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        build = (exe as NSString).deletingLastPathComponent
        var root = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: root.appendingPathComponent("Package.swift").path) || root.lastPathComponent == "SDK" {
            root.deleteLastPathComponent()
        }
        packageRoot = root.path
        scratch = NSTemporaryDirectory() + "coordsh-bench-\(getpid())"
        try FileManager.default.createDirectory(atPath: scratch + "/home", withIntermediateDirectories: true)
    }

    var coordsh: String { build + "/coordsh" }
    var trivial: String { build + "/TrivialExecutable" }
    var shippedConfig: String { packageRoot + "/config/coordsh.toml" }

    var environment: [String: String] {
        [
            "HOME": scratch + "/home", "XDG_DATA_HOME": scratch + "/home/data", "XDG_CACHE_HOME": scratch + "/home/cache",
            "XDG_STATE_HOME": scratch + "/home/state", "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "NO_COLOR": "1",
        ]
    }

    /// A folder in the scratch space that the loader accepts (not writable by others).
    func folder(_ name: String) throws -> String {
        let path = scratch + "/" + name
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        chmod(path, 0o755)
        return path
    }

    /// A config that changes only the plugin folders (every other key keeps its default).
    func config(named name: String, pluginDirectories: [String]) throws -> String {
        let dirs = pluginDirectories.map { "\"\($0)\"" }.joined(separator: ", ")
        let text = "[plugins]\ndirs = [\(dirs)]\n"
        let path = scratch + "/\(name).toml"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// `cache`: a verdict cache of its own (a folder of the scratch HOME) instead of the shared one.
    func run(_ arguments: [String], output: String = "/dev/null", cache: String? = nil) -> ProcessSample {
        var environment = self.environment
        if let cache { environment["XDG_CACHE_HOME"] = scratch + "/home/" + cache }
        return runMeasured(coordsh, arguments, environment: environment, output: output)
    }

    func remove() { try? FileManager.default.removeItem(atPath: scratch) }
}
