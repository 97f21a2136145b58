@_spi(Host) import CoordSDK
import Testing

/// Several scenes under one app: app-wide services reach all of them, a scene's own services
/// reach only that scene, and each scene has its own features, pages, queue and events.
@Suite("Scenes")
@MainActor
struct SceneTests {
    static let clock = ServiceKey<String>("clock")
    static let user = ServiceKey<String>("sceneUser")
    static let ping = MessageName("globalPing")

    /// An app with the shop feature and three scenes, each with a two-deep chain and a page.
    struct World {
        let app: AppCoordinator
        let recorder: Recorder
        let scenes: [SceneCoordinator]
        let chains: [(coordinators: [Coordinator], view: PageView)]
    }

    func world(scenes count: Int = 3) throws -> World {
        let app = AppCoordinator()
        let recorder = Recorder()
        try app.register([shopDefinition(recorder)], origin: nil)
        let scenes = (0..<count).map { app.makeScene(identifier: "s\($0)") }
        return World(app: app, recorder: recorder, scenes: scenes, chains: try scenes.map { try chain(depth: 2, in: $0) })
    }

    /// Every level of a scene: the scene, its coordinators and its page.
    func levels(_ world: World, _ index: Int) -> [Responder] {
        [world.scenes[index]] + world.chains[index].coordinators + [world.chains[index].view]
    }

    @Test("an app-wide service reaches every level of every open scene, and scenes opened later")
    func appWide() throws {
        let w = try world()
        w.app.provide(Self.clock, "tick")
        for index in w.scenes.indices {
            #expect(levels(w, index).allSatisfy { $0.dependencies?[Self.clock] == "tick" })
        }
        let late = w.app.makeScene(identifier: "late")
        #expect(late.dependencies?[Self.clock] == "tick")
    }

    @Test("a scene's own service reaches that scene only, and survives an app-wide rebuild")
    func sceneOnly() throws {
        let w = try world()
        w.scenes[1].provide(Self.user, "ann", provider: "account")
        #expect(levels(w, 1).allSatisfy { $0.dependencies?[Self.user] == "ann" })
        #expect(levels(w, 0).allSatisfy { $0.dependencies?[Self.user] == nil })
        #expect(levels(w, 2).allSatisfy { $0.dependencies?[Self.user] == nil })
        #expect(w.app.dependencies?[Self.user] == nil)
        #expect(w.chains[1].view.dependencies?.provider(of: Self.user.key) == "account, scene s1")

        w.scenes[2].provide(Self.user, "bob", provider: "account")
        w.app.provide(Self.clock, "tock")  // a plugin loaded: the app rebuilds and pushes down
        #expect(w.chains[1].view.dependencies?[Self.user] == "ann")
        #expect(w.chains[2].view.dependencies?[Self.user] == "bob")
        #expect(levels(w, 1).allSatisfy { $0.dependencies?[Self.clock] == "tock" })

        w.scenes[1].provide(Self.user, nil, provider: "account")  // logged out there
        #expect(w.chains[1].view.dependencies?[Self.user] == nil)
        #expect(w.chains[2].view.dependencies?[Self.user] == "bob")
    }

    @Test("a scene's service is laid over the app's slot of the same name, which shows again when it goes")
    func overlay() throws {
        let w = try world(scenes: 2)
        w.app.provide(Self.clock, "app clock")
        w.scenes[0].provide(Self.clock, "scene clock", provider: "host")
        #expect(w.chains[0].view.dependencies?[Self.clock] == "scene clock")
        #expect(w.chains[1].view.dependencies?[Self.clock] == "app clock")
        #expect(w.scenes[0].sceneService(Self.clock) == "scene clock")
        #expect(w.scenes[0].sceneServiceNames == ["clock"])
        w.scenes[0].provide(Self.clock, nil, provider: "host")
        #expect(w.chains[0].view.dependencies?[Self.clock] == "app clock")
    }

    @Test("provideInScene from a page sets its own scene's slot, named after its feature coordinator")
    func provideFromPage() throws {
        let w = try world(scenes: 2)
        try w.chains[0].view.provideInScene(Self.user, "ann")
        #expect(w.scenes[0].sceneService(Self.user) == "ann")
        #expect(w.scenes[1].sceneService(Self.user) == nil)
        #expect(w.chains[0].view.dependencies?.provider(of: Self.user.key) == "c0, scene s0")
        let loose = Coordinator(identifier: "loose")
        #expect(throws: CoordError.self) { try loose.provideInScene(Self.user, "x") }
    }

    @Test("a message waiting for a scene's service replays in that scene only, when that scene gets it", arguments: [0, 1, 2])
    func replayPerScene(level: Int) throws {
        let w = try world(scenes: 2)
        let recorder = w.recorder  // the handlers capture it, not the world (which holds the app)
        for index in w.scenes.indices {
            let target = [w.chains[index].view, w.chains[index].coordinators[1], w.chains[index].coordinators[0]][level]
            target.handle(Self.ping, needs: [Self.user.key]) { [unowned target] _ in
                recorder.log.append("\(target.scene?.identifier ?? "?") as \(target.dependencies?[Self.user] ?? "nil")")
                return .handled
            }
            #expect(try w.chains[index].view.send(Message(Self.ping, from: w.chains[index].view)) == .queued)
        }
        w.scenes[1].provide(Self.user, "bob", provider: "account")
        #expect(w.recorder.log == ["s1 as bob"])
        w.app.provide(Self.clock, "tick")  // an app-wide change does not give scene 0 a user
        #expect(w.recorder.log == ["s1 as bob"])
        #expect(w.chains[0].view.queuedMessages.count + w.chains[0].coordinators.map(\.queuedMessages.count).reduce(0, +) == 1)
        w.scenes[0].provide(Self.user, "ann", provider: "account")
        #expect(w.recorder.log == ["s1 as bob", "s0 as ann"])
    }

