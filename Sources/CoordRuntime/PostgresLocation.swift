import Foundation

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

    /// `PGPASSWORD` as this process was started with it, read once: before the plugin sandbox
    /// blanks it from the environment (`PluginSandbox.enter` reads it first).
    public static let environmentPassword: String? = {
        let value = ProcessInfo.processInfo.environment["PGPASSWORD"]
        return value?.isEmpty == false ? value : nil
    }()

    /// The password file libpq would read (`PGPASSFILE`, else `~/.pgpass`), read once at start
    /// for the same reason: a sandboxed process may not open a file in the person's home. As
    /// libpq does, a file that group or others may read is ignored.
    public static let passwordFileLines: [String] = {
        let environment = ProcessInfo.processInfo.environment
        let path = environment["PGPASSFILE"] ?? (environment["HOME"] ?? NSHomeDirectory()) + "/.pgpass"
        var info = stat()
        guard stat(path, &info) == 0, info.st_mode & 0o077 == 0, (info.st_mode & S_IFMT) == S_IFREG,
              let text = try? String(contentsOfFile: path, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").map(String.init).filter { !$0.hasPrefix("#") }
    }()

    /// The password for this server that the host hands libpq itself (nil when the URL holds
    /// one, or none is known): `PGPASSWORD`, else the first matching line of the password file
    /// (`host:port:database:user:password`, `*` matching anything, `\:` and `\\` escaped).
    var hostPassword: String? {
        guard Self.withoutPassword(url) == url, !url.contains("password=") else { return nil }
        if let password = Self.environmentPassword { return password }
        let (host, port, database, user) = parts
        let hosts: Set<String> = host.isEmpty || host.hasPrefix("/") ? ["localhost", host] : [host]
        for line in Self.passwordFileLines {
            var fields: [String] = [], field = "", escaped = false
            for character in line {
                if escaped { field.append(character); escaped = false } else if character == "\\" { escaped = true } else if character == ":" && fields.count < 4 {
                    fields.append(field)
                    field = ""
                } else { field.append(character) }
            }
            fields.append(field)
            guard fields.count == 5 else { continue }
            func matches(_ pattern: String, _ values: Set<String>) -> Bool { pattern == "*" || values.contains(pattern) }
            if matches(fields[0], hosts), matches(fields[1], [port]), matches(fields[2], [database]), matches(fields[3], [user]) {
                return fields[4]
            }
        }
        return nil
    }

    /// Host (a name, or a socket folder; empty for libpq's default socket), port, database and
    /// user, as libpq reads them from the URL, with its defaults.
    var parts: (host: String, port: String, database: String, user: String) {
        guard let schemeEnd = url.range(of: "://") else { return ("", "5432", "", "") }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var authority = String(rest[..<authorityEnd])
        var user = ProcessInfo.processInfo.environment["PGUSER"] ?? (getpwuid(getuid()).map { String(cString: $0.pointee.pw_name) } ?? "")
        if let at = authority.lastIndex(of: "@") {
            let info = authority[..<at]
            user = String(info.split(separator: ":", maxSplits: 1).first ?? "").removingPercentEncoding ?? user
            authority = String(authority[authority.index(after: at)...])
        }
        var host = authority, port = "5432"
        if authority.hasPrefix("[") {  // [::1]:5433
            let close = authority.firstIndex(of: "]") ?? authority.endIndex
            host = String(authority[authority.index(after: authority.startIndex)..<close])
            let after = authority[close...].dropFirst()
            if after.hasPrefix(":") { port = String(after.dropFirst()) }
        } else if let colon = authority.lastIndex(of: ":") {
            host = String(authority[..<colon])
            port = String(authority[authority.index(after: colon)...])
        }
        host = host.removingPercentEncoding ?? host  // %2Fvar%2Frun%2Fpostgresql: a socket folder
        var database = ""
        let afterAuthority = rest[authorityEnd...]
        if afterAuthority.hasPrefix("/") {
            database = String(afterAuthority.dropFirst().prefix { $0 != "?" }).removingPercentEncoding ?? ""
        }
        if let query = url.firstIndex(of: "?").map({ url[url.index(after: $0)...] }) {
            for pair in query.split(separator: "&") {
                let kv = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                guard kv.count == 2 else { continue }
                switch kv[0] {
                case "host": host = kv[1]
                case "port": port = kv[1]
                case "dbname": database = kv[1]
                case "user": user = kv[1]
                default: break
                }
            }
        }
        return (host, port, database.isEmpty ? user : database, user)
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

    /// How the server is reached: a TCP port, or a Unix socket in a folder (no host, or a
    /// host that is a path). What the plugin sandbox lets the process connect to.
    public enum Transport: Sendable, Equatable {
        case tcp(port: UInt16)
        case unixSocket
    }

    public var transport: Transport {
        let (host, port, _, _) = parts
        if host.isEmpty || host.hasPrefix("/") { return .unixSocket }
        return .tcp(port: UInt16(port) ?? 5432)
    }

    /// What libpq is given: the URL, with a connect timeout and an application name unless it
    /// sets them (a server that does not answer should fail a command, not hang it).
    package var connectionString: String {
        var extra: [String] = []
        // The process that runs plugin code has no PGPASSWORD in its environment and may not
        // read ~/.pgpass (see PluginSandbox): the host gives libpq the password it read at start.
        if let password = hostPassword {
            extra.append("password=" + (password.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""))
        }
        if !url.contains("connect_timeout=") { extra.append("connect_timeout=5") }
        if !url.contains("application_name=") { extra.append("application_name=coordsh") }
        guard !extra.isEmpty else { return url }
        return url + (url.contains("?") ? "&" : "?") + extra.joined(separator: "&")
    }
}
