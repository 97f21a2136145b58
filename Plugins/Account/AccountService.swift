import CoordSDK
import Foundation

/// Accounts on the app's SQLite store: the Account feature's `AccountManaging`.
///
/// Accounts and the outbox persist; who is logged in is not kept here but in each scene
/// (`Services.user`), so one service serves every client of a server.
@MainActor
final class AccountService: AccountManaging {
    static let migrations = [
        Migration("v1", sql: [
            """
            CREATE TABLE users (
                id INTEGER PRIMARY KEY,
                email TEXT NOT NULL UNIQUE COLLATE NOCASE,
                password_kdf TEXT NOT NULL,
                password_salt BLOB NOT NULL,
                password_hash BLOB NOT NULL,
                confirm_code TEXT,
                confirmed_at TEXT,
                created_at TEXT NOT NULL DEFAULT (datetime('now'))
            )
            """,
            """
            CREATE TABLE outbox (
                id INTEGER PRIMARY KEY,
                to_address TEXT NOT NULL,
                subject TEXT NOT NULL,
                body TEXT NOT NULL,
                sent_at TEXT NOT NULL DEFAULT (datetime('now'))
            )
            """,
        ]),
        // Login sessions: a random token per login, so that a restarted app can resume it
        // (`coordsh --supervised`); revoked at logout; never the password.
        Migration("v2", sql: [
            """
            CREATE TABLE sessions (
                token TEXT PRIMARY KEY,
                user_id INTEGER NOT NULL REFERENCES users(id),
                created_at TEXT NOT NULL,
                expires_at TEXT NOT NULL,
                revoked_at TEXT
            )
            """,
        ]),
    ]

    static let minimumPasswordLength = 8
    /// How long a login session can be resumed.
    static let sessionLifetime: TimeInterval = 30 * 24 * 3600

    private lazy var store = FeatureStore(feature: "account", migrations: Self.migrations)
    private var dependencies: AppDependency { store.dependencies }

    /// Called on every dependency rebuild (see `FeatureStore.attach`).
    func attach(_ dependencies: AppDependency) {
        store.attach(dependencies)
    }

    /// The host's password hashing (the plugin links no crypto of its own).
    private func passwords(_ context: String) throws -> any PasswordHashing {
        guard let hasher = dependencies[Services.passwords] else {
            throw CoordError.failed("\(context): the host provides no password hashing ('passwords'); this coordsh is too old for the account plugin")
        }
        return hasher
    }

    static func validate(email: String) throws {
        let parts = email.split(separator: "@", omittingEmptySubsequences: false)
        guard parts.count == 2, !parts[0].isEmpty, parts[1].contains("."), !parts[1].hasPrefix("."), !parts[1].hasSuffix("."),
            !email.contains(where: \.isWhitespace), email.count <= 254
        else {
            throw CoordError.failed("'\(email)' is not an email address (like ann@example.com)")
        }
    }

    func create(email: String, password: String) throws -> UserAccount {
        try Self.validate(email: email)
        guard password.count >= Self.minimumPasswordLength else {
            throw CoordError.failed("account create: the password must have at least \(Self.minimumPasswordLength) characters")
        }
        let data = try store.data()
        if try data.read({ try $0.row("SELECT id FROM users WHERE email = ?", [SQLValue(email)]) }) != nil {
            throw CoordError.failed("account create: \(email) is already registered; log in with 'account login \(email)'")
        }
        let hash = try passwords("account create").hash(password)
        // The account and its confirmation mail are written together or not at all.
        return try data.write { db in
            if try db.row("SELECT id FROM users WHERE email = ?", [SQLValue(email)]) != nil {
                throw CoordError.failed("account create: \(email) is already registered")
            }
            var code: String
            repeat {
                code = String(format: "%06d", Int.random(in: 0..<1_000_000))
            } while try db.row("SELECT id FROM users WHERE confirm_code = ?", [SQLValue(code)]) != nil
            try db.execute(
                "INSERT INTO users (email, password_kdf, password_salt, password_hash, confirm_code) VALUES (?, ?, ?, ?, ?)",
                [SQLValue(email), SQLValue(hash.parameters), SQLValue(hash.salt), SQLValue(hash.digest), SQLValue(code)])
            let id = db.lastInsertedRowID
            try db.execute(
                "INSERT INTO outbox (to_address, subject, body) VALUES (?, ?, ?)",
                [SQLValue(email), "Confirm your coordsh shop account",
                 SQLValue("Your confirmation code is \(code). Run: account confirm \(code)")])
            return UserAccount(id: id, email: email, confirmed: false)
        }
    }

