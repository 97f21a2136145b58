@_spi(Host) import CoordSDK
import Testing

/// The fast path runs cached handlers without retaining them; these are the ways a handler
/// can pull the ground from under itself, each sent many times through the cache.
@Suite("Handlers that change the tree under their own send")
@MainActor
struct ReclaimTests {
    static let ping = MessageName("globalPing")

    @Test("a handler that replaces itself runs its new body on the next send")
    func replacesItself() throws {
        let recorder = Recorder()
        let app = AppCoordinator()
        let (coordinators, view) = try chain(depth: 2, in: app.makeScene(identifier: "s"))
        /// Re-registers the handler from inside it, each time one generation later.
        @MainActor final class Installer {
            unowned let owner: Coordinator
            let recorder: Recorder
            var generation = 0
            init(_ owner: Coordinator, _ recorder: Recorder) { self.owner = owner; self.recorder = recorder }
            func install() {
                owner.handle(ReclaimTests.ping) { [unowned self] _ in
                    recorder.log.append("generation \(generation)")
                    generation += 1
                    install()  // frees the entry that is running, were it not retired
                    return .handled
                }
            }
        }
        let installer = Installer(coordinators[0], recorder)
        installer.install()
        for _ in 0..<50 { try view.send(Message(Self.ping, from: view)) }
        #expect(recorder.log.count == 50)
        #expect(recorder.log.last == "generation 49")
        withExtendedLifetime((app, installer)) {}
    }

    @Test("a handler that stops and releases its own coordinator runs on, the coordinator retired until the send returns")
    func stopsItsOwnCoordinator() throws {
        let recorder = Recorder()
        let app = AppCoordinator()
        let scene = app.makeScene(identifier: "s")
        // Nobody above handles it: the second send runs the single-handler fast path, where
        // only the reclaimer keeps the coordinator alive once the scene lets go of it.
        weak var released: Coordinator?
        var view: PageView!
        do {
            let doomed = Coordinator(identifier: "doomed")
            scene.startChild(doomed)
            released = doomed
            view = try doomed.show(ShopPage.home)
            doomed.handle(Self.ping) { [unowned doomed, unowned scene] _ in
                recorder.log.append("doomed")
                // The first send builds the path; the second runs from the cache and stops
                // the coordinator, whose last strong reference goes here. It is retired: alive
                // (with this very closure) until the send returns.
                if recorder.log.count == 2 {
                    scene.stopChild(doomed)
                    recorder.log.append(released == nil ? "freed under its running handler" : "retired")
                }
                return .handled
            }
        }
        #expect(try view.send(Message(Self.ping, from: view)) == .handled)
        #expect(try view.send(Message(Self.ping, from: view)) == .handled)
        #expect(released == nil, "the coordinator and its handler table are gone")
        #expect(recorder.log == ["doomed", "doomed", "retired"])
        // The view is detached now; a message from it reaches nobody and says so.
        #expect(throws: CoordError.self) { try view.send(Message(Self.ping, from: view)) }
        withExtendedLifetime(app) {}
    }

    @Test("retired objects are released once the outermost send returns")
    func retiredAreReleased() throws {
        let app = AppCoordinator()
        let scene = app.makeScene(identifier: "s")
        let (coordinators, view) = try chain(depth: 2, in: scene)
        final class Token {}
        weak var token: Token?
        do {
            let strong = Token()
            token = strong
            coordinators[0].handle(Self.ping) { [strong] _ in _ = strong; return .handled }
        }
        try view.send(Message(Self.ping, from: view))
        coordinators[0].handle(Self.ping) { _ in .handled }
        #expect(token == nil, "replaced outside a send: released at once")
        // Replaced during a send: the old entry and what it holds live until the send returns.
        weak var second: Token?
        var calls = 0
        do {
            let strong = Token()
            second = strong
            coordinators[0].handle(Self.ping) { [strong, unowned owner = coordinators[0]] _ in
                _ = strong
                calls += 1
                guard calls == 2 else { return .handled }  // the second call runs from the cache
                owner.handle(Self.ping) { _ in .handled }
                #expect(second != nil, "still running: retired, not freed")
                return .handled
            }
        }
        try view.send(Message(Self.ping, from: view))
        try view.send(Message(Self.ping, from: view))
        #expect(calls == 2)
        #expect(second == nil, "released when the send returned")
        withExtendedLifetime(app) {}
    }
}
