import CoordClient
import CoordProtocol
import Foundation
import TestSupport
import Testing

/// `plugins stats` under `serve`: the figures of the whole app, and each client's share.
@Suite("What each plugin's code cost, per client")
struct ServedStatsTests {
    static func run(_ client: ServerConnection, _ line: String, document: Bool = false) throws -> ServerReply.RunResult {
        let id = client.newID()
        try client.write(.run(id: id, line: line, secrets: [], document: document))
        guard case .result(let result) = try client.answer(to: id) else { throw ServeTests.TestFailure("no result for \(line)") }
        #expect(result.error == nil, "\(line): \(String(describing: result.error))")
        return result
    }

    /// The runs of `plugin` in a list of plugin figures.
    static func runs(_ plugins: JSONValue?, _ plugin: String) -> Int? {
        plugins?.array?.first { $0["plugin"]?.string == plugin }?["runs"]?.int
    }

    @Test("two clients of a supervised serve: the app's figures are both clients' together, and each client's are its own")
    func perClient() throws {
        let server = try ServeTests.Server()
        defer { _ = try? server.stop() }
        let ann = try ServeTests.attach(server), bob = try ServeTests.attach(server)
        _ = try Self.run(ann, "cart add 3")
        _ = try Self.run(ann, "cart add 4")
        _ = try Self.run(bob, "cart add 5")
        _ = try Self.run(bob, "content show 9")
        let stats = try Self.run(ann, "plugins stats", document: true)
        let document = try #require(stats.document)
        // cart: three adds and the cart page each showed; content: one show and its page, and
        // the home page each scene opened at its hello (the front's probe scene's too).
        #expect(Self.runs(document["plugins"], "cart") == 6 && Self.runs(document["plugins"], "content") == 5, "\(document)")
        let clients = try #require(document["clients"]?.object, "\(document)")
        #expect(Set(clients.keys) == ["probe", "c1", "c2"], "\(clients.keys)")
        // Each client's share is its own, and the shares add up to the app's figures.
        let shares = clients.mapValues { (cart: Self.runs($0, "cart") ?? 0, content: Self.runs($0, "content") ?? 0) }
        #expect(shares["c1"].map { $0.cart == 4 && $0.content == 1 } == true && shares["c2"].map { $0.cart == 2 && $0.content == 3 } == true, "\(shares)")
        #expect(shares.values.map(\.cart).reduce(0, +) == 6 && shares.values.map(\.content).reduce(0, +) == 5, "\(shares)")
        #expect(stats.lines.contains("per client:"), "\(stats.lines)")
    }
}
