import Foundation
import TestSupport
import Testing

/// A plugin that sends the bundled features' messages with a missing argument, a wrong type
/// and an unknown argument, through the real binary and the real `.so` files: each is refused
/// at the receiving feature's door with one line, the shell keeps running, nothing is written.
@Suite("Malformed messages from another plugin")
struct RogueMessageTests {
    /// Every message the bundled plugins declare: name, then each argument as
    /// (name, type, required). Kept in step with the plugins by the first test below.
    static let declared: [(String, [(String, String, Bool)])] = [
        ("cartAdd", [("productID", "int", false), ("quantity", "int", false)]),
        ("cartRemove", [("productID", "int", true)]),
        ("cartSet", [("productID", "int", true), ("quantity", "int", true)]),
        ("cartShow", []), ("cartOffer", [("code", "string", true)]), ("cartCheckout", []),
        ("contentList", [("category", "string", false)]), ("contentShow", [("id", "int", true)]),
        ("contentSearch", [("text", "string", true)]),
        ("accountCreate", [("email", "string", true)]), ("accountConfirm", [("code", "string", true)]),
        ("accountLogin", [("email", "string", true)]), ("accountLogout", []), ("accountWhoami", []),
        ("accountOutbox", []),
        ("paymentPay", [("cardNumber", "string", true)]), ("paymentReceipt", [("orderID", "int", true)]),
        ("paymentOrders", []),
    ]

    static func value(_ type: String) -> String { type == "int" ? "int:4242424242424242" : "string:4000000000000002" }
    static func wrong(_ type: String) -> String { type == "int" ? "string:4000000000000002" : "int:4242424242424242" }

    static func signature(_ name: String, _ arguments: [(String, String, Bool)]) -> String {
        ([name] + arguments.map { "\($0.0):\($0.1)\($0.2 ? "" : "?")" }).joined(separator: " ")
    }

    /// (rogue command, expected error line).
    static var cases: [(String, String)] {
        var cases: [(String, String)] = []
        for (name, arguments) in declared {
            let expected = signature(name, arguments)
            let required = arguments.filter(\.2)
            let valid = required.map { "\($0.0)=\(value($0.1))" }
            if let first = required.first {
                cases.append((
                    "rogue send \(name) \"\(valid.dropFirst().joined(separator: " "))\"",
                    "coordsh: error: \(name): missing \(first.0) (expected \(expected))"))
            }
            if let first = arguments.first {
                let words = ["\(first.0)=\(wrong(first.1))"] + required.filter { $0.0 != first.0 }.map { "\($0.0)=\(value($0.1))" }
                let got = first.1 == "int" ? "a string" : "an int"
                cases.append((
                    "rogue send \(name) \"\(words.joined(separator: " "))\"",
                    "coordsh: error: \(name): \(first.0) must be \(first.1 == "int" ? "an" : "a") \(first.1), got \(got) (expected \(expected))"))
            }
            cases.append((
                "rogue send \(name) \"\((valid + ["bogus=bool:true"]).joined(separator: " "))\"",
                "coordsh: error: \(name): unknown argument 'bogus' (expected \(expected))"))
        }
        return cases
    }

    static func dump(_ database: String) throws -> String {
        let script = "import sqlite3,sys\nprint('\\n'.join(sqlite3.connect(sys.argv[1]).iterdump()))"
        let result = try run("/usr/bin/env", ["python3", "-c", script, database])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    @Test("the table of declared messages matches what the bundled plugins register")
    func declarationsMatch() throws {
        let home = try PluginHome("rogue-help")
        defer { home.remove() }
        let config = try home.config(directories: [])
        for (prefix, _) in [("cart", 0), ("content", 0), ("account", 0), ("payment", 0)] {
            let result = try home.coordsh(["--config", config, "-c", "help \(prefix)"])
            #expect(result.status == 0)
            let mine = Self.declared.filter { $0.0.hasPrefix(prefix) }
            // help lists one line per verb; each of ours must be there, and no other.
            let verbs = result.stdout.split(separator: "\n").filter { $0.hasPrefix("  \(prefix) ") }
            #expect(verbs.count == mine.count, "\(result.stdout)")
        }
    }

    @Test("each malformed message is one line naming what is wrong; the shell goes on; nothing is written")
    func refused() throws {
        let home = try PluginHome("rogue")
        defer { home.remove() }
        let folder = try home.folder("plugins")
        try FixtureBuilder.buildSwiftPlugin(FixtureBuilder.sources + "/rogue.swift", module: "Rogue", output: folder + "/librogue.so")
        let config = try home.config(directories: [folder])
        let catalog = "\n[content]\ncatalog = \"\(BuildProducts.packageRoot)/config/catalog.json\"\n"
        try FileHandle(forWritingAtPath: config).map { try $0.seekToEnd(); $0.write(Data(catalog.utf8)); try $0.close() }
        let database = home.path + "/shop.sqlite"
        let setup = try home.coordsh(["--config", config, "--db", database, "-c", "cart add 3 2", "-c", "rogue send cartShow"])
        #expect(setup.status == 0, "\(setup.stderr)")
        let before = try Self.dump(database)

        let cases = Self.cases
        let script = cases.map(\.0).joined(separator: "\n") + "\necho still here\n"
        let result = try home.coordsh(["--config", config, "--db", database, "--keep-going"], input: script)
        #expect(result.status == 1)
        let errors = result.stderr.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init)
        #expect(errors == cases.map(\.1))
        #expect(result.stdout.hasSuffix("still here\n"))
        #expect(!result.stderr.contains("4242424242424242") && !result.stderr.contains("4000000000000002"), "no value is echoed")
        #expect(try Self.dump(database) == before)
        // Well-formed, the same route works.
        let good = try home.coordsh(["--config", config, "--db", database, "-c", "rogue send cartSet \"productID=int:3 quantity=int:1\""])
        #expect(good.status == 0, "\(good.stderr)")
        #expect(try Self.dump(database) != before)
    }
}
