@testable import CoordRuntime
import Foundation
import Testing

/// The built-in defaults are read at every start the quick way — their comment lines left out,
/// and the shipped file named with `--config` taken for the defaults it is — and must read
/// exactly as the file does.
@Suite struct BuiltInConfigTests {
    @Test("the defaults without their comment lines are the same table as the shipped file")
    func commentsLeftOut() throws {
        #expect(Config.builtInTOML.utf8.count < Config.builtInText.utf8.count, "the shipped file has comment lines")
        let parsed = try Config.parse(Config.builtInText, path: "shipped")
        let quick = try Config.parse(Config.builtInTOML, path: "quick", known: true)
        #expect(Config.json(quick) == Config.json(parsed))
    }

    @Test("the shipped file given as the config reads as any other file would: every key is the file's, on its line")
    func shippedFileAsConfig() throws {
        let path = "/nowhere/coordsh.toml"
        let shipped = try Config.layered(over: Config.builtInText, path: path)
        // One more blank line: the same settings, read the general way.
        let general = try Config.layered(over: Config.builtInText + "\n", path: path)
        #expect(shipped.entries.map(\.key) == general.entries.map(\.key))
        #expect(shipped.entries.map(\.value) == general.entries.map(\.value))
        #expect(shipped.entries.map(\.file) == general.entries.map(\.file))
        #expect(shipped.entries.allSatisfy { $0.file == path })
        #expect(shipped.featureSettings == general.featureSettings)
        #expect(shipped.pluginDirectories == general.pluginDirectories)
    }
}
