import CoordProtocol
import CoordShell
import Foundation
import TestSupport
import Testing

/// A supervised `coordsh serve` (the default): the app runs in a worker process the server
/// watches. Through the real binary, real sockets and the crasher fixture plugin, in versions
/// 1, 2 (one more page) and 3 (an entry that traps).
@Suite("coordsh serve, supervised", .serialized)
struct SupervisedServeTests {
    typealias Server = ServeTests.Server

    /// A server loading the bundled plugins and the crasher from `FOLDER/plugins`, with
    /// ann@example.com's account created (password "correct horse battery").
    static func serverWithCrasher(config: String = "") throws -> Server {
        try Server(config: "[plugins]\ndirs = [\"$SDK_DIR\", \"$FOLDER/plugins\"]\n\(config)") { folder in
            try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
            chmod(folder + "/plugins", 0o755)
            try FixtureBuilder.buildCrasher(output: folder + "/plugins/libcrasher.so")
            let environment = [
                "HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state", "PW": "correct horse battery",
            ]
            try SupervisedTests.createAccount(
                [BuildProducts.coordsh, "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite", "--password-env", "PW"], environment)
        }
    }

    /// Runs `line` in the client's scene, answering a password prompt with `secrets`; the
    /// result, or the error frame's code and message.
    static func send(_ client: ServerConnection, _ line: String, secrets: [String] = []) throws -> (result: ServerReply.RunResult?, error: String?) {
        let id = client.newID()
        try client.write(.run(id: id, line: line, secrets: secrets))
        switch try client.answer(to: id) {
        case .result(let result): return (result, result.error.map { "\($0.code): \($0.message)" })
        case .error(_, let code, let message): return (nil, "\(code): \(message)")
        default: return (nil, "an answer out of turn")
        }
    }

    /// What the server pushed to `client` until, for each of `texts`, a note contains it (or
    /// 20 s passed).
    static func notes(_ client: ServerConnection, until texts: String..., server: Server) throws -> [String] {
        var notes: [String] = []
        try server.waitFor("notes containing \(texts)", seconds: 20) {
            notes += client.takePushed().map(\.text)
            return texts.allSatisfy { text in notes.contains { $0.contains(text) } }
        }
        return notes
    }

    @Test("three clients, one crashes the worker: it gets the crash line, the other two a note, and keep their pages, carts and login")
    func oneClientCrashes() throws {
        let server = try Self.serverWithCrasher()
        let (a, b, c) = (try ServeTests.attach(server), try ServeTests.attach(server), try ServeTests.attach(server))
        #expect(try Self.send(a, "content show 9").error == nil)
        #expect(try Self.send(a, "account login ann@example.com", secrets: ["correct horse battery"]).error == nil)
        #expect(try Self.send(b, "cart add 3").error == nil)
        #expect(try Self.send(b, "cart checkout").error == nil)
        let crash = try Self.send(c, "crash now index")
        #expect(crash.result == nil)
        #expect(crash.error == "crashed: the app process crashed running 'crash now index' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted, back at content/catalog", "\(crash)")
        let toA = try Self.notes(a, until: "another client's command", "still logged in", server: server)
        #expect(toA.contains("another client's command: the app process crashed running 'crash now index' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted; your scene was restored, back at account/profile"), "\(toA)")
        #expect(toA.contains("still logged in as ann@example.com"), "\(toA)")
        let toB = try Self.notes(b, until: "another client's command", "waits again", server: server)
        #expect(toB.contains { $0.hasSuffix("your scene was restored, back at account/login") }, "\(toB)")
        #expect(toB.contains("'cart checkout' waits again"), "\(toB)")
        // A: the same page and user; B: its own guest cart, and its checkout still waiting.
        #expect(try Self.send(a, "where").result?.route == "account/profile")
        #expect(try Self.send(a, "account whoami").result?.lines.first == "── Logged in as ann@example.com ──")
        let cartB = try #require(try Self.send(b, "cart show").result)
        #expect(cartB.lines.contains { $0.contains("#3   Leather Boots") }, "\(cartB.lines)")
        #expect(try Self.send(b, "queue").result?.lines.contains { $0.contains("cartCheckout() waiting for user") } == true)
        let cartA = try #require(try Self.send(a, "cart show").result)
        #expect(!cartA.lines.contains { $0.contains("Leather Boots") }, "A's cart is A's: \(cartA.lines)")
        // C goes on in the new worker.
        #expect(try Self.send(c, "crash now fine").error == nil)
        #expect(server.logText.contains("error coordsh.serve: [CoordServe] the app process crashed running 'crash now index'"), "\(server.logText)")
        #expect(try server.stop() == 0)
    }

    @Test("upgrade: crasher 2.0.0 dropped in with two scenes attached; both keep page and user and see its new page; a 3.0.0 that traps on load leaves 2.0.0 serving")
    func upgradeWithoutRestart() throws {
        let server = try Self.serverWithCrasher()
        let (a, b) = (try ServeTests.attach(server), try ServeTests.attach(server))
        #expect(try Self.send(a, "account login ann@example.com", secrets: ["correct horse battery"]).error == nil)
        #expect(try Self.send(b, "content show 9").error == nil)
        #expect(try Self.send(b, "cart add 9").error == nil)
        let before = try Self.send(a, "open crasher/news").error
        #expect(before?.hasPrefix("unknown_page: unknown page 'crasher/news'") == true, "\(String(describing: before))")
        // Installed as a new file renamed over the old (as install(1) does): a file rewritten
        // in place under a process that has it mapped is not an upgrade, it is a crash.
        let plugins = server.folder + "/plugins"
        try FixtureBuilder.buildCrasher(output: plugins + "/.libcrasher.so.new", version: 2)
        #expect(rename(plugins + "/.libcrasher.so.new", plugins + "/libcrasher.so") == 0)
        let upgraded = "upgraded: crasher 2.0.0 (was 1.0.0); 2 scenes were handed over to the new app process"
        for client in [a, b] {
            #expect(try Self.notes(client, until: "upgraded:", server: server).contains(upgraded))
        }
        #expect(try Self.send(a, "where").result?.route == "account/profile")
        #expect(try Self.send(a, "account whoami").result?.lines.first == "── Logged in as ann@example.com ──")
        #expect(try Self.send(b, "where").result?.route == "cart/cart")
        #expect(try Self.send(b, "cart show").result?.lines.contains { $0.contains("Red Sneakers") } == true)
        for client in [a, b] {
            #expect(try Self.send(client, "open crasher/news").result?.lines == ["── News ──", "version 2 is here"])
            #expect(try ServeTests.complete(client, "open crasher/n", word: "crasher/n") == ["crasher/news"])
        }

        try FixtureBuilder.buildCrasher(output: plugins + "/.libcrasher.so.new", version: 3)
        #expect(rename(plugins + "/.libcrasher.so.new", plugins + "/libcrasher.so") == 0)
        let failed = try Self.notes(a, until: "upgrade failed", server: server)
        #expect(failed.contains { $0.hasPrefix("upgrade failed: the new app process did not load crasher (") && $0.hasSuffix("; the running version keeps serving") }, "\(failed)")
        #expect(try Self.send(a, "where").result?.route == "crasher/news")
        #expect(try Self.send(b, "open crasher/news").result?.lines == ["── News ──", "version 2 is here"])
        #expect(try server.stop() == 0)
    }
}
