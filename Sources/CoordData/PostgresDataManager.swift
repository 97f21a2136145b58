import CLibPQ
import CLibPQLoader
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

/// The host's data manager on a PostgreSQL server, through libpq: what several coordsh hosts
/// share when one machine is not enough.
///
/// One connection, opened on first use and opened again on the next use after it broke (the
/// server restarted between two commands). `write` runs at SERIALIZABLE and runs its body
/// again, a bounded number of times, when the server reports a serialization failure or a
/// deadlock, so a handler's read-modify-write is as safe as under SQLite's one writer. Every
/// failure is one `CoordError.database` line naming the server — never the password.
@MainActor
public final class PostgresDataManager: DataManaging {
    public let backend = SQLBackend.postgresql
    public var location: String { server.display }
    private let server: PostgresLocation
    private let statementTimeout: TimeInterval
    private var connection: OpaquePointer?
    private let statements = StatementTexts()
    private var migrated: Set<String> = []
    /// How often `write` runs its body before a serialization failure is the user's error:
    /// four shells adding to one cart at once were seen to need more than eight.
    static let attempts = 40

    /// - Parameter statementTimeout: the longest one statement may run before the server
    ///   cancels it (and the transaction is rolled back).
    public init(_ server: PostgresLocation, statementTimeout: TimeInterval = 30) {
        self.server = server
        self.statementTimeout = statementTimeout
    }

    isolated deinit {
        if let connection { coordsh_PQfinish(connection) }
    }

    public func close() {
        guard let connection else { return }
        self.connection = nil
        coordsh_PQfinish(connection)
    }

    /// Connects now, so that the shell can warn at start-up; the error it throws is the one
    /// every later use would throw until the server answers.
    public func open() throws {
        _ = try connected()
    }

    /// Connects now: nothing short of asking the server tells whether it will answer.
    public func checkAtStart() throws {
        try open()
    }

    // MARK: Connection

    private func connected() throws(CoordError) -> PostgresConnection {
        if let connection, coordsh_PQstatus(connection) == CONNECTION_OK {
            return PostgresConnection(connection, location: server.display, statements: statements)
        }
        if let connection {
            coordsh_PQfinish(connection)
            self.connection = nil
        }
        // libpq is loaded here, the first time a PostgreSQL database is opened: a SQLite
        // shell never maps it (CLibPQLoader).
        var loadError = [CChar](repeating: 0, count: 320)
        guard coordsh_libpq_load(&loadError, loadError.count) == 0 else {
            throw .database("database \(server.display): \(String(decoding: loadError.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))")
        }
        guard let fresh = coordsh_PQconnectdb(server.connectionString) else {
            throw .database("database \(server.display): cannot connect: out of memory")
        }
        guard coordsh_PQstatus(fresh) == CONNECTION_OK else {
            let reason = PostgresConnection.oneLine(coordsh_PQerrorMessage(fresh).map { String(cString: $0) } ?? "")
            coordsh_PQfinish(fresh)
            throw .database("database \(server.display): cannot connect: \(reason)")
        }
        // libpq prints the server's notices (a warning that it is shutting down) on stderr,
        // which would break the one-line rule; the error that follows says what matters.
        coordsh_PQsetNoticeProcessor(fresh, { _, _ in }, nil)
        connection = fresh
        let session = PostgresConnection(fresh, location: server.display, statements: statements)
        // Warnings (a NOTICE for IF NOT EXISTS) are not the user's business.
        do throws(PostgresConnection.Failure) {
            try session.run("SET client_min_messages = warning", [])
            try session.run("SET statement_timeout = \(Int(statementTimeout * 1000))", [])
            // A backslash in an ordinary literal is a backslash, as SQLite reads it: the
            // plugins' statements are checked by SQLite's compiler (`DialectCheck`).
            try session.run("SET standard_conforming_strings = on", [])
        } catch {
            throw error.coordError(location: server.display, attempts: 1)
        }
        return session
    }

    /// True when the connection is gone (the server stopped, restarted or cut it): the work
    /// in flight was rolled back by the server, and a new connection may try again.
    private var isBroken: Bool {
        guard let connection else { return true }
        return coordsh_PQstatus(connection) != CONNECTION_OK
    }

    // MARK: DataManaging

