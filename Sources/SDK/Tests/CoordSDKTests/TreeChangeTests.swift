@_spi(Host) import CoordSDK
import Testing

/// A handler may change the tree while its message is in flight: navigate, stop a coordinator
/// (its own or one above it), replace or remove a handler, send another message. Each test
/// sends twice or more, so that the second send runs from the dispatch cache (the single-handler
/// fast path or a cached multi-step path) and the change happens under it, and asserts the
/// documented outcome (`DispatchExecutor`): the send goes on from the handling level's current
/// parent, or ends if that level left the tree.
@Suite("Handlers that change the tree while their message is in flight")
@MainActor
struct TreeChangeTests {
    static let ping = MessageName("globalPing")
    static let buy = ShopCoordinator.buy

    func world(_ recorder: Recorder) throws -> (AppCoordinator, SceneCoordinator) {
        let app = AppCoordinator()
        try app.register([shopDefinition(recorder)], origin: nil)
        return (app, app.makeScene(identifier: "s"))
    }

    @Test(
        "a single cached handler that navigates and lets the message go on: it goes on from the handler's parent",
        arguments: [Disposition.passOn, .handledAndPassOn])
    func navigatesAndPassesOn(disposition: Disposition) throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 2, in: scene)
        var pages = 0
        coordinators[1].handle(Self.buy) { [unowned owner = coordinators[1]] _ in
            recorder.log.append("c1")
            pages += 1
            try owner.show(ShopPage.item(id: pages, note: nil))  // navigation: the epoch moves
            return disposition
        }
        let message = Message(Self.buy, Arguments([("id", .int(7))]), from: view)
        for _ in 0..<3 { #expect(try view.send(message) == .handled) }
        // The root routed it to the shop feature each time, after c1 had navigated.
        #expect(recorder.log == ["c1", "shop bought 7", "c1", "shop bought 7", "c1", "shop bought 7"])
        #expect(coordinators[1].viewStack.count == 4)
    }

    @Test("a global message handled-and-passed-on by a navigating handler ends handled at the top")
    func navigatesGlobal() throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 3, in: scene)
        var pages = 0
        coordinators[2].handle(Self.ping) { [unowned owner = coordinators[2]] _ in
            recorder.log.append("c2")
            pages += 1
            try owner.show(ShopPage.item(id: pages, note: nil))
            return .handledAndPassOn
        }
        coordinators[0].handle(Self.ping) { _ in recorder.log.append("c0"); return .passOn }
        for _ in 0..<3 { #expect(try view.send(Message(Self.ping, from: view)) == .handled) }
        #expect(recorder.log == ["c2", "c0", "c2", "c0", "c2", "c0"])
    }

    @Test("a handler that removes a later level's handler: that handler does not run, the message goes on")
    func removesLaterHandler() throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 3, in: scene)
        var calls = 0
        coordinators[2].handle(Self.ping) { [unowned later = coordinators[1]] _ in
            calls += 1
            recorder.log.append("c2")
            if calls == 2 { later.removeHandler(Self.ping) }
            return .passOn
        }
        coordinators[1].handle(Self.ping) { _ in recorder.log.append("c1"); return .passOn }
        app.handle(Self.ping) { _ in recorder.log.append("app"); return .handled }
        for _ in 0..<3 { #expect(try view.send(Message(Self.ping, from: view)) == .handled) }
        #expect(recorder.log == ["c2", "c1", "app", "c2", "app", "c2", "app"])
    }

    @Test("a handler that replaces a later level's handler: the new one runs in the same send")
    func replacesLaterHandler() throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 3, in: scene)
        var calls = 0
        coordinators[2].handle(Self.ping) { [unowned later = coordinators[0]] _ in
            calls += 1
            recorder.log.append("c2")
            if calls == 2 { later.handle(Self.ping) { _ in recorder.log.append("new c0"); return .handled } }
            return .passOn
        }
        coordinators[0].handle(Self.ping) { _ in recorder.log.append("old c0"); return .handled }
        for _ in 0..<3 { #expect(try view.send(Message(Self.ping, from: view)) == .handled) }
        #expect(recorder.log == ["c2", "old c0", "c2", "new c0", "c2", "new c0"])
    }

    @Test(
        "a handler that stops the coordinator owning a later step: the later handler never runs and the send ends",
        arguments: [Disposition.passOn, .handledAndPassOn])
    func stopsLaterStep(disposition: Disposition) throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 3, in: scene)
        weak let stopped: Coordinator? = coordinators[1]
        var calls = 0
        coordinators[2].handle(Self.ping) { [unowned scene = coordinators[0], unowned later = coordinators[1]] _ in
            calls += 1
            recorder.log.append("c2")
            if calls == 2 {
                scene.stopChild(later)  // takes c2, the handling level, out of the tree as well
                #expect(stopped != nil, "a stopped coordinator lives until the send returns")
            }
            return disposition
        }
        coordinators[1].handle(Self.ping) { _ in recorder.log.append("c1"); return .passOn }
        app.handle(Self.ping) { _ in recorder.log.append("app"); return .handled }
        #expect(try view.send(Message(Self.ping, from: view)) == .handled)
        let second = Result { try view.send(Message(Self.ping, from: view)) }
        switch disposition {
        case .passOn:
            #expect(throws: CoordError.leftTree(message: "globalPing", level: "coordinator c2")) { try second.get() }
        default:
            #expect(try second.get() == .handled)
        }
        #expect(recorder.log == ["c2", "c1", "app", "c2"])
        #expect(coordinators[0].children.isEmpty)
    }

    @Test(
        "a handler that stops and releases its own coordinator: it lives until the send returns, which ends there",
        arguments: [Disposition.handled, .passOn, .handledAndPassOn])
    func stopsItsOwnCoordinator(disposition: Disposition) throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        // No other level handles the message: the second send runs the single-handler fast
        // path, where nothing but the reclaimer keeps the coordinator alive.
        weak var released: Coordinator?
        var view: PageView?
        do {
            let doomed = Coordinator(identifier: "doomed")
            scene.startChild(doomed)
            released = doomed
            view = try doomed.show(ShopPage.home)
            var calls = 0
            doomed.handle(Self.ping) { [unowned scene] _ in
                calls += 1
                recorder.log.append("doomed")
                guard calls == 2 else { return .handled }
                // The scene holds the only strong reference; stopping lets go of it.
                @MainActor func stop() { if let own = scene.child(identifier: "doomed") { scene.stopChild(own) } }
                stop()
                // Retired, not freed: the handler may still use its coordinator.
                #expect(released != nil, "a stopped coordinator lives until the send returns")
                #expect(released?.isStarted == false)
                return disposition
            }
        }
        let sender = try #require(view)
        #expect(try sender.send(Message(Self.ping, from: sender)) == .handled)
        let second = Result { try sender.send(Message(Self.ping, from: sender)) }
        #expect(released == nil, "released when the send returned")
        if disposition == .passOn {
            #expect(throws: CoordError.leftTree(message: "globalPing", level: "coordinator doomed")) { try second.get() }
        } else {
            #expect(try second.get() == .handled)
        }
        #expect(recorder.log == ["doomed", "doomed"])
    }

    @Test("a handler that sends a second message while the first is in flight: both complete, in order")
    func reentrantSend() throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 2, in: scene)
        coordinators[1].handle(Self.ping) { [unowned view] _ in
            recorder.log.append("c1")
            // Routed to the shop feature, which starts its coordinator on first use: the tree
            // changes under the outer send.
            try view.send(Message(Self.buy, Arguments([("id", .int(recorder.log.count))]), from: view))
            return .passOn
        }
        app.handle(Self.ping) { _ in recorder.log.append("app"); return .handled }
        for _ in 0..<3 { #expect(try view.send(Message(Self.ping, from: view)) == .handled) }
        #expect(recorder.log == ["c1", "shop bought 1", "app", "c1", "shop bought 4", "app", "c1", "shop bought 7", "app"])
        #expect(scene.children.map(\.identifier) == ["c0", "shop"])
    }

    @Test("a page view that closes itself while handling: the message went no further and the sender is told")
    func viewClosesItself() throws {
        let recorder = Recorder()
        let (app, scene) = try world(recorder)
        defer { withExtendedLifetime(app) {} }
        let (coordinators, view) = try chain(depth: 1, in: scene)
        try coordinators[0].show(ShopPage.item(id: 1, note: nil))
        let top = try #require(coordinators[0].top)
        top.handle(Self.ping) { [unowned owner = coordinators[0]] _ in
            recorder.log.append("page")
            owner.pop()
            return .passOn
        }
        app.handle(Self.ping) { _ in recorder.log.append("app"); return .handled }
        #expect(throws: CoordError.leftTree(message: "globalPing", level: "page shop/item id=1")) {
            try top.send(Message(Self.ping, from: top))
        }
        #expect(try view.send(Message(Self.ping, from: view)) == .handled)
        #expect(recorder.log == ["page", "app"])
    }
}
