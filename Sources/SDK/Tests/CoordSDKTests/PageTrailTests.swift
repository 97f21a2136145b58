@_spi(Host) import CoordSDK
import Testing

/// A second feature with pages, so that a scene moves between two flows.
enum DeliPage: Page, Equatable {
    case counter
    case dish(id: Int)

    static let feature = "deli"
    static let cases: [PageCase] = [
        PageCase("counter") { _ in DeliPage.counter },
        PageCase("dish", [Parameter("id", .int)]) { DeliPage.dish(id: $0.int("id")!) },
    ]

    var name: String {
        switch self {
        case .counter: "counter"
        case .dish: "dish"
        }
    }

    var arguments: Arguments {
        guard case .dish(let id) = self else { return Arguments() }
        return Arguments([("id", .int(id))])
    }
}

/// The last pages of a scene's trail, as a served scene reports them after every command, are
/// exactly the end of the whole trail — found from the newest end, however long the scene ran.
@Suite("Page trail")
@MainActor
struct PageTrailTests {
    @Test("after any walk through two flows — pages shown, shown again, back — the last N pages are the whole trail's last N")
    func lastPagesAreTheTrailsEnd() throws {
        let app = AppCoordinator()
        try app.register([
            shopDefinition(Recorder()),
            FeatureDefinition(name: "deli", prefix: "deli", pages: DeliPage.self, messages: [], coordinator: { Coordinator(identifier: "deli") }),
        ], origin: nil)
        let scene = app.makeScene(identifier: "walk")
        // A fixed pseudo-random walk: the same steps every run.
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for step in 0..<400 {
            switch next(5) {
            case 0: try scene.display(ShopPage.item(id: next(6), note: nil))
            case 1: try scene.display(DeliPage.dish(id: next(6)))
            case 2: try scene.display(next(2) == 0 ? ShopPage.home : DeliPage.counter)
            default: _ = scene.back()
            }
            let whole = scene.pageTrail.map(\.route.description)
            for limit in [1, 3, 16, 1000] {
                let last = scene.pageTrail(last: limit).map(\.route.description)
                #expect(last == Array(whole.suffix(limit)), "step \(step), last \(limit)")
            }
        }
        // The walk went somewhere: the trail holds pages of both flows.
        #expect(scene.pageTrail.count > 3)
    }
}
