@_spi(Host) import CoordSDK
import Testing

/// A feature message sent by code (another plugin, a replay, a route) is checked against the
/// receiving feature's declaration at the root, before any handler of the feature runs.
@Suite("Messages checked at the feature's door")
@MainActor
struct MessageDoorTests {
    func world(_ recorder: Recorder) throws -> (AppCoordinator, SceneCoordinator, PageView) {
        let app = AppCoordinator()
        try app.register([shopDefinition(recorder)], origin: nil)
        let scene = app.makeScene(identifier: "s")
        let (_, view) = try chain(depth: 1, in: scene)
        return (app, scene, view)
    }

    @Test(
        "a missing, ill-typed, unknown or repeated argument is refused with one line; no handler runs",
        arguments: [
            (Arguments(), "shopBuy: missing id (expected shopBuy id:int)"),
            (Arguments([("id", .string("7"))]), "shopBuy: id must be an int, got a string (expected shopBuy id:int)"),
            (Arguments([("id", .int(7)), ("qty", .int(1))]), "shopBuy: unknown argument 'qty' (expected shopBuy id:int)"),
            (Arguments([("id", .int(7)), ("id", .int(8))]), "shopBuy: argument 'id' given twice (expected shopBuy id:int)"),
        ])
    func refused(arguments: Arguments, expected: String) throws {
        let recorder = Recorder()
        let (app, scene, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        for _ in 0..<2 {  // the second send runs from the dispatch cache
            do {
                try view.send(Message(ShopCoordinator.buy, arguments, from: view))
                Issue.record("a malformed message reached the feature")
            } catch let error as CoordError {
                #expect(error.code == "malformed_message")
                #expect(error.message == expected)
                #expect(!error.message.contains("\n"))
            }
        }
        #expect(recorder.log.isEmpty)
        #expect(scene.child(identifier: "shop") == nil, "a refused message starts no coordinator")
        let trace = DispatchTrace(message: "buy")
        #expect(throws: CoordError.self) { try view.send(Message(ShopCoordinator.buy, arguments, from: view), trace: trace) }
        #expect(trace.hops.last?.level == "app")
        #expect(trace.hops.last?.action == .unhandled)
    }

    @Test("a well-formed message passes the door")
    func accepted() throws {
        let recorder = Recorder()
        let (app, _, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        #expect(try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(3))]), from: view)) == .handled)
        #expect(recorder.log == ["shop bought 3"])
    }

    @Test("a message waiting in a queue below the root is checked when its replay reaches the root")
    func replayChecked() throws {
        let recorder = Recorder()
        let (app, scene, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let clock = ServiceKey<String>("clock")
        let level = try #require(scene.children.first)
        level.handle(ShopCoordinator.buy, needs: [clock.key]) { _ in recorder.log.append("c0 saw it"); return .passOn }
        var events: [DispatchEvent] = []
        app.eventSink = { events.append($0) }
        #expect(try view.send(Message(ShopCoordinator.buy, Arguments([("id", .string("x"))]), from: view)) == .queued)
        app.provide(clock, "tick")
        #expect(recorder.log == ["c0 saw it"])
        #expect(events.last == .replayFailed(
            message: "shopBuy(id: x)", at: "coordinator c0",
            error: "shopBuy: id must be an int, got a string (expected shopBuy id:int)"))
    }

    @Test("a feature's undeclared message, handled on the way up for its children, is not checked")
    func undeclaredUnchecked() throws {
        let recorder = Recorder()
        let (app, scene, view) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let refresh = MessageName("shopRefresh")
        let level = try #require(scene.children.first)
        level.handle(refresh) { message in recorder.log.append("refresh \(message.arguments.values.count)"); return .handled }
        #expect(try view.send(Message(refresh, Arguments([("anything", .bool(true))]), from: view)) == .handled)
        #expect(recorder.log == ["refresh 1"])
    }

    @Test("typed accessors throw instead of trapping on an argument that is not there")
    func accessors() throws {
        let message = Message(ShopCoordinator.buy, Arguments([("id", .string("7"))]))
        #expect(throws: CoordError.malformedMessage("shopBuy", reason: "id must be an int", expected: "shopBuy id:int")) {
            try message.int("id")
        }
        #expect(throws: CoordError.malformedMessage("shopBuy", reason: "missing note", expected: "shopBuy note:string")) {
            try message.string("note")
        }
        #expect(try message.string("id") == "7")
        let flags = Message(ShopCoordinator.buy, Arguments([("gift", .bool(true)), ("then", .route(RouteRequest(feature: "shop", page: "home")))]))
        #expect(try flags.bool("gift"))
        #expect(try flags.route("then") == RouteRequest(feature: "shop", page: "home"))
        #expect(throws: CoordError.malformedMessage("shopBuy", reason: "gift must be a route", expected: "shopBuy gift:route")) {
            try flags.route("gift")
        }
        #expect(throws: CoordError.malformedMessage("shopBuy", reason: "missing wrap", expected: "shopBuy wrap:bool")) {
            try flags.bool("wrap")
        }
        #expect(flags.arguments == Arguments([("gift", .bool(true)), ("then", .route(RouteRequest(feature: "shop", page: "home")))]))
        #expect(flags.arguments != Arguments([("gift", .bool(false)), ("then", .route(RouteRequest(feature: "shop", page: "home")))]))
        #expect(flags.arguments != Arguments([("gift", .bool(true))]))
        #expect(Arguments().isEmpty && !flags.arguments.isEmpty)
        #expect(flags.arguments.bool("gift") == true && flags.arguments.bool("then") == nil)
    }

    @Test("a bool is typed as true/false, yes/no, 1/0 or on/off, in any case; anything else is refused")
    func boolWords() {
        for word in ["true", "YES", "1", "On"] { #expect(ValueType.bool.parse(word) == .bool(true), "\(word)") }
        for word in ["false", "no", "0", "OFF"] { #expect(ValueType.bool.parse(word) == .bool(false), "\(word)") }
        for word in ["", "maybe", "2", "truee"] { #expect(ValueType.bool.parse(word) == nil, "\(word)") }
    }
}
