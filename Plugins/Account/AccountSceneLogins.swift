import CoordSDK
import CoordShop

/// The account feature's answer to the host about a scene's login (`Services.sceneLogins`):
/// the token that carries it to a new app process, who it is, and putting it back from a
/// token. The host knows no user type; this is the only way it learns about one.
@MainActor
final class AccountSceneLogins: SceneLogins {
    private let accounts: AccountService

    init(accounts: AccountService) {
        self.accounts = accounts
    }

    func resumeToken(in scene: SceneCoordinator) -> String? {
        scene.sceneService(Services.user)?.sessionToken
    }

    func who(in scene: SceneCoordinator) -> String? {
        scene.sceneService(Services.user)?.email
    }

    func resume(token: String, in scene: SceneCoordinator) -> (text: String, isWarning: Bool) {
        do {
            guard let user = try accounts.resumeSession(token: token) else {
                return ("the login had ended (logged out or expired); log in again", true)
            }
            scene.provide(Services.user, user, provider: "account")
            return ("still logged in as \(user.email)", false)
        } catch {
            return ("the login could not be restored: \(error); log in again", true)
        }
    }
}
