import CoordSDK
import CoordShop

/// Each scene's login token, kept by the account feature alone, and its answer to the host
/// about a scene's login (`Services.sceneLogins`, guarded): the token that carries the login to
/// a new app process, who it is, and putting it back from a token. No other feature sees a
/// token — `Services.user` carries none — and the host knows no user type.
@MainActor
final class AccountSceneLogins: SceneLogins {
    /// A scene held weakly: a closed scene's token goes with it, and a new scene made at the
    /// same address can never find it.
    private struct Held {
        weak var scene: SceneCoordinator?
        let token: String
    }

    private let accounts: AccountService
    private var held: [Held] = []

    init(accounts: AccountService) {
        self.accounts = accounts
    }

    /// Keeps `token` as `scene`'s login (replacing one it had).
    func remember(_ token: String, in scene: SceneCoordinator) {
        held.removeAll { $0.scene == nil || $0.scene === scene }
        held.append(Held(scene: scene, token: token))
    }

    /// The token of `scene`'s login, nil when nobody is logged in there.
    func token(in scene: SceneCoordinator) -> String? {
        held.first { $0.scene === scene }?.token
    }

    func forget(in scene: SceneCoordinator) {
        held.removeAll { $0.scene == nil || $0.scene === scene }
    }

    func resumeToken(in scene: SceneCoordinator) -> String? {
        scene.sceneService(Services.user) == nil ? nil : token(in: scene)
    }

    func who(in scene: SceneCoordinator) -> String? {
        scene.sceneService(Services.user)?.email
    }

    func resume(token: String, in scene: SceneCoordinator) -> (text: String, isWarning: Bool) {
        do {
            guard let user = try accounts.resumeSession(token: token) else {
                return ("the login had ended (logged out or expired); log in again", true)
            }
            remember(token, in: scene)
            scene.provide(Services.user, user, provider: "account")
            return ("still logged in as \(user.email)", false)
        } catch {
            return ("the login could not be restored: \(error); log in again", true)
        }
    }
}
