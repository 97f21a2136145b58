import CoordSDK
import CoordShop

/// The account pages. The profile is read when rendered, so it is right after a login or a
/// logout that happened while it was on screen.
final class AccountView: PageView {
    let lines: [String]

    init(page: AccountPage, lines: [String]) {
        self.lines = lines
        super.init(page: page)
    }

    override func render() -> Rendering {
        switch page as? AccountPage {
        case .login:
            return Rendering(title: "Log in", lines: ["account login EMAIL — asks for the password (or takes it from --password-env)",
                                                     "account create EMAIL — no account yet?"])
        case .createAccount:
            return Rendering(title: "Create an account", lines: ["account create EMAIL — asks for a password, sends a code to the outbox"])
        case .confirmAccount:
            return Rendering(title: "Confirm your account", lines: ["account outbox — see the code · account confirm CODE — use it"])
        case .outbox:
            return Rendering(title: "Outbox (\(lines.count / 2))", lines: lines.isEmpty ? ["(empty)"] : lines, fields: ["messages": String(lines.count / 2)])
        case .profile, nil:
            guard let user = dependencies?[Services.user] else {
                return Rendering(title: "Not logged in", lines: ["account login EMAIL — log in"], fields: ["user": ""])
            }
            return Rendering(title: "Logged in as \(user.email)", lines: ["account logout — log out"], fields: ["user": user.email])
        }
    }
}