    func confirm(code: String) throws -> UserAccount {
        let code = code.trimmingCharacters(in: .whitespaces)
        return try store.data().write { db in
            guard let row = try db.row("SELECT id, email FROM users WHERE confirm_code = ? AND confirmed_at IS NULL", [SQLValue(code)]) else {
                throw CoordError.failed("account confirm: no account waits for code '\(code)'; 'account outbox' shows the codes sent")
            }
            try db.execute(
                "UPDATE users SET confirmed_at = datetime('now'), confirm_code = NULL WHERE id = ?", [row["id"]])
            return UserAccount(id: row.int64("id"), email: row.string("email"), confirmed: true)
        }
    }

    func logIn(email: String, password: String) throws -> UserAccount {
        let hasher = try passwords("account login")
        let row = try store.data().read { try $0.row("SELECT * FROM users WHERE email = ?", [SQLValue(email)]) }
        let wrong = CoordError.failed("account login: wrong email or password")
        guard let row else {
            // Spend the same time as a real check, so timing does not tell which emails exist.
            _ = try? hasher.hash(password)
            throw wrong
        }
        let stored = PasswordHash(
            parameters: row.string("password_kdf"), salt: row["password_salt"].bytes ?? [], digest: row["password_hash"].bytes ?? [])
        guard try hasher.verify(password, against: stored) else { throw wrong }
        guard !row["confirmed_at"].isNull else {
            throw CoordError.failed("account login: \(row.string("email")) is not confirmed yet; find the code with 'account outbox', then 'account confirm CODE'")
        }
        return UserAccount(id: row.int64("id"), email: row.string("email"), confirmed: true)
    }

    func openSession(for user: UserAccount) throws -> UserAccount {
        var generator = SystemRandomNumberGenerator()  // getrandom(2): the kernel's CSPRNG
        let token = (0..<4).map { _ in String(format: "%016llx", generator.next()) }.joined()
        let now = Date()
        try store.data().write { db in
            try db.execute(
                "INSERT INTO sessions (token, user_id, created_at, expires_at) VALUES (?, ?, ?, ?)",
                [SQLValue(token), SQLValue(user.id), SQLValue(Self.timestamp(now)), SQLValue(Self.timestamp(now.addingTimeInterval(Self.sessionLifetime)))])
        }
        return UserAccount(id: user.id, email: user.email, confirmed: user.confirmed, sessionToken: token)
    }

    func resumeSession(token: String) throws -> UserAccount? {
        try store.data().read { db in
            guard let row = try db.row(
                """
                SELECT users.id, users.email FROM sessions JOIN users ON users.id = sessions.user_id
                WHERE sessions.token = ? AND sessions.revoked_at IS NULL AND sessions.expires_at > ?
                """, [SQLValue(token), SQLValue(Self.timestamp(Date()))])
            else { return nil }
            return UserAccount(id: row.int64("id"), email: row.string("email"), confirmed: true, sessionToken: token)
        }
    }

    func closeSession(token: String) throws {
        try store.data().write { db in
            try db.execute("UPDATE sessions SET revoked_at = ? WHERE token = ? AND revoked_at IS NULL", [SQLValue(Self.timestamp(Date())), SQLValue(token)])
        }
    }

    /// UTC, sortable as text: `2026-11-23 17:30:00`.
    static func timestamp(_ date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "UTC")
        formatter.dateFormat = "yyyy-MM-dd HH:mm:ss"
        return formatter.string(from: date)
    }

    func outbox() throws -> [OutboxMessage] {
        try store.data().read { db in
            try db.rows("SELECT * FROM outbox ORDER BY id", []).map {
                OutboxMessage(
                    id: $0.int64("id"), to: $0.string("to_address"), subject: $0.string("subject"), body: $0.string("body"),
                    sentAt: $0.string("sent_at"))
            }
        }
    }
}
