import CoordMacros
import CoordSDK

/// What the account feature does when asked: `account login a@b.c` is `accountLogin(email:)`.
/// Passwords are never arguments: the handlers ask for them through `Services.secrets`.
@Messages(prefix: "account")
enum AccountMessage: FeatureMessage {
    /// create an account (asks for a password)
    /// - Parameter email: the account's email address
    case create(email: String)
    /// confirm a new account
    /// - Parameter code: the code from the outbox
    case confirm(code: String)
    /// log in (asks for the password)
    /// - Parameter email: the account's email address
    case login(email: String)
    /// log out
    case logout
    /// who is logged in
    case whoami
    /// mail the shop has sent
    case outbox
}