    @Test("a message waiting for an app-wide service replays in every scene when it arrives")
    func replayEverywhere() throws {
        let w = try world()
        let recorder = w.recorder  // the handlers capture it, not the world (which holds the app)
        for index in w.scenes.indices {
            let target = w.chains[index].coordinators[0]
            target.handle(Self.ping, needs: [Self.clock.key]) { [unowned target] _ in
                recorder.log.append("\(target.scene?.identifier ?? "?") at \(target.dependencies?[Self.clock] ?? "nil")")
                return .handled
            }
            #expect(try w.chains[index].view.send(Message(Self.ping, from: w.chains[index].view)) == .queued)
        }
        w.app.provide(Self.clock, "noon")
        #expect(w.recorder.log.sorted() == ["s0 at noon", "s1 at noon", "s2 at noon"])
    }

    @Test("each scene starts its own feature coordinator, lazily, in the scene the message came from")
    func featurePerScene() throws {
        let w = try world(scenes: 2)
        let buy = { (index: Int, id: Int) in
            try w.chains[index].view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(id))]), from: w.chains[index].view))
        }
        _ = try buy(1, 5)
        #expect(w.scenes[0].child(identifier: "shop") == nil)
        let shop1 = try #require(w.scenes[1].child(identifier: "shop"))
        _ = try buy(0, 6)
        let shop0 = try #require(w.scenes[0].child(identifier: "shop"))
        #expect(shop0 !== shop1)
        _ = try buy(1, 7)
        #expect(w.scenes[1].child(identifier: "shop") === shop1)
        #expect(w.recorder.log == ["shop bought 5", "shop bought 6", "shop bought 7"])
    }

    @Test("each scene has its own page stack, and globalDisplay opens the page in the sender's scene")
    func navigationPerScene() throws {
        let w = try world(scenes: 2)
        let request = RouteRequest(feature: "shop", page: "item", arguments: [.init("id", "3")])
        try w.chains[1].view.send(Message(AppCoordinator.globalDisplay, Arguments([("page", .route(request))]), from: w.chains[1].view))
        #expect(w.scenes[1].currentView?.page.route.description == "shop/item id=3")
        #expect(w.scenes[0].currentView?.page.route.description == "shop/home")
    }

    @Test("events reported inside a scene go to that scene's sink, not another's")
    func eventsPerScene() throws {
        let w = try world(scenes: 2)
        var heard: [[String]] = [[], []]
        var appHeard: [String] = []
        w.app.eventSink = { appHeard.append($0.description) }
        for index in w.scenes.indices { w.scenes[index].eventSink = { heard[index].append($0.description) } }
        w.chains[1].coordinators[1].report(.note("hello one"))
        #expect(heard == [[], ["hello one"]])
        w.scenes[0].eventSink = nil
        w.chains[0].view.report(.note("hello zero"))
        #expect(appHeard == ["hello zero"])
    }

    @Test("closing a scene tells its coordinators, reports its queue as dropped, and leaves the others alone")
    func close() throws {
        let w = try world()
        final class Closing: Coordinator {
            var onClose: () -> Void = {}
            override func sceneWillClose() { onClose() }
        }
        var closed: [String] = []
        let outer = Closing(identifier: "outer"), inner = Closing(identifier: "inner")
        outer.onClose = { closed.append("outer") }
        inner.onClose = { closed.append("inner") }
        w.scenes[1].startChild(outer)
        outer.startChild(inner)
        var dropped: [String] = []
        w.scenes[1].eventSink = { dropped.append($0.description) }
        inner.handle(Self.ping, needs: [Self.user.key]) { _ in .handled }
        #expect(try inner.send(Message(Self.ping, from: inner)) == .queued)

        w.app.closeScene(w.scenes[1])
        #expect(closed == ["inner", "outer"])
        #expect(dropped.contains { $0 == "globalPing() dropped at coordinator inner: scene s1 closed" }, "\(dropped)")
        #expect(w.app.scenes.map(\.identifier) == ["s0", "s2"])
        #expect(w.chains[1].view.parent == nil)
        #expect(w.chains[0].view.parent != nil && w.chains[2].coordinators[1].isStarted)
        w.app.provide(Self.clock, "after")
        #expect(w.chains[2].view.dependencies?[Self.clock] == "after")
    }

    @Test("opening a scene under a taken identifier closes the old one first")
    func uniqueIdentifiers() throws {
        let w = try world(scenes: 2)
        let again = w.app.makeScene(identifier: "s0")
        #expect(w.app.scenes.count == 2)
        #expect(w.app.scenes.contains { $0 === again })
        #expect(w.scenes[0].parent == nil)
    }

    @Test("a feature message from outside every scene is refused when several are open, run when one is")
    func senderOutsideScenes() throws {
        let w = try world(scenes: 2)
        let loose = Coordinator(identifier: "loose")
        w.app.startChild(loose)
        let message = Message(ShopCoordinator.buy, Arguments([("id", .int(1))]), from: loose)
        #expect(throws: CoordError.self) { try loose.send(message) }
        #expect(w.recorder.log.isEmpty)
        w.app.closeScene(w.scenes[1])
        try loose.send(message)
        #expect(w.recorder.log == ["shop bought 1"])
        #expect(w.scenes[0].child(identifier: "shop") != nil)
    }
}
