@testable import CoordRuntime
import Foundation
import TestSupport
import Testing

/// The files a plugin's section of the configuration names are the ones the sandbox opens to
/// the plugins for reading (the catalog): every text in the section, at any depth, that is the
/// path of an existing file — relative to the configuration's folder, or absolute.
@Suite struct SettingFilesTests {
    @Test("a file named by a text in a plugin's section, in a table or a list inside it, is opened; a missing file, a folder, a number and the host's own sections are not")
    func namedFiles() throws {
        let folder = try makeTemporaryDirectory("setting-files")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/sub/folder", withIntermediateDirectories: true)
        for file in ["a.txt", "sub/b.txt", "c.txt", "d.txt", "host.txt"] {
            try "x".write(toFile: folder + "/" + file, atomically: true, encoding: .utf8)
        }
        let text = """
            [shell]
            history = "host.txt"

            [myplugin]
            catalog = "a.txt"
            extra = { file = "sub/b.txt", size = 3 }
            list = ["c.txt", "missing.txt", "sub/folder", 7]
            absolute = "\(folder)/d.txt"

            """
        let config = try Config.layered(over: text, path: folder + "/coordsh.toml")
        let files = Set(PluginSandbox.settingFiles(config))
        #expect(files == Set(["a.txt", "sub/b.txt", "c.txt", "d.txt"].map { folder + "/" + $0 }), "\(files)")
    }
}
