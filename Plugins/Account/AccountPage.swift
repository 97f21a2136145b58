import CoordSDK

/// The pages of the account feature.
public enum AccountPage: Page, Equatable {
    case login
    case createAccount
    case confirmAccount(code: String?)
    case profile
    case outbox

    public static let feature = "account"

    public static let cases: [PageCase] = [
        PageCase("login", summary: "log in") { _ in AccountPage.login },
        PageCase("createAccount", summary: "create an account") { _ in AccountPage.createAccount },
        PageCase("confirmAccount", [Parameter("code", .string, optional: true, summary: "the code from the outbox")], summary: "confirm a new account") {
            AccountPage.confirmAccount(code: $0.string("code"))
        },
        PageCase("profile", summary: "who is logged in") { _ in AccountPage.profile },
        PageCase("outbox", summary: "mail the shop has sent (confirmation codes)") { _ in AccountPage.outbox },
    ]

    public var name: String {
        switch self {
        case .login: "login"
        case .createAccount: "createAccount"
        case .confirmAccount: "confirmAccount"
        case .profile: "profile"
        case .outbox: "outbox"
        }
    }

    public var arguments: Arguments {
        if case .confirmAccount(let code?) = self { return Arguments([("code", .string(code))]) }
        return Arguments()
    }
}
