@_spi(Host) import CoordSDK
import Testing

@Suite("Messages on the responder chain")
@MainActor
struct ChainTests {
    static let clock = ServiceKey<String>("clock")
    static let ping = MessageName("globalPing")

    func app(_ recorder: Recorder) throws -> (AppCoordinator, SceneCoordinator) {
        let app = AppCoordinator()
        try app.register([shopDefinition(recorder)], origin: nil)
        return (app, app.makeScene(identifier: "s"))
    }

    @Test("a feature message bubbles to the root, which starts the feature lazily and reuses it")
    func routing() throws {
        let recorder = Recorder()
        let (app, scene) = try app(recorder)
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (_, view) = try chain(depth: 3, in: scene)
        #expect(scene.child(identifier: "shop") == nil)
        let trace = DispatchTrace(message: "buy")
        #expect(try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(7))]), from: view), trace: trace) == .handled)
        let shop = try #require(scene.child(identifier: "shop"))
        #expect(trace.hops.map(\.level) == ["page shop/home", "coordinator c2", "coordinator c1", "coordinator c0", "scene s", "app", "coordinator shop"])
        #expect(trace.hops[5].action == .routed(to: "coordinator shop"))
        #expect(trace.hops[6].action == .handled)
        try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(8))]), from: view))
        #expect(scene.child(identifier: "shop") === shop)
        #expect(recorder.log == ["shop bought 7", "shop bought 8"])
    }

    @Test("any level may handle and pass on; the root still gets it")
    func handleAndPassOn() throws {
        let recorder = Recorder()
        let (app, scene) = try app(recorder)
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (coordinators, view) = try chain(depth: 2, in: scene)
        coordinators[0].handle(Self.ping) { _ in recorder.log.append("c0"); return .handledAndPassOn }
        coordinators[1].handle(Self.ping) { _ in recorder.log.append("c1"); return .passOn }
        app.handle(Self.ping) { _ in recorder.log.append("app"); return .handled }
        #expect(try view.send(Message(Self.ping, from: view)) == .handled)
        // c1 is nearer the page, so it sees the message first.
        #expect(recorder.log == ["c1", "c0", "app"])
    }

    @Test("a message nobody handles is an error with a suggestion, never a silent drop")
    func unhandled() throws {
        let (app, scene) = try app(Recorder())
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (_, view) = try chain(depth: 1, in: scene)
        do {
            try view.send(Message(MessageName("shopBuyy"), from: view))
            Issue.record("unhandled message was accepted")
        } catch let error as CoordError {
            // The feature exists and has no verb 'buyy' (nor one close to it): an unknown verb.
            #expect(error.code == "unknown_verb")
            #expect(error.message == "'shop' has no command 'buyy'; try 'help shop'")
        }
        do {
            try view.send(Message(MessageName("shpBuy"), from: view))
            Issue.record("message of an unknown feature was accepted")
        } catch let error as CoordError {
            #expect(error.message == "unknown message 'shpBuy' (did you mean 'shopBuy'?)")
        }
    }

    @Test("a handler missing a dependency queues at its own level and replays when it arrives", arguments: [0, 1, 2])
    func queueAtEveryLevel(level: Int) throws {
        let recorder = Recorder()
        let (app, scene) = try app(recorder)
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (coordinators, view) = try chain(depth: 2, in: scene)
        let levels: [Responder] = [view, coordinators[1], coordinators[0]]
        let target = levels[level]
        target.handle(Self.ping, needs: [Self.clock.key]) { [unowned target] message in
            let n = message.arguments.int("n") ?? 0
            recorder.log.append("\(target.identifier) saw \(target.dependencies?[Self.clock] ?? "nil") \(n)")
            return .handled
        }
        var events: [DispatchEvent] = []
        app.eventSink = { events.append($0) }
        for n in 1...3 {
            #expect(try view.send(Message(Self.ping, Arguments([("n", .int(n))]), from: view)) == .queued)
        }
        #expect(target.queuedMessages.map(\.waitingFor) == [["clock"], ["clock"], ["clock"]])
        #expect(recorder.log.isEmpty)
        app.provide(Self.clock, "tick")
        // Replayed in the order they were sent.
        #expect(recorder.log == (1...3).map { "\(target.identifier) saw tick \($0)" })
        #expect(target.queuedMessages.isEmpty)
        #expect(events.map(\.isFailure) == [false, false, false, false, false, false])
    }

    @Test("queues are bounded: overflow is refused to the sender")
    func bounded() throws {
        let (app, scene) = try app(Recorder())
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (coordinators, view) = try chain(depth: 1, in: scene)
        coordinators[0].queueCapacity = 2
        coordinators[0].handle(Self.ping, needs: [Self.clock.key]) { _ in .handled }
        #expect(try view.send(Message(Self.ping, from: view)) == .queued)
        #expect(try view.send(Message(Self.ping, from: view)) == .queued)
        #expect(throws: CoordError.queueFull(message: "globalPing", at: "coordinator c0", capacity: 2)) {
            try view.send(Message(Self.ping, from: view))
        }
    }

    @Test("messages queued at a coordinator that stops are reported as dropped")
    func droppedOnStop() throws {
        let (app, scene) = try app(Recorder())
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (coordinators, view) = try chain(depth: 2, in: scene)
        coordinators[1].handle(Self.ping, needs: [Self.clock.key]) { _ in .handled }
        var events: [DispatchEvent] = []
        app.eventSink = { events.append($0) }
        try view.send(Message(Self.ping, from: view))
        coordinators[0].stopChild(coordinators[1])
        #expect(events.last == .dropped(message: "globalPing()", at: "coordinator c1", reason: "coordinator c1 stopped"))
    }

    @Test("the cached fast path and the traced walk agree, also after the tree changes")
    func fastPathMatchesTrace() throws {
        let recorder = Recorder()
        let (app, scene) = try app(recorder)
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (coordinators, view) = try chain(depth: 3, in: scene)
        app.handle(Self.ping) { _ in recorder.log.append("app"); return .handled }
        try view.send(Message(Self.ping, from: view))
        try view.send(Message(Self.ping, from: view), trace: DispatchTrace(message: ""))
        // A new handler lower down must be seen by the cached path at once.
        coordinators[1].handle(Self.ping) { _ in recorder.log.append("c1"); return .handled }
        try view.send(Message(Self.ping, from: view))
        try view.send(Message(Self.ping, from: view), trace: DispatchTrace(message: ""))
        #expect(recorder.log == ["app", "app", "c1", "c1"])
    }

    @Test("globalDisplay opens any feature's page from anywhere")
    func globalDisplay() throws {
        let (app, scene) = try app(Recorder())
        defer { withExtendedLifetime(app) {} }  // the host owns the app; the tree holds it weakly
        let (_, view) = try chain(depth: 2, in: scene)
        let request = try RouteRequest.parse("shop/item id=4")
        try view.send(Message(AppCoordinator.globalDisplay, Arguments([("page", .route(request))]), from: view))
        #expect(scene.activeCoordinator?.identifier == "shop")
        #expect(scene.currentView?.page.route == request)
    }
}
