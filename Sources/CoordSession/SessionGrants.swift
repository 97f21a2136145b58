import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

extension Session {
    /// `name` as granting sees it: all its features declare and what of that is granted now;
    /// nil when no plugin of that name is loaded or registered.
    func grantView(of name: String) -> GrantCommand.Plugin? {
        guard let plugin = loader.loaded.first(where: { $0.origin.name == name }) else { return nil }
        let grants = host.access.grants
        var view = GrantCommand.Plugin(name: name, file: plugin.origin.path, bundled: grants.isBundled(plugin.origin), uses: [], granted: [])
        for feature in plugin.features.compactMap({ app.features.feature(named: $0) }) {
            view.uses += feature.uses.filter { !view.uses.contains($0) }
            view.granted += grants.granted(feature.uses, origin: feature.origin).filter { !view.granted.contains($0) }
        }
        return view
    }

    /// Outside plugins asking for what the person has neither granted nor refused for their
    /// file: what an interactive shell asks about.
    func grantRequests() -> [GrantRequest] {
        let grants = host.access.grants
        var requests: [GrantRequest] = []
        for plugin in loader.loaded where !grants.isBundled(plugin.origin) {
            let uses = plugin.features.compactMap { app.features.feature(named: $0) }.flatMap(\.uses)
            guard !grants.ungranted(uses, origin: plugin.origin).isEmpty,
                  let sha256 = PluginPolicy.sha256(ofFile: plugin.origin.path) else { continue }
            var asks: [Capability] = []
            for capability in grants.asks(uses, origin: plugin.origin, sha256: sha256) where !asks.contains(capability) {
                asks.append(capability)
            }
            guard !asks.isEmpty else { continue }
            requests.append(GrantRequest(
                plugin: plugin.origin.name, version: plugin.origin.version, file: plugin.origin.path, sha256: sha256, asks: asks))
        }
        return requests
    }
}