    public func migrate(feature: String, _ migrations: [Migration]) throws {
        let ids = migrations.map { "\(feature).\($0.identifier)" }
        guard !ids.allSatisfy(migrated.contains) else { return }
        // READ COMMITTED under an advisory lock: two hosts starting at once take turns, and
        // the second sees what the first applied (a serializable snapshot taken before the
        // lock was granted would not).
        try transaction(begin: "BEGIN ISOLATION LEVEL READ COMMITTED") { db in
            try db.execute("SELECT pg_advisory_xact_lock(7423001)", [])
            try db.execute(
                "CREATE TABLE IF NOT EXISTS coordsh_migrations (identifier TEXT PRIMARY KEY, applied_at TEXT NOT NULL)", [])
            let applied = Set(try db.rows("SELECT identifier FROM coordsh_migrations", []).map { $0.string("identifier") })
            for (id, migration) in zip(ids, migrations) where !applied.contains(id) {
                try migration.apply(db)
                try db.execute("INSERT INTO coordsh_migrations (identifier, applied_at) VALUES (?, ?)", [SQLValue(id), .now])
            }
        }
        migrated.formUnion(ids)
    }

    public func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        if inScript { return try inScriptTransaction(savepoint: false, body) }
        return try transaction(begin: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY", body)
    }

    public func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        if inScript { return try inScriptTransaction(savepoint: true, body) }
        return try transaction(begin: "BEGIN ISOLATION LEVEL SERIALIZABLE", body)
    }

    // MARK: A --single-transaction script

    /// A script's transaction is open on the connection: reads and writes run inside it.
    private var inScript = false

    public func beginScriptTransaction() throws {
        guard !inScript else { return }
        let db = try connected()
        do throws(PostgresConnection.Failure) {
            try db.run("BEGIN ISOLATION LEVEL SERIALIZABLE", [])
        } catch {
            throw error.coordError(location: server.display, attempts: 1)
        }
        inScript = true
    }

    public func endScriptTransaction(commit: Bool) throws {
        guard inScript else { return }
        inScript = false
        guard !isBroken, let connection else {
            if commit {
                throw CoordError.database("database \(server.display): the connection was lost during the script; nothing it did was kept")
            }
            return
        }
        let db = PostgresConnection(connection, location: server.display, statements: statements)
        guard commit else { return db.rollback() }
        do throws(PostgresConnection.Failure) {
            try db.run("COMMIT", [])
        } catch {
            if !isBroken { db.rollback() }
            throw isBroken
                ? CoordError.database("database \(server.display): the connection was lost while committing the script; its changes may or may not have been made")
                : error.coordError(location: server.display, attempts: 1)
        }
    }

    /// Runs `body` inside the script's transaction, a write in a savepoint of its own. Nothing
    /// is retried: a serialization failure or a lost connection fails the script, whose
    /// transaction is then rolled back whole.
    private func inScriptTransaction<T>(savepoint: Bool, _ body: (any SQLDatabase) throws -> T) throws -> T {
        guard !isBroken, let connection else {
            throw CoordError.database("database \(server.display): the connection was lost during the script; nothing it did is kept")
        }
        let db = PostgresConnection(connection, location: server.display, statements: statements)
        do {
            if savepoint { try db.run("SAVEPOINT coordsh_command", []) }
            let result = try body(db)
            if savepoint { try db.run("RELEASE SAVEPOINT coordsh_command", []) }
            return result
        } catch let error as PostgresConnection.Failure {
            throw error.coordError(location: server.display, attempts: 1)
        }
    }

    public func integrityCheck() throws -> [String] {
        try read { db in _ = try db.rows("SELECT 1", []) }
        return ["ok"]
    }

    /// The pause after failed attempt `attempt`, in microseconds: short, growing and jittered,
    /// so that two writers that collided do not collide again at once — random between 0.5 ms
    /// and 1 ms × 2^attempt, never above 50 ms. Computed in Int with the shift bounded: in
    /// UInt32 the doubling wrapped to 0 at the 29th attempt, the range became empty and the
    /// shell trapped (SIGILL) under heavy write contention.
    static func retryPause(after attempt: Int) -> UInt32 {
        let ceiling = min(1_000 << min(max(attempt, 0), 6), 50_000)
        return UInt32(Int.random(in: 500...ceiling))
    }

    /// Runs `body` in a transaction opened with `begin`: committed when it returns, rolled back
    /// when it throws. Runs it again when the server asks for a retry (40001 serialization
    /// failure, 40P01 deadlock) or when the connection had broken before this transaction
    /// reached the server — never after a `COMMIT` was sent, whose outcome is then unknown.
    private func transaction<T>(begin: String, _ body: (any SQLDatabase) throws -> T) throws -> T {
        var attempt = 0
        while true {
            attempt += 1
            let db = try connected()
            var committing = false
            do {
                try db.run(begin, [])
                let result = try body(db)
                committing = true
                try db.run("COMMIT", [])
                return result
            } catch let error as PostgresConnection.Failure {
                if !isBroken { db.rollback() }
                if committing, isBroken {
                    throw CoordError.database(
                        "database \(server.display): the connection was lost while committing; the change may or may not have been made")
                }
                let retry = error.isRetryable || (isBroken && attempt == 1)
                guard retry, attempt < Self.attempts else { throw error.coordError(location: server.display, attempts: attempt) }
                if error.isRetryable { usleep(Self.retryPause(after: attempt)) }
            } catch {
                if !isBroken { db.rollback() }
                throw error
            }
        }
    }
}

