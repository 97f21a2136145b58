import Foundation
import TestSupport
import Testing
#if canImport(Glibc)
import Glibc
#endif

/// The shop's database holds every account's password hash and login tokens: what the shell
/// creates for it is its owner's alone, whatever the umask, as the XDG base directory
/// specification asks of a folder a program creates (0700) — and a file the person made
/// themselves keeps the permissions they gave it.
@Suite("The database's permissions, through the real binary")
struct DataPrivacyTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    /// The permission bits of `path`, nil when it is not there.
    static func mode(_ path: String) -> Int? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o777)
    }

    @Test("a database the shell creates, in its default place and where --db names it, is readable and writable by its owner only, in a folder only its owner can enter — in one process and supervised", arguments: ["--single-process", "--supervised"])
    func createdPrivate(mode: String) throws {
        let home = try makeTemporaryDirectory("private-db")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"]
        for database in [nil, "mine/shop.sqlite"] {
            let result = try run(
                BuildProducts.coordsh, [mode, "--config", Self.config] + (database.map { ["--db", $0] } ?? []) + ["-c", "cart add 3"],
                environment: environment, directory: home, timeout: 120)
            #expect(result.status == 0, "\(mode) \(database ?? "default"): \(result.stderr)")
            let file = home + "/" + (database ?? "data/coordsh/shop.sqlite")
            let folder = (file as NSString).deletingLastPathComponent
            #expect(Self.mode(folder) == 0o700, "\(mode): \(folder) is \(String(Self.mode(folder) ?? 0, radix: 8))")
            // The log and its index, kept between runs, are made by SQLite with the database's
            // own permissions.
            let files = try FileManager.default.contentsOfDirectory(atPath: folder).filter { $0.hasPrefix("shop.sqlite") }
            #expect(files.contains("shop.sqlite"), "\(mode): \(files)")
            for name in files {
                let bits = Self.mode(folder + "/" + name)
                #expect(bits == 0o600, "\(mode): \(folder)/\(name) is \(String(bits ?? 0, radix: 8))")
            }
        }
    }

    @Test("a database file the person made keeps the permissions they gave it (a group may share it)")
    func existingKept() throws {
        let home = try makeTemporaryDirectory("shared-db")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let file = home + "/shared.sqlite"
        #expect(FileManager.default.createFile(atPath: file, contents: nil, attributes: [.posixPermissions: 0o640]))
        let result = try run(
            BuildProducts.coordsh, ["--config", Self.config, "--db", file, "-c", "cart add 1", "-c", "cart show"],
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"], timeout: 120)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("1 item"), "\(result.stdout)")
        #expect(Self.mode(file) == 0o640)
    }
}
