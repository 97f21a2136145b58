import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The database's write-ahead log (`shop.sqlite-wal`) and its index stay next to it between
/// runs. A run that changes nothing writes neither the database nor its log (a run that
/// loaded no plugin used to delete the log at its end, so the next made it again, wrote to it
/// and checkpointed it); a run that changed something leaves all of it in the database file
/// at its end, so that the file alone, copied after a run, holds everything — in one process
/// and supervised (both used to leave it in the log when a plugin had been loaded).
@Suite("The database's log between runs, through the real binary")
struct DatabaseLogTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    /// A file's bytes and modification time (nanoseconds); nil when it is not there.
    struct Snapshot: Equatable {
        var bytes: Data
        var modified: Int
    }

    static func snapshot(_ path: String) -> Snapshot? {
        var info = stat()
        guard stat(path, &info) == 0, let bytes = FileManager.default.contents(atPath: path) else { return nil }
        return Snapshot(bytes: bytes, modified: info.st_mtim.tv_sec * 1_000_000_000 + info.st_mtim.tv_nsec)
    }

    static func shell(_ mode: String, _ database: String, _ commands: [String], home: String) throws -> RunResult {
        try run(
            BuildProducts.coordsh, [mode, "--config", config, "--db", database] + commands.flatMap { ["-c", $0] },
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"], directory: home, timeout: 120)
    }

    /// A private home whose database (`shop.sqlite` in it) one run in `mode` has written: the
    /// catalogue, and a cart of one pair of boots.
    static func written(_ mode: String, _ label: String) throws -> String {
        let home = try makeTemporaryDirectory(label)
        let result = try shell(mode, home + "/shop.sqlite", ["cart add 3"], home: home)
        #expect(result.status == 0, "\(mode): \(result.stderr)")
        return home
    }

    @Test("a run that only reads writes neither the database nor its log", arguments: ["--single-process", "--supervised"])
    func readingWritesNothing(mode: String) throws {
        // What a run that wrote leaves is what the next finds.
        let home = try Self.written(mode, "log-read")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = home + "/shop.sqlite"
        let before = [Self.snapshot(database), Self.snapshot(database + "-wal")]
        #expect(before.allSatisfy { $0 != nil }, "\(mode): the database and its log are both kept")
        // A run that reads through a plugin, and one that loads none.
        for (commands, shows) in [(["cart show"], "Leather Boots"), (["help", "echo ok"], "ok")] {
            // Both files' modification times would move with any write; let a clock tick pass.
            usleep(20_000)
            let result = try Self.shell(mode, database, commands, home: home)
            #expect(result.status == 0, "\(mode) \(commands): \(result.stderr)")
            #expect(result.stdout.contains(shows), "\(mode) \(commands): \(result.stdout)")
            let after = [Self.snapshot(database), Self.snapshot(database + "-wal")]
            #expect(after[0] == before[0], "\(mode) \(commands): the database file was written by a run that only read")
            #expect(after[1] == before[1], "\(mode) \(commands): the log was written or removed by a run that only read")
        }
    }

    @Test("a run whose commands need no data does not open the database: its log's index is left as it was", arguments: ["--single-process", "--supervised"])
    func noDataNoOpen(mode: String) throws {
        let home = try Self.written(mode, "log-noopen")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = home + "/shop.sqlite"
        // SQLite rebuilds the index (`-shm`) from the log whenever a process opens the file
        // first; a run that never opens it leaves the index's bytes and time alone.
        let before = Self.snapshot(database + "-shm")
        #expect(before != nil, "\(mode): the log's index is kept between runs")
        usleep(20_000)
        let result = try Self.shell(mode, database, ["help", "pages", "echo ok"], home: home)
        #expect(result.status == 0 && result.stderr.isEmpty, "\(mode): \(result.stderr)")
        #expect(result.stdout.hasSuffix("ok\n"), "\(mode): \(result.stdout)")
        #expect(Self.snapshot(database + "-shm") == before, "\(mode): a run that needed no data opened the database")
        // The first command that needs it opens it, and sees what the last run left.
        let cart = try Self.shell(mode, database, ["echo first", "cart show"], home: home)
        #expect(cart.status == 0 && cart.stdout.contains("Leather Boots"), "\(mode): \(cart.stdout) \(cart.stderr)")
    }

    @Test("what a run changed is in the database file alone at its end", arguments: ["--single-process", "--supervised"])
    func changesInTheFile(mode: String) throws {
        let home = try Self.written(mode, "log-write")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let database = home + "/shop.sqlite"
        // The database file alone, copied as a person would back it up.
        try FileManager.default.createDirectory(atPath: home + "/copy", withIntermediateDirectories: false)
        try FileManager.default.copyItem(atPath: database, toPath: home + "/copy/shop.sqlite")
        let copy = try Self.shell("--single-process", home + "/copy/shop.sqlite", ["cart show"], home: home)
        #expect(copy.status == 0, "\(mode): \(copy.stderr)")
        #expect(copy.stdout.contains("Cart (1 item)") && copy.stdout.contains("Leather Boots"), "\(mode): the copy's cart: \(copy.stdout)")
    }
}
