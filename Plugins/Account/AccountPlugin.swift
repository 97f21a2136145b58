import CoordSDK

/// Registers the account feature. It provides the accounts service to the app, and the current
/// user to the scene where someone logged in.
final class AccountPlugin: CoordPlugin {
    @MainActor func register(with registrar: any PluginRegistrar) throws {
        let service = AccountService()
        let email = Parameter("email", .string, summary: "the account's email address")
        try registrar.register(FeatureDefinition(
            name: "account", prefix: "account", summary: "accounts and logging in",
            pages: AccountPage.self,
            messages: [
                MessageSpec("create", [email], summary: "create an account (asks for a password)"),
                MessageSpec("confirm", [Parameter("code", .string, summary: "the code from the outbox")], summary: "confirm a new account"),
                MessageSpec("login", [email], summary: "log in (asks for the password)"),
                MessageSpec("logout", summary: "log out"),
                MessageSpec("whoami", summary: "who is logged in"),
                MessageSpec("outbox", summary: "mail the shop has sent"),
            ],
            needs: [Services.data.key, Services.secrets.key, Services.passwords.key],
            provides: [
                ServiceProvision(Services.accounts) { dependencies in
                    service.attach(dependencies)
                    return service
                },
            ],
            coordinator: { AccountCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "account", version: "0.3.0") { AccountPlugin() }
}
