/// Who a scene is for, as the host opened it: the person at the shell's terminal, or one
/// client of a server. A feature that keeps something for a visitor who has not logged in (the
/// shop's guest cart) keys it by `key`, and never needs to know which front the person came
/// through.
public struct SceneVisitor: Sendable, Equatable {
    /// Stable for the visitor: `guest` for the terminal's scene (one person's, shared by every
    /// terminal shell on a database and found again next time), `guest:TAG:SCENE` for a
    /// served client's.
    public let key: String
    /// True when what is kept under `key` ends with the scene (a served client's): the
    /// feature discards it when the scene closes. False for the terminal's, kept for the next
    /// shell.
    public let endsWithScene: Bool

    /// Whom a scene is for: `key` names its guest data, `endsWithScene` says whether that
    /// data is discarded when the scene closes.
    public init(key: String, endsWithScene: Bool) {
        self.key = key
        self.endsWithScene = endsWithScene
    }

    /// The terminal's visitor.
    public static let terminal = SceneVisitor(key: "guest", endsWithScene: false)
}

/// A scene's login as the feature that logs people in keeps it. The host needs three things
/// of it and knows nothing else about users: the token that carries a login to a new app
/// process (a supervised front's restore after a crash, a client's `resume`), putting a login
/// back from such a token, and who is logged in (for `scenes`). Provide it guarded: the token
/// resumes the person's login, so no other feature may read it.
@MainActor
public protocol SceneLogins: AnyObject {
    /// The token that resumes `scene`'s login in another process; nil when nobody is logged
    /// in there.
    func resumeToken(in scene: SceneCoordinator) -> String?
    /// Who is logged in in `scene`, as a person reads it (an e-mail address); nil for nobody.
    func who(in scene: SceneCoordinator) -> String?
    /// Logs `scene` in again from a token another process gave. Returns the line to tell the
    /// person and whether it is a warning (the login had ended, the token was never issued).
    func resume(token: String, in scene: SceneCoordinator) -> (text: String, isWarning: Bool)
}

extension Services {
    /// Scene-level, given by the host to each scene: who the scene is for.
    public static let visitor = ServiceKey<SceneVisitor>("visitor")
    /// App-wide, provided guarded by the feature that logs people in (the shop's Account);
    /// read by the host only.
    public static let sceneLogins = ServiceKey<any SceneLogins>("sceneLogins")
}

/// Who is logged in, as any feature may name them — a name, not a handle on the account: the
/// value a login feature puts in its scene's `user` slot conforms (the shop's `UserAccount`
/// does), so that a feature which knows no login feature's types (a C plugin's, through
/// `login` in its host table) can say whose data it keeps.
public protocol LoginIdentity: Sendable {
    /// A stable name for the person (the shop's: their email address).
    var loginName: String { get }
}

extension Services {
    /// The scene's `user` slot read as a `LoginIdentity`: the same slot as the login
    /// feature's own typed key (the shop's `Services.user`), seen through the protocol its
    /// value conforms to; nil while nobody is logged in.
    public static let loginIdentity = ServiceKey<any LoginIdentity>("user")
}
