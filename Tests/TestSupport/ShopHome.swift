import Foundation

/// A person's home of its own for one test, with the shipped config and a shop database in it:
/// coordsh run there as the person runs it, and the database changed by another process, as an
/// edit of the catalog would change it under a running shop.
public struct ShopHome {
    public let path: String
    public var database: String { path + "/shop.sqlite" }

    public init(_ label: String) throws {
        path = try makeTemporaryDirectory(label)
    }

    public func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// `coordsh --config <the shipped config> --db <database> arguments…`, with this home.
    public func coordsh(_ arguments: [String]) throws -> RunResult {
        try run(
            BuildProducts.coordsh, ["--config", BuildProducts.packageRoot + "/config/coordsh.toml", "--db", database] + arguments,
            environment: ["HOME": path, "XDG_DATA_HOME": path + "/data", "NO_COLOR": "1"])
    }

    /// Runs `statements` on the database in one transaction of a Python process: a write that
    /// is not coordsh's.
    public func edit(_ statements: [String]) throws -> RunResult {
        try run("/usr/bin/env", [
            "python3", "-c",
            "import sqlite3, sys\nc = sqlite3.connect(sys.argv[1])\nfor s in sys.argv[2:]: c.execute(s)\nc.commit()",
            database,
        ] + statements)
    }
}
