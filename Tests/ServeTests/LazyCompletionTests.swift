import CoordClient
import Foundation
import TestSupport
import Testing

/// Completion works from what cached plugins registered, without loading them: a server in
/// one process (so that its /proc/PID/maps is the app's), a client completing commands,
/// verbs, routes and parameter names of plugins that are only registered.
@Suite("Completion without loading")
struct LazyCompletionTests {
    @Test("completing commands, verbs, routes and parameter names maps no plugin; completing a value loads the one that offers it")
    func completionFromTheRegistry() throws {
        let server = try ServeTests.Server(arguments: ["--single-process"]) { folder in
            // A first start vets the plugins and writes down what each registered.
            let warm = try run(
                BuildProducts.coordsh, ["--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite", "-c", "echo warm"],
                environment: ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_CONFIG_HOME": folder + "/config"])
            #expect(warm.status == 0, "\(warm.stderr)")
        }
        let client = try ServeTests.attach(server)
        #expect(try ServeTests.complete(client, "ca", word: "ca").contains("cart"))
        #expect(try ServeTests.complete(client, "cart ch", word: "ch") == ["checkout"])
        #expect(try ServeTests.complete(client, "open payment/r", word: "payment/r") == ["payment/receipt"])
        #expect(try ServeTests.complete(client, "open payment/receipt o", word: "o").contains("orderID="))
        func maps() throws -> String {
            let file = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(server.process.processIdentifier)/maps"))
            defer { try? file.close() }
            return String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
        }
        for name in ["Cart", "Payment", "Account"] {
            #expect(!(try maps()).contains("lib\(name)Plugin.so"), "completion mapped lib\(name)Plugin.so")
        }
        // Promo codes come from the Cart plugin's code.
        #expect(try ServeTests.complete(client, "cart offer W", word: "W").contains("WELCOME10"))
        #expect(try maps().contains("libCartPlugin.so"))
        #expect(!(try maps()).contains("libPaymentPlugin.so"))
        #expect(try server.stop() == 0)
    }

    /// A server (one process) with the C plugin `source` built into the person's plugin folder.
    static func server(with source: String, as name: String, also: (String) throws -> Void = { _ in }) throws -> ServeTests.Server {
        try ServeTests.Server(arguments: ["--single-process"]) { folder in
            try FileManager.default.createDirectory(atPath: folder + "/data/coordsh/plugins", withIntermediateDirectories: true)
            try FixtureBuilder.buildCPlugin(source, output: folder + "/data/coordsh/plugins/lib\(name).so")
            try also(folder)
        }
    }

    @Test("a C plugin's completion function offers values as a Swift plugin's closure does: lines it adds, rows of its SQL; one that fails (a display while completing) offers nothing")
    func cPluginCompletes() throws {
        let server = try Self.server(with: FixtureBuilder.sources + "/c_types.c", as: "typed")
        let client = try ServeTests.attach(server)
        #expect(try ServeTests.complete(client, "typed every ", word: "") == ["12", "144"])
        #expect(try ServeTests.complete(client, "typed every 12 yes ", word: "") == ["tea", "toast"])
        #expect(try ServeTests.complete(client, "typed every 12 yes t", word: "t") == ["tea", "toast"])
        #expect(try ServeTests.complete(client, "typed every 12 yes tea ", word: "") == ["0.25"])
        #expect(try ServeTests.complete(client, "typed every 12 yes tea 0.25 c", word: "c") == [])
        #expect(try ServeTests.complete(client, "open typed/point x=", word: "x=") == [])
        #expect(try server.stop() == 0)
    }

    @Test("the C notes example offers the logged-in person's note numbers after 'notes show', and none to nobody")
    func cNotesCompleteTheirIDs() throws {
        let server = try Self.server(with: BuildProducts.packageRoot + "/Examples/C/notes.c", as: "notes") { folder in
            try SupervisedTests.createAccount(
                [BuildProducts.coordsh, "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite", "--password-env", "PW"],
                ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state", "PW": "correct horse battery"])
        }
        let client = try ServeTests.attach(server)
        #expect(try ServeTests.complete(client, "notes show ", word: "") == [])
        #expect(try SupervisedServeTests.send(client, "account login ann@example.com", secrets: ["correct horse battery"]).error == nil)
        for text in ["milk", "bread", "tea"] { #expect(try SupervisedServeTests.send(client, "notes add \(text)").error == nil) }
        #expect(try SupervisedServeTests.send(client, "notes remove 2").error == nil)
        #expect(try ServeTests.complete(client, "notes show ", word: "") == ["1", "3"])
        #expect(try ServeTests.complete(client, "notes remove 3", word: "3") == ["3"])
        #expect(try server.stop() == 0)
    }
}
