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
    /// The feature's own database handle (SQLite or PostgreSQL): each feature gets one that
    /// reaches its own tables and what it declared, nothing else.
    public static let data = ServiceKey<any DataManaging>("data")
    /// Asks the person for a password or card number with echo off, at the terminal or from
    /// the client that sent the command; a plugin never reads the terminal itself.
    public static let secrets = ServiceKey<any SecretPrompting>("secrets")
    /// Password hashing (scrypt in the host), so that no plugin links a crypto library.
    public static let passwords = ServiceKey<any PasswordHashing>("passwords")
}