/// libpq's connection behind the SDK's `SQLDatabase`, valid inside one read or write closure.
final class PostgresConnection: SQLDatabase {
    private let connection: OpaquePointer
    private let location: String
    private(set) var changes = 0
    var lastInsertedRowID: Int64 { 0 }
    var backend: SQLBackend { .postgresql }
    private let statements: StatementTexts

    init(_ connection: OpaquePointer, location: String, statements: StatementTexts) {
        self.connection = connection
        self.location = location
        self.statements = statements
    }

    /// A statement the server refused, or a connection that broke under it.
    struct Failure: Error {
        let state: String
        let message: String

        /// Serialization failure and deadlock: the transaction may simply run again.
        var isRetryable: Bool { state == "40001" || state == "40P01" }

        func coordError(location: String, attempts: Int) -> CoordError {
            let reason: String
            switch state {
            case "40001", "40P01":
                reason = "other writers kept conflicting with this change (\(attempts) attempts); nothing was changed, try again"
            case "57014":
                reason = "a statement ran longer than the statement timeout and was cancelled; nothing was changed"
            case "57P01", "57P02", "57P03", "08000", "08003", "08006", "":
                reason = "the connection to the server was lost (\(message)); nothing was changed, the next command reconnects"
            case "25006":
                reason = "a read tried to change data: \(message)"
            default:
                reason = "failed: \(message) (SQLSTATE \(state))"
            }
            return .database("database \(location): \(reason)")
        }
    }

    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        try run(sql, arguments)
    }

    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        try run(sql, arguments)
    }

    func rollback() {
        coordsh_PQclear(coordsh_PQexec(connection, "ROLLBACK"))
    }

    /// Runs one statement and returns its rows (none for a command).
    @discardableResult
    func run(_ sql: String, _ arguments: [SQLValue]) throws(Failure) -> [SQLRow] {
        let statement = try statements.translation(of: sql)
        guard statement.count == arguments.count else {
            throw Failure(state: "07001", message: "the statement takes \(statement.count) values, \(arguments.count) were given")
        }
        // PostgreSQL's text cannot hold a NUL; refused rather than cut short or stripped.
        if arguments.contains(where: { if case .text(let text) = $0 { text.utf8.contains(0) } else { false } }) {
            throw Failure(state: "22021", message: "a text value holds a NUL character, which PostgreSQL cannot store")
        }
        let result = Self.withParameters(arguments) { types, values, lengths, formats in
            coordsh_PQexecParams(connection, statement.sql, Int32(arguments.count), types, values, lengths, formats, 0)
        }
        defer { coordsh_PQclear(result) }
        guard let result else { throw Failure(state: "", message: Self.oneLine(errorText)) }
        switch coordsh_PQresultStatus(result) {
        case PGRES_COMMAND_OK:
            changes = Int(String(cString: coordsh_PQcmdTuples(result))) ?? 0
            return []
        case PGRES_TUPLES_OK:
            changes = Int(String(cString: coordsh_PQcmdTuples(result))) ?? 0
            return Self.rows(of: result)
        default:
            let state = coordsh_PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) } ?? ""
            let primary = coordsh_PQresultErrorField(result, Int32(UInt8(ascii: "M"))).map { String(cString: $0) }
            throw Failure(state: state, message: Self.oneLine(primary ?? errorText))
        }
    }

    private var errorText: String { coordsh_PQerrorMessage(connection).map { String(cString: $0) } ?? "no answer" }

    /// The values as libpq takes them: integers and reals as text with their type (so that the
    /// server compares them as numbers), text untyped (the server infers it from the column),
    /// blobs as binary `bytea`.
    private static func withParameters<R>(
        _ arguments: [SQLValue],
        _ body: (UnsafePointer<Oid>?, UnsafePointer<UnsafePointer<CChar>?>?, UnsafePointer<Int32>?, UnsafePointer<Int32>?) -> R
    ) -> R {
        var types: [Oid] = [], lengths: [Int32] = [], formats: [Int32] = []
        var buffers: [UnsafeMutablePointer<CChar>?] = []
        defer { for buffer in buffers { free(buffer) } }
        for argument in arguments {
            switch argument {
            case .null:
                types.append(0); lengths.append(0); formats.append(0); buffers.append(nil)
            case .integer(let value):
                types.append(20); lengths.append(0); formats.append(0); buffers.append(strdup(String(value)))
            case .real(let value):
                types.append(701); lengths.append(0); formats.append(0); buffers.append(strdup("\(value)"))
            case .text(let value):
                // `run` refused a NUL before this: the C string carries the whole text.
                types.append(0); lengths.append(0); formats.append(0); buffers.append(strdup(value))
            case .blob(let bytes):
                let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(bytes.count, 1))
                bytes.withUnsafeBytes { raw in
                    if let base = raw.baseAddress { memcpy(buffer, base, bytes.count) }
                }
                // free() releases it with the others: allocate is malloc on Linux.
                types.append(17); lengths.append(Int32(bytes.count)); formats.append(1); buffers.append(buffer)
            }
        }
        let values = buffers.map { UnsafePointer($0) }
        return types.withUnsafeBufferPointer { t in
            values.withUnsafeBufferPointer { v in
                lengths.withUnsafeBufferPointer { l in
                    formats.withUnsafeBufferPointer { f in body(t.baseAddress, v.baseAddress, l.baseAddress, f.baseAddress) }
                }
            }
        }
    }

    /// Every row, each value typed by its column's type: integers, reals (a `numeric` that is a
    /// whole number, as `sum()` gives, is an integer), booleans as 0/1, `bytea` as a blob,
    /// everything else as text.
    private static func rows(of result: OpaquePointer) -> [SQLRow] {
        let rowCount = coordsh_PQntuples(result), columnCount = coordsh_PQnfields(result)
        let columns = (0..<columnCount).map { String(cString: coordsh_PQfname(result, $0)) }
        let types = (0..<columnCount).map { coordsh_PQftype(result, $0) }
        var rows: [SQLRow] = []
        rows.reserveCapacity(Int(rowCount))
        for row in 0..<rowCount {
            var values: [SQLValue] = []
            values.reserveCapacity(Int(columnCount))
            for column in 0..<columnCount {
                if coordsh_PQgetisnull(result, row, column) != 0 {
                    values.append(.null)
                    continue
                }
                let text = String(cString: coordsh_PQgetvalue(result, row, column))
                switch types[Int(column)] {
                case 20, 21, 23, 26:  // int8, int2, int4, oid
                    values.append(Int64(text).map(SQLValue.integer) ?? .text(text))
                case 700, 701:  // float4, float8
                    values.append(Double(text).map(SQLValue.real) ?? .text(text))
                case 1700:  // numeric
                    values.append(Int64(text).map(SQLValue.integer) ?? Double(text).map(SQLValue.real) ?? .text(text))
                case 16:  // bool
                    values.append(.integer(text == "t" ? 1 : 0))
                case 17:  // bytea, text format: \x followed by hex
                    values.append(.blob(Self.bytes(fromHex: text)))
                default:
                    values.append(.text(text))
                }
            }
            rows.append(SQLRow(columns: columns, values: values))
        }
        return rows
    }

    private static func bytes(fromHex text: String) -> [UInt8] {
        var bytes: [UInt8] = []
        var high: UInt8?
        for scalar in text.unicodeScalars.dropFirst(2) {
            guard let nibble = UInt8(String(scalar), radix: 16) else { continue }
            if let h = high {
                bytes.append(h << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        return bytes
    }

    /// libpq's messages run over several lines (a hint under the error); one line here.
    static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: "; ")
    }
}

/// Statement texts with their placeholders translated, once per text: a script runs the same
/// few statements thousands of times.
final class StatementTexts {
    private var translated: [String: (sql: String, count: Int)] = [:]

    func translation(of sql: String) throws(PostgresConnection.Failure) -> (sql: String, count: Int) {
        if let known = translated[sql] { return known }
        do {
            let fresh = try PostgresPlaceholders.translate(sql)
            if translated.count > 4096 { translated.removeAll() }
            translated[sql] = fresh
            return fresh
        } catch {
            throw PostgresConnection.Failure(state: "42601", message: "a statement uses both '?' and '?N' placeholders")
        }
    }
}
