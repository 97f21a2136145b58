import CSQLiteCheck
@_spi(Host) import CoordSDK

/// Compiles SQL on a private in-memory SQLite connection that holds a copy of the store's
/// schema, and reports what each statement would touch — tables read and written, schema
/// changes, transaction control, attachments, pragmas, functions — including what the bodies
/// of the triggers it fires and the views it reads touch. SQLite's authorizer
/// (`sqlite3_set_authorizer`) is the one complete account of that; it is set here, on a
/// connection of our own, because GRDB keeps the store's connections' authorizer for itself
/// (changing it there would invalidate GRDB's statements).
///
/// Nothing is ever run on the store by it; statements are compiled and thrown away.
final class StatementChecker {
    /// One access, as the authorizer reported it.
    struct Access: Hashable {
        var action: Int32
        var first: String?
        var second: String?
        var inner: String?
    }

    /// The in-memory connection, opened by the first use: a run whose commands never touch
    /// data (`help`, `echo`) does not initialise SQLite (its functions, FTS3 and FTS5) at all.
    private var checker: OpaquePointer? {
        if !opened {
            opened = true
            connection = coordsh_checker_open()
        }
        return connection
    }
    private var connection: OpaquePointer?
    private var opened = false
    /// The schema version of the store this copy was made from (SQLite), or nil before the
    /// first copy.
    var mirroredVersion: Int64?
    /// Set when a trigger or view of the store could not be copied: checking without it would
    /// miss what it touches, so every statement is refused until a copy succeeds.
    private(set) var incomplete: String?

    deinit { coordsh_checker_close(connection) }

    /// Replaces the copy with `statements` (the store's `CREATE …` text, tables first).
    func mirror(_ statements: [(kind: String, name: String, sql: String)], version: Int64?) {
        incomplete = checker == nil ? "the checker could not open" : nil
        guard checker != nil else { return }
        // A fresh copy: drop whatever the last one held.
        let old = (try? rows("SELECT type, name FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'")) ?? []
        for entry in old where entry.0 == "table" || entry.0 == "view" {
            _ = try? run("DROP \(entry.0 == "table" ? "TABLE" : "VIEW") IF EXISTS \(Self.quote(entry.1))")
        }
        for statement in statements.sorted(by: { ($0.kind == "table" ? 0 : 1) < ($1.kind == "table" ? 0 : 1) }) {
            do {
                try run(statement.sql)
            } catch {
                // An index the copy cannot build (a collation of the store's) changes nothing
                // a statement touches; a trigger or view it cannot build would.
                if statement.kind == "trigger" || statement.kind == "view" {
                    incomplete = "its \(statement.kind) '\(statement.name)' could not be copied (\(error.message))"
                }
            }
        }
        mirroredVersion = version
    }

    /// Runs `sql` on the copy (a migration's schema change, mirrored as it is made).
    func run(_ sql: String) throws(CoordError) {
        guard let checker else { throw .database("the statement checker could not open") }
        var message: UnsafeMutablePointer<CChar>?
        if coordsh_checker_run(checker, sql, &message) != 0 {
            defer { coordsh_checker_free(message) }
            throw .database(message.map { String(cString: $0) } ?? "failed")
        }
    }

    /// Every access of every statement in `sql`, and how many statements it holds; throws
    /// SQLite's own message for text that does not compile against the copy.
    func inspect(_ sql: String) throws(CoordError) -> (accesses: [Access], statements: Int) {
        guard let checker else { throw .database("the statement checker could not open") }
        if let incomplete { throw .database("the store's schema could not be checked: \(incomplete)") }
        final class Collected { var accesses: [Access] = [] }
        let collected = Collected()
        var message: UnsafeMutablePointer<CChar>?
        var statements: Int32 = 0
        let code = withExtendedLifetime(collected) {
            coordsh_checker_inspect(checker, sql, { context, action, first, second, _, inner in
                guard let context else { return }
                let collected = Unmanaged<Collected>.fromOpaque(context).takeUnretainedValue()
                collected.accesses.append(Access(
                    action: action, first: first.map { String(cString: $0) }, second: second.map { String(cString: $0) },
                    inner: inner.map { String(cString: $0) }))
            }, Unmanaged.passUnretained(collected).toOpaque(), &statements, &message)
        }
        if code != 0 {
            defer { coordsh_checker_free(message) }
            throw .database(message.map { String(cString: $0) } ?? "does not compile")
        }
        return (collected.accesses, Int(statements))
    }

    /// The names of the copy's tables (not views).
    func tables() -> Set<String> {
        Set(((try? rows("SELECT type, name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%'")) ?? []).map(\.1))
    }

    private func rows(_ sql: String) throws(CoordError) -> [(String, String)] {
        // Read through a statement of the copy's own: the authorizer reports to nobody here.
        var result: [(String, String)] = []
        let text = try inspectRows(sql)
        for line in text { result.append(line) }
        return result
    }

    private func inspectRows(_ sql: String) throws(CoordError) -> [(String, String)] {
        guard let checker else { return [] }
        final class Box { var rows: [(String, String)] = [] }
        let box = Box()
        var message: UnsafeMutablePointer<CChar>?
        let code = withExtendedLifetime(box) {
            coordsh_checker_rows(checker, sql, { context, first, second in
                guard let context else { return }
                Unmanaged<Box>.fromOpaque(context).takeUnretainedValue().rows.append(
                    (first.map { String(cString: $0) } ?? "", second.map { String(cString: $0) } ?? ""))
            }, Unmanaged.passUnretained(box).toOpaque(), &message)
        }
        if code != 0 {
            defer { coordsh_checker_free(message) }
            throw .database(message.map { String(cString: $0) } ?? "failed")
        }
        return box.rows
    }

    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }
}
