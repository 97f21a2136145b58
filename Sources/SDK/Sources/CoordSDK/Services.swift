/// Asks the person at the terminal for a secret with echo off, or takes it from where the
/// command line said (`--password-env VAR`). Provided by the host: only it knows the terminal.
/// Secrets never pass through command words, so they never reach output or history.
@MainActor
public protocol SecretPrompting: AnyObject {
    /// `confirm` asks twice at a terminal and requires both to match.
    func secret(_ prompt: String, confirm: Bool) throws -> String
}

/// The service slots every plugin may use, all provided by the host: the data, the person at
/// the terminal, password hashing. Libraries of features extend it with their own slots
/// (CoordShop: `Services.content`, `Services.user`, …), so a key is always spelled
/// `Services.name`, whoever defines it.
public enum Services {
    public static let data = ServiceKey<any DataManaging>("data")
    public static let secrets = ServiceKey<any SecretPrompting>("secrets")
    /// Password hashing (scrypt in the host), so that no plugin links a crypto library.
    public static let passwords = ServiceKey<any PasswordHashing>("passwords")
}
