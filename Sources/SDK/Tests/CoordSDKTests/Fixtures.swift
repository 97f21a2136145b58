@_spi(Host) import CoordSDK

/// A small feature used by the SDK tests, registered in code (no dlopen).
enum ShopPage: Page, Equatable {
    case home
    case item(id: Int, note: String?)

    static let feature = "shop"
    static let cases: [PageCase] = [
        PageCase("home") { _ in ShopPage.home },
        PageCase("item", [Parameter("id", .int), Parameter("note", .string, optional: true)]) {
            ShopPage.item(id: $0.int("id")!, note: $0.string("note"))
        },
    ]

    var name: String {
        switch self {
        case .home: "home"
        case .item: "item"
        }
    }

    var arguments: Arguments {
        guard case .item(let id, let note) = self else { return Arguments() }
        var arguments = Arguments([("id", .int(id))])
        arguments.set("note", note.map(Value.string))
        return arguments
    }
}

@MainActor
final class Recorder {
    var log: [String] = []
}

/// A feature coordinator that records what it handled.
@MainActor
final class ShopCoordinator: Coordinator {
    static let buy = MessageName("shopBuy")
    let recorder: Recorder

    init(recorder: Recorder) {
        self.recorder = recorder
        super.init(identifier: "shop")
        handle(Self.buy) { message in
            recorder.log.append("shop bought \(message.arguments.int("id") ?? -1)")
            return .handled
        }
    }
}

@MainActor
func shopDefinition(_ recorder: Recorder, prefix: String = "shop", needs: [DependencyKey] = []) -> FeatureDefinition {
    FeatureDefinition(
        name: "shop", prefix: prefix, pages: ShopPage.self,
        messages: [MessageSpec("buy", [Parameter("id", .int)])], needs: needs,
        coordinator: { ShopCoordinator(recorder: recorder) })
}

/// Builds app → scene → feature coordinator → `depth` nested children, and returns the
/// deepest coordinator with a page shown on it.
@MainActor
func chain(depth: Int, in scene: SceneCoordinator) throws -> (coordinators: [Coordinator], view: PageView) {
    var coordinators: [Coordinator] = []
    var parent: Coordinator = scene
    for level in 0..<depth {
        let c = Coordinator(identifier: "c\(level)")
        parent.startChild(c)
        coordinators.append(c)
        parent = c
    }
    let view = try parent.show(ShopPage.home)
    return (coordinators, view)
}
