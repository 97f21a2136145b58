import CoordSDK

/// Registers the catalog feature.
final class ContentPlugin: CoordPlugin {
    func register(with registrar: any PluginRegistrar) throws {
        try registrar.register(FeatureDefinition(
            name: "content", prefix: "content", summary: "browse and search the catalog",
            pages: ContentPage.self,
            messages: [
                MessageSpec("list", summary: "show the catalog"),
                MessageSpec("show", [Parameter("id", .int, summary: "product id")], summary: "open a product page"),
                MessageSpec("search", [Parameter("text", .string, summary: "words to look for")], summary: "search the catalog"),
            ],
            coordinator: { ContentCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "content", version: "0.2.0") { ContentPlugin() }
}
