import CoordSDK
import CoordShop

/// Runs the account flow: create, confirm, log in and out, the profile and the outbox.
///
/// Logging in or out changes the scene's `Services.user` (`provideInScene`): every coordinator
/// of this scene gets the new value, and messages that were waiting there for a user (a
/// checkout) replay by themselves. Other scenes (other clients of a server) keep their own.
final class AccountCoordinator: Coordinator {
    /// Where this scene's login token is kept: the feature's own, never a scene service.
    private let logins: AccountSceneLogins

    init(logins: AccountSceneLogins) {
        self.logins = logins
        super.init(identifier: AccountPage.feature)
        handle(AccountMessage.self) { [unowned self] message, _ in
            switch message {
            case .create(let email):
                try AccountService.validate(email: email)
                let accounts = try require(Services.accounts, for: "account create")
                let password = try require(Services.secrets, for: "account create").secret("New password for \(email)", confirm: true)
                _ = try accounts.create(email: email, password: password)
                report(.note("created \(email); a confirmation code was sent: 'account outbox' shows it, 'account confirm CODE' uses it"))
                try show(AccountPage.confirmAccount(code: nil))
            case .confirm(let code):
                let user = try require(Services.accounts, for: "account confirm").confirm(code: code)
                report(.note("confirmed \(user.email); log in with 'account login \(user.email)'"))
                try show(AccountPage.login)
            case .login(let email):
                try AccountService.validate(email: email)
                let accounts = try require(Services.accounts, for: "account login")
                let password = try require(Services.secrets, for: "account login").secret("Password for \(email)", confirm: false)
                let user = try accounts.logIn(email: email, password: password)
                let token = try accounts.openSession(for: user)
                if let scene { logins.remember(token, in: scene) }
                report(.note("logged in as \(user.email)"))
                try show(AccountPage.profile)
                try provideInScene(Services.user, user)
            case .logout:
                guard let user = dependencies?[Services.user] else { throw CoordError.failed("account logout: nobody is logged in") }
                if let scene, let token = logins.token(in: scene) {
                    try require(Services.accounts, for: "account logout").closeSession(token: token)
                    logins.forget(in: scene)
                }
                try provideInScene(Services.user, nil)
                report(.note("logged out \(user.email)"))
                try show(AccountPage.login)
            case .whoami:
                try show(AccountPage.profile)
            case .outbox:
                try show(AccountPage.outbox)
            }
            return .handled
        }
    }

    override func makeView(for page: any Page) throws -> PageView {
        guard let page = page as? AccountPage else { return try super.makeView(for: page) }
        let accounts = try require(Services.accounts, for: "account/\(page.name)")
        switch page {
        case .outbox:
            return AccountView(page: page, lines: try accounts.outbox().flatMap { mail in
                ["  #\(mail.id) \(mail.sentAt) to \(mail.to): \(mail.subject)", "      \(mail.body)"]
            })
        default:
            return AccountView(page: page, lines: [])
        }
    }
}
