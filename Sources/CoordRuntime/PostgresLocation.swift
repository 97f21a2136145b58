/// A PostgreSQL server and database as `--db` or `[data] url` names it:
/// `postgres://USER@HOST[:PORT]/DB`, `postgresql://…`, or a Unix socket with `?host=/path`.
///
/// libpq reads the URL itself (and the password from it, `PGPASSWORD` or `~/.pgpass`); this
/// type only recognises one and gives the form that may be shown — the same URL without the
/// password — for messages, `deps` and `config`.
public struct PostgresLocation: Sendable, Equatable {
    /// The URL as given, password included: only ever handed to libpq.
    let url: String
    /// The URL with any password removed.
    public let display: String

    public init?(_ text: String) {
        guard text.hasPrefix("postgres://") || text.hasPrefix("postgresql://") else { return nil }
        url = text
        display = Self.withoutPassword(text)
    }

    /// True when `text` names a PostgreSQL server rather than a SQLite file.
    public static func isURL(_ text: String) -> Bool { PostgresLocation(text) != nil }

    /// `postgres://user:secret@host/db` → `postgres://user@host/db`.
    public static func withoutPassword(_ text: String) -> String {
        guard let schemeEnd = text.range(of: "://") else { return text }
        let rest = text[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        guard let at = authority.lastIndex(of: "@") else { return text }
        let userInfo = authority[..<at]
        guard let colon = userInfo.firstIndex(of: ":") else { return text }
        return String(text[..<schemeEnd.upperBound]) + userInfo[..<colon] + authority[at...] + rest[authorityEnd...]
    }

    /// What libpq is given: the URL, with a connect timeout and an application name unless it
    /// sets them (a server that does not answer should fail a command, not hang it).
    package var connectionString: String {
        var extra: [String] = []
        if !url.contains("connect_timeout=") { extra.append("connect_timeout=5") }
        if !url.contains("application_name=") { extra.append("application_name=coordsh") }
        guard !extra.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + extra.joined(separator: "&")
    }
}
