import CoordMacros
import CoordSDK

/// The pages of the account feature.
@Page(feature: "account")
public enum AccountPage: Page, Equatable {
    /// log in
    case login
    /// create an account
    case createAccount
    /// confirm a new account
    /// - Parameter code: the code from the outbox
    case confirmAccount(code: String?)
    /// who is logged in
    case profile
    /// mail the shop has sent (confirmation codes)
    case outbox
}
