@_spi(Host) import CoordSDK
import Testing

@Suite("Coordinator tree and AppDependency")
@MainActor
struct TreeTests {
    static let clock = ServiceKey<String>("clock")

    @Test("children are kept by identifier; stopping removes them and their pages")
    func children() throws {
        let app = AppCoordinator()
        let scene = app.makeScene(identifier: "s")
        let (coordinators, view) = try chain(depth: 3, in: scene)
        #expect(scene.children.map(\.identifier) == ["c0"])
        #expect(coordinators[2].parentCoordinator === coordinators[1])
        #expect(view.coordinator === coordinators[2])
        #expect(coordinators.allSatisfy { $0.isStarted })
        scene.stopChild(coordinators[0])
        #expect(scene.children.isEmpty)
        #expect(!coordinators[2].isStarted && coordinators[2].viewStack.isEmpty)
        #expect(view.parent == nil)
    }

    @Test("a stopped coordinator is released, even after messages were dispatched through it")
    func released() throws {
        let app = AppCoordinator()
        try app.register([shopDefinition(Recorder())], origin: nil)
        let scene = app.makeScene(identifier: "s")
        weak var weakChild: Coordinator?
        weak var weakView: PageView?
        do {
            let (coordinators, view) = try chain(depth: 2, in: scene)
            weakChild = coordinators[1]
            weakView = view
            try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(1))]), from: view))
        }
        scene.stopChild(scene.children[0])
        #expect(weakChild == nil)
        #expect(weakView == nil)
    }

    @Test("dependencies set at the root reach every depth, and children started later")
    func propagation() throws {
        let app = AppCoordinator()
        let scene = app.makeScene(identifier: "s")
        let (coordinators, view) = try chain(depth: 5, in: scene)
        app.provide(Self.clock, "tick")
        #expect(coordinators.last?.dependencies?[Self.clock] == "tick")
        #expect(view.dependencies?[Self.clock] == "tick")
        let late = Coordinator(identifier: "late")
        coordinators[4].startChild(late)
        #expect(late.dependencies?[Self.clock] == "tick")
        #expect(app.dependencies?.provider(of: Self.clock.key) == "host")
    }

    @Test("a slot read as a protocol gives the service set since, while a copy made before keeps its own")
    func typedReadsFollowTheSlot() {
        var services = AppDependency()
        services.set(Self.greeter.key, Hello(), provider: "host")
        #expect(services[Self.greeter]?.greeting == "hello")
        #expect(services[Self.greeter]?.greeting == "hello")  // the second read, from what the first kept
        let before = services
        services.set(Self.greeter.key, Goodbye(), provider: "host")
        #expect(services[Self.greeter]?.greeting == "goodbye")
        #expect(before[Self.greeter]?.greeting == "hello")
        // The same slot read as another type, then as the protocol again.
        #expect(services[Self.anyGreeter] is Goodbye)
        #expect(services[Self.greeter]?.greeting == "goodbye")
        services.set(Self.greeter.key, nil, provider: nil)
        #expect(services[Self.greeter] == nil)
        #expect(before[Self.greeter]?.greeting == "hello")
        // Read as a type the value is not, after a read that kept it: nothing, each time.
        services.set(Self.clock.key, "10:00", provider: "host")
        #expect(services[Self.clock] == "10:00")
        #expect(services[Self.clockAsNumber] == nil)
        #expect(services[Self.clockAsNumber] == nil)
        #expect(services[Self.clock] == "10:00")
    }

    static let greeter = ServiceKey<any Greeting>("greeter")
    static let anyGreeter = ServiceKey<AnyObject>("greeter")
    static let clockAsNumber = ServiceKey<Int>("clock")

    @Test("navigation stack: show pushes, root replaces, pop returns, back crosses flows")
    func navigation() throws {
        let app = AppCoordinator()
        let scene = app.makeScene(identifier: "s")
        let a = Coordinator(identifier: "a"), b = Coordinator(identifier: "b")
        scene.startChild(a)
        scene.startChild(b)
        try a.show(ShopPage.home)
        try a.show(ShopPage.item(id: 1, note: nil))
        #expect(a.viewStack.count == 2 && scene.activeCoordinator === a)
        try b.root(ShopPage.item(id: 2, note: nil))
        #expect(scene.activeCoordinator === b)
        #expect(scene.back())  // b has one page: back to a
        #expect(scene.activeCoordinator === a)
        #expect(scene.back())  // pop within a
        #expect(scene.currentView?.page.route.description == "shop/home")
        #expect(!scene.back())
    }
}

protocol Greeting: AnyObject { var greeting: String { get } }
final class Hello: Greeting { var greeting: String { "hello" } }
final class Goodbye: Greeting { var greeting: String { "goodbye" } }
