import Foundation
import TestSupport

/// A private HOME for one test: its own data, cache (verdicts) and config, so that nothing
/// leaks between tests or from the user's own plugins.
struct PluginHome {
    let path: String

    init(_ label: String) throws {
        path = try makeTemporaryDirectory(label)
    }

    var environment: [String: String] {
        ["HOME": path, "XDG_DATA_HOME": path + "/data", "XDG_CACHE_HOME": path + "/cache", "NO_COLOR": "1"]
    }

    /// A folder inside HOME, created.
    func folder(_ name: String) throws -> String {
        let folder = path + "/" + name
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        // Whatever the umask: the loader refuses plugin folders others can write to.
        chmod(folder, 0o755)
        return folder
    }

    /// Writes a config whose plugin folders are the build folder (the four bundled plugins)
    /// and `directories`, with `extra` lines in [plugins].
    func config(directories: [String], extra: String = "") throws -> String {
        let dirs = ([BuildProducts.directory] + directories).map { "\"\($0)\"" }.joined(separator: ", ")
        let file = path + "/coordsh.toml"
        try "[plugins]\ndirs = [\(dirs)]\n\(extra)\n".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// Runs coordsh with this HOME.
    func coordsh(_ arguments: [String], input: String = "") throws -> RunResult {
        try run(BuildProducts.coordsh, arguments, input: input, environment: environment)
    }

    /// Runs coordsh with `--json` and `-c plugins` and returns the document.
    func plugins(config: String) throws -> (json: [String: Any], stderr: String) {
        let result = try coordsh(["--config", config, "--json", "-c", "plugins"])
        let object = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any]
        return (object ?? [:], result.stderr)
    }

    func remove() { try? FileManager.default.removeItem(atPath: path) }
}

extension [String: Any] {
    /// `plugins --json`: loaded plugin names, and refusals by file name.
    var loadedNames: [String] { ((self["plugins"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }.sorted() }
    var refusedByFile: [String: (kind: String, reason: String)] {
        var result: [String: (String, String)] = [:]
        for entry in (self["refused"] as? [[String: Any]]) ?? [] {
            let file = ((entry["file"] as? String ?? "") as NSString).lastPathComponent
            result[file] = (entry["kind"] as? String ?? "", entry["reason"] as? String ?? "")
        }
        return result
    }
}
