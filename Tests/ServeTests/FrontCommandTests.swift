import CoordClient
import Foundation
import TestSupport
import Testing

/// `restart` and `plugins upgrade` are answered by a supervising front — the supervised shell
/// and a supervised `serve` alike — and declared once (`FrontCommand`): they are in `help` and
/// completion wherever they work, say why in one line where they do not, and `plugins`
/// completes every one of its sub-commands.
@Suite("The front's own commands", .serialized)
struct FrontCommandTests {
    @Test("help and a script: the supervised shell lists restart and plugins upgrade, a restart while the app runs says so in one line; one process lists neither and says why an upgrade cannot be")
    func helpAndAnswers() throws {
        let server = try ServeTests.Server()
        defer { _ = try? server.stop() }
        let script = "help\nrestart\nplugins upgrade\necho done\n"
        let supervised = try server.coordsh(["--supervised", "--keep-going", "--db", server.database], input: script)
        #expect(supervised.stdout.contains("restart") && supervised.stdout.contains("start the app process again after crashes stopped it"), "\(supervised.stdout)")
        #expect(supervised.stdout.contains("plugins [NAME | load PATH | rescan | stats | stats reset | allow NAME | grant NAME [WHAT…] | revoke NAME [WHAT…] | upgrade]"), "\(supervised.stdout)")
        // An upgrade with nothing new to load is refused, as it always was; the restart in one line.
        #expect(supervised.stderr == """
            coordsh: error: restart: the app is running; 'restart' starts it again only once crashes have stopped it
            coordsh: error: upgrade failed: the new app process loaded no new plugin version; the running version keeps serving

            """, "\(supervised.stderr)")
        #expect(supervised.stdout.hasSuffix("done\n") && supervised.status == 1, "\(supervised.stdout)")

        let single = try server.coordsh(["--single-process", "--keep-going", "--db", server.database], input: script)
        #expect(!single.stdout.contains("restart") && !single.stdout.contains("upgrade"), "\(single.stdout)")
        #expect(single.stdout.contains("plugins [NAME | load PATH | rescan | stats | stats reset | allow NAME | grant NAME [WHAT…] | revoke NAME [WHAT…]]"), "\(single.stdout)")
        #expect(single.stderr.contains("coordsh: error: plugins upgrade: this app runs in this very process (--single-process); start it again to load new plugin versions, or run it supervised (the default)"), "\(single.stderr)")
        #expect(single.stdout.hasSuffix("done\n"), "\(single.stdout)")
    }

    @Test("a client that prints text asks for no --json document and gets none; one that asks gets the page in it — served in one process and through a front", arguments: [true, false])
    func documentOnlyWhenAsked(supervised: Bool) throws {
        let server = try ServeTests.Server(arguments: supervised ? [] : ["--single-process"])
        defer { _ = try? server.stop() }
        let client = try ServeTests.attach(server)
        for asked in [false, true] {
            let id = client.newID()
            try client.write(.run(id: id, line: "open content/product id=7", secrets: [], document: asked))
            guard case .result(let result) = try client.answer(to: id) else { throw ServeTests.TestFailure("no result") }
            #expect(result.lines.first?.hasPrefix("── ") == true, "\(result.lines)")
            #expect(result.route == "content/product?id=7" || result.route?.hasPrefix("content/product") == true)
            if asked {
                #expect(result.document?["page"]?["route"]?.string?.hasPrefix("content/product") == true, "\(String(describing: result.document))")
            } else {
                #expect(result.document == nil, "\(String(describing: result.document))")
            }
        }
    }

    @Test("completion: every sub-command of plugins and the loaded plugins' names; restart and upgrade only where a front answers them", arguments: [true, false])
    func completion(supervised: Bool) throws {
        let server = try ServeTests.Server(arguments: supervised ? [] : ["--single-process"])
        defer { _ = try? server.stop() }
        let client = try ServeTests.attach(server)
        let verbs = try ServeTests.complete(client, "plugins ", word: "")
        for verb in ["load", "rescan", "allow", "grant", "revoke", "cart", "payment"] {
            #expect(verbs.contains(verb), "\(supervised): \(verbs)")
        }
        #expect(verbs.contains("upgrade") == supervised, "\(supervised): \(verbs)")
        #expect(try ServeTests.complete(client, "re", word: "re").contains("restart") == supervised)
        #expect(try ServeTests.complete(client, "plugins grant ", word: "").contains("cart"))
        #expect(try ServeTests.complete(client, "plugins grant cart ", word: "") == [])
        // Every built-in completes from its declaration: help's prefix then verb, trace's
        // command line, open's route then the page's parameters.
        let helpFirst = try ServeTests.complete(client, "help ", word: "")
        #expect(helpFirst.contains("cart") && helpFirst.contains("plugins") && helpFirst.contains("content/product"), "\(helpFirst)")
        #expect(try ServeTests.complete(client, "help cart ", word: "").contains("checkout"))
        #expect(try ServeTests.complete(client, "trace cart a", word: "a") == ["add"])
        #expect(try ServeTests.complete(client, "trace ", word: "").contains("open"))
        #expect(try ServeTests.complete(client, "open content/pro", word: "content/pro") == ["content/product"])
        #expect(try ServeTests.complete(client, "open content/product ", word: "") == ["id="])
        #expect(try ServeTests.complete(client, "where ", word: "") == [])
    }
}
