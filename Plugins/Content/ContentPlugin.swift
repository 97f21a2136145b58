import CoordSDK
import CoordShop

/// Registers the catalog feature and provides the catalog service to the other features.
final class ContentPlugin: CoordPlugin {
    /// Built against the shop's shared model: the loader checks its version before `register`.
    var libraries: [LibraryRequirement] { [CoordShopVersion.requirement] }

    @MainActor func register(with registrar: any PluginRegistrar) throws {
        let store = ContentStore()
        try registrar.register(FeatureDefinition(
            name: "content", summary: "browse and search the catalog",
            pages: ContentPage.self, messages: ContentMessage.self,
            needs: [Services.data.key],
            provides: [ServiceProvision(Services.content) { dependencies in
                store.attach(dependencies)
                return store
            }],
            completions: { parameter, dependencies in
                switch parameter {
                case "id": (try? dependencies?[Services.content]?.products(category: nil).map { String($0.id) }) ?? []
                case "category": (try? dependencies?[Services.content]?.categories().map(\.name)) ?? []
                default: []
                }
            },
            coordinator: { ContentCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "content", version: "0.3.0") { ContentPlugin() }
}
