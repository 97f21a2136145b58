import CoordMacros
import CoordSDK

@Messages(prefix: "weather")
enum WeatherMessage: FeatureMessage {
    /// show one place
    /// - Parameter id: place number
    case show(id: Int)
    /// forget a place
    case forget(id: Int, confirm: Bool?)
}

final class WeatherCoordinator: Coordinator {
    init() {
        super.init(identifier: WeatherPage.feature)
        handle(WeatherMessage.self) { [unowned self] message, _ in   // unowned: no retain cycle
            switch message {
            case .show(let id): try show(WeatherPage.item(id: id, days: nil))
            case .forget(let id, let confirm): try forget(id, confirmed: confirm ?? false)
            }
            return .handled            // or .passOn, or .handledAndPassOn
        }
    }
    override func makeView(for page: any Page) throws -> PageView { WeatherView(page: page) }
}

final class WeatherPlugin: CoordPlugin {
    @MainActor func register(with registrar: any PluginRegistrar) throws {
        try registrar.register(FeatureDefinition(
            name: "weather", pages: WeatherPage.self, messages: WeatherMessage.self,
            coordinator: { WeatherCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "weather", version: "0.1.0") { WeatherPlugin() }
}
