import CoordSDK
import CoordShop

/// Registers the account feature. It provides the accounts service to the app, and the current
/// user to the scene where someone logged in.
final class AccountPlugin: CoordPlugin {
    /// Built against the shop's shared model: the loader checks its version before `register`.
    var libraries: [LibraryRequirement] { [CoordShopVersion.requirement] }

    @MainActor func register(with registrar: any PluginRegistrar) throws {
        let service = AccountService()
        // One keeper of the scenes' login tokens, shared by every scene's coordinator and the
        // host's view of it.
        let logins = AccountSceneLogins(accounts: service)
        try registrar.register(FeatureDefinition(
            name: "account", summary: "accounts and logging in",
            pages: AccountPage.self, messages: AccountMessage.self,
            needs: [Services.data.key, Services.secrets.key, Services.passwords.key],
            provides: [
                // Guarded: it holds every person's e-mail address and login sessions.
                ServiceProvision(Services.accounts, guarded: true) { dependencies in
                    service.attach(dependencies)
                    return service
                },
                // Guarded too: the host's way to a scene's login token, read by it alone.
                ServiceProvision(Services.sceneLogins, guarded: true) { dependencies in
                    service.attach(dependencies)
                    return logins
                },
            ],
            // The person's password prompt and the host's hashing: the two secrets it handles.
            uses: [.service("secrets"), .service("passwords")],
            coordinator: { AccountCoordinator(logins: logins) }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "account", version: "0.3.0") { AccountPlugin() }
}
