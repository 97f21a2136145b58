import Foundation
import TestSupport

/// A folder with the intruder plugin built into a plugin folder of its own, a config that
/// names that folder after the bundled plugins', a database path and a private environment:
/// where the tests that watch the statement check through the binary start.
struct IntruderWorkspace {
    let folder: String
    let config: String
    let database: String
    let environment: [String: String]

    init(_ name: String) throws {
        folder = try makeTemporaryDirectory(name)
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        chmod(folder + "/plugins", 0o755)
        try FixtureBuilder.buildIntruder(output: folder + "/plugins/libintruder.so")
        config = folder + "/coordsh.toml"
        try "[plugins]\ndirs = [\"$SDK_DIR\", \"\(folder)/plugins\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        database = folder + "/shop.sqlite"
        environment = ["HOME": folder + "/home", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
                       "XDG_CACHE_HOME": folder + "/cache", "XDG_RUNTIME_DIR": folder + "/run"]
    }

    func remove() { try? FileManager.default.removeItem(atPath: folder) }
}
