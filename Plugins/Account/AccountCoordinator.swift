import CoordSDK

/// Runs the account flow: log in, create and confirm an account, the profile. Each message
/// opens its page; the shop issue adds the account store and password checks behind them.
final class AccountCoordinator: Coordinator {
    init() {
        super.init(identifier: AccountPage.feature)
        let pages: [(String, @Sendable (Message) -> AccountPage)] = [
            ("accountLogin", { _ in .login }),
            ("accountCreate", { _ in .createAccount }),
            ("accountConfirm", { .confirmAccount(code: $0.arguments.string("code")) }),
            ("accountProfile", { _ in .profile }),
        ]
        for (name, page) in pages {
            handle(MessageName(name)) { [unowned self] message in
                try show(page(message))
                return .handled
            }
        }
    }
}

/// Registers the account feature.
final class AccountPlugin: CoordPlugin {
    func register(with registrar: any PluginRegistrar) throws {
        try registrar.register(FeatureDefinition(
            name: "account", prefix: "account", summary: "accounts and logging in",
            pages: AccountPage.self,
            messages: [
                MessageSpec("login", summary: "open the login page"),
                MessageSpec("create", summary: "open the create-account page"),
                MessageSpec("confirm", [Parameter("code", .string, optional: true, summary: "the code from the outbox")], summary: "confirm a new account"),
                MessageSpec("profile", summary: "show the profile"),
            ],
            coordinator: { AccountCoordinator() }))
    }
}

@_cdecl("coordsh_plugin_entry")
public func coordshPluginEntry(_ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    PluginEntry.fill(descriptor, name: "account", version: "0.2.0") { AccountPlugin() }
}
