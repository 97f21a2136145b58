@_spi(Host) import CoordSDK
import Testing

/// A feature's messages as an enum, written by hand as `@Messages` writes it (the macro's own
/// expansions are checked in coordsh's MacroTests; these tests need no compiler plugin).
enum DepotMessage: FeatureMessage {
    case stock(id: Int, count: Int?)
    case restock(note: String?)
    case open(card: Secret)

    static let prefix = "depot"
    static let specs: [MessageSpec] = [
        MessageSpec("stock", [Parameter("id", .int), Parameter("count", .int, optional: true)]),
        MessageSpec("restock", [Parameter("note", .string, optional: true)]),
        MessageSpec("open", [Parameter("card", .string, secret: true)]),
    ]
    enum Verb: String, CaseIterable, Sendable { case stock, restock, open }
    var verb: Verb {
        switch self {
        case .stock: .stock
        case .restock: .restock
        case .open: .open
        }
    }
    init?(_ message: Message) throws(CoordError) {
        switch message.name.string {
        case "depotStock": self = .stock(id: try message.arguments.require("id", as: Int.self), count: message.arguments.value("count", as: Int.self))
        case "depotRestock": self = .restock(note: message.arguments.value("note", as: String.self))
        case "depotOpen": self = .open(card: try message.arguments.require("card", as: Secret.self))
        default: return nil
        }
    }
    var arguments: Arguments {
        switch self {
        case .stock(let id, let count): Arguments(omittingNil: [("id", id.argumentValue), ("count", count?.argumentValue)])
        case .restock(let note): Arguments(omittingNil: [("note", note?.argumentValue)])
        case .open(let card): Arguments(omittingNil: [("card", card.argumentValue)])
        }
    }
}

/// The depot's one page.
enum DepotPage: Page {
    case shelf
    static let feature = "depot"
    static let cases = [PageCase("shelf") { _ in DepotPage.shelf }]
    var name: String { "shelf" }
    var arguments: Arguments { Arguments() }
}

@Suite("Typed messages, display and send by name")
@MainActor
struct TypedMessageTests {
    static let clock = ServiceKey<String>("clock")

    /// app → scene → the depot's coordinator (started by the first message) and a shop page to
    /// send from; the depot records what its one switch saw.
    func world(_ recorder: Recorder) throws -> (AppCoordinator, SceneCoordinator, PageView) {
        let app = AppCoordinator()
        let depot = FeatureDefinition(name: "depot", pages: DepotPage.self, messages: DepotMessage.self) {
            let coordinator = Coordinator(identifier: "depot")
            coordinator.handle(
                DepotMessage.self, needs: [.restock: [Self.clock.key]],
                whileWaiting: [.restock: { _, missing in recorder.log.append("waits for \(missing.map(\.name))"); return nil }]
            ) { message, original in
                switch message {
                case .stock(let id, let count): recorder.log.append("stock \(id) × \(count ?? 1)")
                case .restock(let note): recorder.log.append("restock \(note ?? "-")")
                case .open(let card): recorder.log.append("open \(card) \(card.text.count) chars")
                }
                #expect(original.name == message.name)
                return .handled
            }
            return coordinator
        }
        try app.register([shopDefinition(recorder), depot], origin: nil)
        let scene = app.makeScene(identifier: "s")
        let (_, view) = try chain(depth: 1, in: scene)
        return (app, scene, view)
    }

    @Test("the prefix and declarations come from the enum; one switch gets typed values, secrets do not print")
    func typed() throws {
        let recorder = Recorder()
        let (app, _, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let feature = try #require(app.features.feature(named: "depot"))
        #expect(feature.definition.prefix == "depot")
        #expect(feature.definition.messages.map(\.signature) == ["stock id:int count:int?", "restock note:string?", "open card:string"])
        #expect(feature.definition.messages[2].arguments[0].isSecret)
        #expect(try view.send("depotStock", ["id": 4]) == .handled)
        #expect(try view.send(DepotMessage.stock(id: 5, count: 2)) == .handled)
        #expect(try view.send("depotOpen", ["card": Secret("4242424242424242")]) == .handled)
        #expect(recorder.log == ["stock 4 × 1", "stock 5 × 2", "open (secret) 16 chars"])
    }

    @Test("send by name with a wrong type or name is one line for the sender, and no handler runs")
    func sendRefused() throws {
        let recorder = Recorder()
        let (app, _, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        #expect(throws: CoordError.malformedMessage("depotStock", reason: "id must be an int, got a string", expected: "depotStock id:int count:int?")) {
            try view.send("depotStock", ["id": "four"])
        }
        #expect(throws: CoordError.self) { try view.send("depotSell", ["id": 4]) }
        #expect(recorder.log.isEmpty)
    }

    @Test("needs are per verb: restock waits for its service and replays; stock does not wait")
    func perVerbNeeds() throws {
        let recorder = Recorder()
        let (app, _, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        #expect(try view.send(DepotMessage.restock(note: "monday")) == .queued)
        #expect(try view.send(DepotMessage.stock(id: 1, count: nil)) == .handled)
        app.provide(Self.clock, "tick")
        #expect(recorder.log == ["waits for [\"clock\"]", "stock 1 × 1", "restock monday"])
    }

    @Test("display shows a page of this feature or another by route; a malformed route sends nothing")
    func display() throws {
        let recorder = Recorder()
        let (app, scene, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        try view.display(route: "shop/item id=3 note='a b'")
        #expect(scene.currentView?.page.route.description == #"shop/item id=3 note="a b""#)
        try view.display(ShopPage.item(id: 4, note: nil))
        #expect(scene.currentView?.page.route.description == "shop/item id=4")
        for bad in ["shop/item id=x", "nowhere/page", "shop/item id=1 id=2", "coordsh://shop/item?id=%zz"] {
            #expect(throws: CoordError.self, "\(bad)") { try view.display(route: bad) }
            #expect(scene.currentView?.page.route.description == "shop/item id=4", "\(bad)")
        }
    }
}
