@_spi(Host) import CoordSDK
import Foundation
import CoordRuntime
import CSQLiteLog
import CSQLiteQuery
import GRDB
#if canImport(Glibc)
import Glibc
#endif

/// The host's data manager: one SQLite file in WAL mode, opened through GRDB.
///
/// Features migrate and query it through the SDK's `DataManaging`. Opening is retried on each
/// use until it succeeds, so a database that was locked or missing at start-up does not keep
/// the shell from using it once it is free; until then every use fails with the same one-line
/// error and the shell keeps running.
@MainActor
public final class SQLiteDataManager: DataManaging {
    public let location: String
    public let backend = SQLBackend.sqlite
    private let configuration: Configuration
    private var pool: DatabasePool?
    /// The connection every read outside a write runs on, read-only. Not one of the pool's
    /// readers: all of this store's accesses come from the main actor, one at a time, so a
    /// pool of readers had nothing to share, and each read through it paid for a checkout and
    /// GRDB's schema check through its general query path — a seventh of a `-f` batch script.
    private var reader: DatabaseQueue?
    /// The schema version the reader's statements were compiled against (`readOnReader`).
    private var readerSchemaVersion: Int64?
    private var migrated: Set<String> = []
    /// A `--single-transaction` script's transaction is open on the pool's writer.
    private var inScript = false
    /// The file's data version when the pool had opened it: the end compares it (`close`).
    private var openedVersion: UInt32 = 0

    /// - Parameter busyTimeout: how long a write waits for another process's lock before it
    ///   fails with "database is locked".
    public init(path: String, busyTimeout: TimeInterval = 2) {
        location = path
        var configuration = Configuration()
        configuration.busyMode = .timeout(busyTimeout)
        configuration.label = "coordsh"
        // A --single-transaction script keeps its transaction open on the writer between the
        // accesses of its commands; GRDB refuses that unless told.
        configuration.allowsUnsafeTransactions = true
        // The log and its index stay between processes, so a run that changes nothing writes
        // nothing: the last connection's close would checkpoint the log and delete both, and
        // the next open make them again and write to the log (GRDB's pool wants it non-empty)
        // — a write, two syncs and a checkpoint for `coordsh -c help` — and a start that must
        // write cannot open a database another process is writing, or one it may only read.
        // `close` checkpoints when something changed.
        configuration.prepareDatabase { db in
            _ = coordsh_log_no_checkpoint_on_close(db.sqliteConnection)
        }
        self.configuration = configuration
    }

    /// Opens the file now (creating it and its folder when missing), so that the shell can
    /// warn at start-up; the error it throws is the one every later use would throw.
    public func open() throws {
        _ = try connection()
    }

    private func connection() throws -> DatabasePool {
        try connections().pool
    }

    private func connections() throws -> (pool: DatabasePool, reader: DatabaseQueue) {
        if let pool, let reader { return (pool, reader) }
        do {
            let folder = (location as NSString).deletingLastPathComponent
            if !folder.isEmpty, !FileManager.default.fileExists(atPath: folder) {
                try PrivateFolder.create(folder)
            }
            Self.createPrivately(location)
            let pool = try DatabasePool(path: location, configuration: configuration)
            var readOnly = configuration
            readOnly.readonly = true
            let reader = try DatabaseQueue(path: location, configuration: readOnly)
            readerSchemaVersion = nil
            // Reading the schema is what makes SQLite notice a file that is not a database.
            _ = try readOnReader(reader) { try Int.fetchOne($0, sql: "SELECT count(*) FROM sqlite_master") }
            openedVersion = pool.writeWithoutTransaction { db in Self.dataVersion(db) }
            self.pool = pool
            self.reader = reader
            return (pool, reader)
        } catch {
            throw translate(error)
        }
    }

    /// Ends this process's use of the file. When anything changed it since the open (this
    /// process's commits, or others' it saw), the log is checkpointed into the database file,
    /// synced: the file alone then holds everything (what a reader in another process still
    /// needs is left to that process's end). When nothing did, neither the database nor its
    /// log is written — no write, no sync. Later uses open the file again.
    ///
    /// The checkpoint is this method's, not SQLite's at the last connection's close: a close
    /// checkpoints only when no other connection is open, and the pool's connections may
    /// outlive this (in `serve` they stayed open after the pool was let go, to the end).
    public func close() {
        guard let pool else { return }
        self.pool = nil
        reader = nil
        migrated = []
        let openedVersion = openedVersion
        pool.writeWithoutTransaction { db in
            if Self.dataVersion(db) != openedVersion { _ = try? db.checkpoint(.passive) }
        }
    }

    private static func dataVersion(_ db: Database) -> UInt32 {
        var version: UInt32 = 0
        _ = coordsh_log_data_version(db.sqliteConnection, &version)
        return version
    }

    /// A database file this opens for the first time is made empty first, readable and
    /// writable by its owner only, whatever the umask: it will hold every account's password
    /// hash and login tokens. SQLite gives the log and its index the database's permissions.
    /// A file that exists keeps the ones it has (a person may share one with a group), and a
    /// name SQLite reads as no file (`:memory:`, a `file:` URI) is left to it.
    private static func createPrivately(_ path: String) {
        guard path != ":memory:", !path.hasPrefix("file:") else { return }
        let created = Glibc.open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        if created >= 0 { Glibc.close(created) }
    }

    public func migrate(feature: String, _ migrations: [Migration]) throws {
        let ids = migrations.map { "\(feature).\($0.identifier)" }
        guard !ids.allSatisfy(migrated.contains) else { return }
        let (pool, reader) = try connections()
        var migrator = DatabaseMigrator()
        for (id, migration) in zip(ids, migrations) {
            migrator.registerMigration(id) { db in try migration.apply(Connection(db)) }
        }
        do {
            // Checking needs only a read, so an up-to-date database starts even while another
            // process holds the write lock.
            if try !readOnReader(reader, migrator.hasCompletedMigrations) {
                try migrator.migrate(pool)
            }
        } catch {
            throw translate(error)
        }
        migrated.formUnion(ids)
    }

    // GRDB traps (a fatal error, not a thrown one) when a connection is asked for again from
    // inside its own access — a plugin calling `write` inside its `write`, or `read` inside
    // its `read` — so the accesses in progress are counted here and such a call is served
    // another way or refused in one line. A read inside a read runs on the writer's
    // connection; a read inside a write, or a write inside a read, on the other connection, as
    // always; a write inside a write cannot (there is one writer), nor, inside a -1 script's
    // transaction, which only the writer sees, any access inside another.

    /// Accesses in progress on the writer's connection and on a reader's (this thread's).
    private var onWriter = 0
    private var onReader = 0

    public func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        let (pool, reader) = try connections()
        // Inside a script's transaction only the writer sees what the script wrote.
        let writer = inScript || onReader > 0
        if writer, onWriter > 0 { throw Self.nested }
        do {
            if writer {
                onWriter += 1
                defer { onWriter -= 1 }
                if inScript { return try pool.writeWithoutTransaction { db in try body(Connection(db)) } }
                return try pool.writeWithoutTransaction { db in try Self.inTransaction(db, "BEGIN DEFERRED") { try body(Connection(db)) } }
            }
            onReader += 1
            defer { onReader -= 1 }
            return try readOnReader(reader) { db in try body(Connection(db)) }
        } catch {
            throw translate(error)
        }
    }

    public func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        let pool = try connection()
        if onWriter > 0 || (inScript && onReader > 0) { throw Self.nested }
        onWriter += 1
        defer { onWriter -= 1 }
        do {
            return try pool.writeWithoutTransaction { db in
                // Inside a --single-transaction script, a savepoint of the script's transaction.
                if inScript { return try Self.inCommandSavepoint(db) { try body(Connection(db)) } }
                return try Self.inTransaction(db, "BEGIN IMMEDIATE") { try body(Connection(db)) }
            }
        } catch {
            throw translate(error)
        }
    }

    /// `work` in a read transaction on the reader. When the schema changed since its last read
    /// (another process's migration), GRDB's caches of it are emptied first — its compiled
    /// statements and their column names — as GRDB's own readers do; the version is read by
    /// a statement stepped directly, not through GRDB's query path.
    private func readOnReader<T>(_ reader: DatabaseQueue, _ work: (Database) throws -> T) throws -> T {
        try reader.inDatabase { db in
            let version = try Connection(db).schemaVersion()
            if version != readerSchemaVersion {
                db.clearSchemaCache()
                readerSchemaVersion = version
            }
            return try Self.inTransaction(db, "BEGIN DEFERRED") { try work(db) }
        }
    }

    /// An access the store cannot serve inside the one in progress.
    static let nested = CoordError.database(
        "the data store was asked for a write inside another write (or, in a --single-transaction script, for any access inside another): use the handle the outer access was given")

    // A command's transaction and a -1 script command's savepoint are begun and ended through
    // statements compiled once per connection: GRDB's `read`, `inTransaction` and
    // `inSavepoint` compile their BEGIN, COMMIT, SAVEPOINT and RELEASE again at every call,
    // which was 8 % of a `-1` batch script and a fifth of a `-f` one.

    /// `work` in a transaction begun by `begin` (`BEGIN DEFERRED` to read, `BEGIN IMMEDIATE` to
    /// write), committed when it returns and rolled back when it throws or the commit fails.
    static func inTransaction<T>(_ db: Database, _ begin: String, _ work: () throws -> T) throws -> T {
        try db.cachedStatement(sql: begin).execute()
        let result: T
        do {
            result = try work()
            try db.cachedStatement(sql: "COMMIT").execute()
        } catch {
            // SQLite may have ended the transaction itself (a full disk); then there is none.
            if db.isInsideTransaction { try? db.cachedStatement(sql: "ROLLBACK").execute() }
            throw error
        }
        return result
    }

    /// `work` in a savepoint of the script's transaction, rolled back to when it throws. When
    /// SQLite has given up the whole transaction (a full disk), `work`'s error is what is thrown.
    static func inCommandSavepoint<T>(_ db: Database, _ work: () throws -> T) throws -> T {
        try db.cachedStatement(sql: "SAVEPOINT coordsh_command").execute()
        let result: T
        do {
            result = try work()
        } catch {
            try? db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT coordsh_command").execute()
            try? db.cachedStatement(sql: "RELEASE SAVEPOINT coordsh_command").execute()
            throw error
        }
        try db.cachedStatement(sql: "RELEASE SAVEPOINT coordsh_command").execute()
        return result
    }

    public func beginScriptTransaction() throws {
        guard !inScript else { return }
        let pool = try connection()
        do {
            try pool.writeWithoutTransaction { db in try db.beginTransaction(.immediate) }
        } catch {
            throw translate(error)
        }
        inScript = true
    }

    public func endScriptTransaction(commit: Bool) throws {
        guard inScript, let pool else { return }
        inScript = false
        do {
            try pool.writeWithoutTransaction { db in
                guard db.isInsideTransaction else { return }
                if commit { try db.commit() } else { try db.rollback() }
            }
        } catch {
            if commit { try? pool.writeWithoutTransaction { db in if db.isInsideTransaction { try db.rollback() } } }
            throw translate(error)
        }
    }

    public func integrityCheck() throws -> [String] {
        try read { db in try db.rows("PRAGMA integrity_check", []).map { $0.values.first?.description ?? "" } }
    }

    /// One line for any failure; a feature's own `CoordError` passes through unchanged.
    private func translate(_ error: any Error) -> any Error {
        if error is CoordError { return error }
        guard let error = error as? DatabaseError else {
            return CoordError.database("database \(location): \((error as NSError).localizedDescription)")
        }
        let reason: String
        switch error.resultCode {
        case .SQLITE_BUSY, .SQLITE_LOCKED:
            reason = "is locked by another process; try again when it is done"
        case .SQLITE_READONLY:
            reason = "is read-only; nothing was changed"
        case .SQLITE_NOTADB:
            reason = "is not a database (file is not a database); move it away or pass --db PATH"
        case .SQLITE_CORRUPT:
            reason = "is corrupt (\(error.message ?? "malformed")); restore it from a backup or pass --db PATH"
        case .SQLITE_CANTOPEN:
            reason = "cannot be opened (\(error.message ?? "unable to open")); check the path and its permissions"
        case .SQLITE_FULL:
            reason = "cannot grow: the disk is full; nothing was changed"
        default:
            reason = "failed: \(error.message ?? "\(error.resultCode)")"
        }
        return CoordError.database("database \(location) \(reason)")
    }
}

/// GRDB's connection behind the SDK's `SQLDatabase`, valid inside one read or write closure.
final class Connection: SQLDatabase {
    private unowned let db: Database

    init(_ db: Database) { self.db = db }

    // Statements are compiled once per connection and reused (GRDB's statement cache): a
    // batch script runs the same few statements thousands of times, and compiling them each
    // time (with GRDB's authorizer) was most of a command's cost. A string of several
    // statements (a migration's script) is run as a script instead.

    /// Runs one statement, or a script of several. An INSERT, UPDATE, DELETE or REPLACE inside
    /// the command's open transaction is bound and stepped here, as `rows` runs a query: it
    /// changes rows, never the transaction or the schema, which is what GRDB's path keeps
    /// track of (and its check for a transaction SQLite ended after an error is not needed
    /// when one is open). Anything else keeps GRDB's path.
    func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        guard Self.isSingleStatement(sql) else {
            try db.execute(sql: sql, arguments: Self.statementArguments(arguments))
            return
        }
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        guard coordsh_query_changes_rows(handle) != 0 else {
            try statement.execute(arguments: Self.statementArguments(arguments))
            return
        }
        defer { _ = coordsh_query_reset(handle) }
        try start(statement, arguments)
        while true {
            let code = coordsh_query_step(handle)
            if code == 101 { return }  // SQLITE_DONE
            guard code == 100 else { try check(code, statement); return }  // SQLITE_ROW (RETURNING), skipped
        }
    }

    /// A query's rows. GRDB compiles and caches the statement; one that only reads (a SELECT,
    /// a reading PRAGMA) is then bound, stepped and read column by column here: GRDB's cursor,
    /// its arguments of existential values and a `Row` per row cost more than SQLite's own work
    /// for the short queries a plugin runs per command (a sixth of a `-1` batch script). Other
    /// statements (`INSERT … RETURNING`) keep GRDB's path, which tracks what they change.
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let statement = try db.cachedStatement(sql: sql)
        let handle = statement.sqliteStatement
        guard coordsh_query_reads(handle) != 0 else {
            let columns = statement.columnNames
            let cursor = try Row.fetchCursor(statement, arguments: Self.statementArguments(arguments))
            var rows: [SQLRow] = []
            while let row = try cursor.next() {
                rows.append(SQLRow(columns: columns, values: row.databaseValues.map(SQLValue.init)))
            }
            return rows
        }
        // Reset at the end too, whatever happened: a query left stepping holds its read open.
        defer { _ = coordsh_query_reset(handle) }
        try start(statement, arguments)
        var rows: [SQLRow] = []
        var columns: [String] = []
        while true {
            let code = coordsh_query_step(handle)
            if code == 101 { return rows }  // SQLITE_DONE
            guard code == 100 else { try check(code, statement); return rows }  // SQLITE_ROW
            if rows.isEmpty { columns = Self.columns(of: statement) }
            var values: [SQLValue] = []
            values.reserveCapacity(columns.count)
            for column in 0..<Int32(columns.count) { values.append(Self.value(column, handle)) }
            rows.append(SQLRow(columns: columns, values: values))
        }
    }

    /// Resets the statement and binds `arguments`, one per parameter in the parameters' order
    /// (GRDB's rule, and its message when the count is wrong).
    private func start(_ statement: Statement, _ arguments: [SQLValue]) throws {
        let handle = statement.sqliteStatement
        try check(coordsh_query_reset(handle), statement)
        guard arguments.count == coordsh_query_parameter_count(handle) else {
            throw DatabaseError(resultCode: .SQLITE_MISUSE, message: "wrong number of statement arguments: \(arguments.count)", sql: statement.sql)
        }
        for (offset, value) in arguments.enumerated() {
            try check(Self.bind(value, at: Int32(offset + 1), handle), statement)
        }
    }

    /// The columns of a statement that has stepped: GRDB's names, read once per statement,
    /// until SQLite has compiled it again for a changed schema (a `SELECT *` of a table another
    /// process added a column to); from then on SQLite's own, read at each run.
    private static func columns(of statement: Statement) -> [String] {
        let handle = statement.sqliteStatement
        if coordsh_query_recompiled(handle) == 0 { return statement.columnNames }
        return (0..<coordsh_query_column_count(handle)).map { coordsh_query_column_name(handle, $0).map { String(cString: $0) } ?? "" }
    }

    /// SQLite's result code; SQLITE_TOOBIG (18) for a text or blob over 2 GiB, which its
    /// length cannot describe.
    private static func bind(_ value: SQLValue, at index: Int32, _ handle: OpaquePointer?) -> Int32 {
        switch value {
        case .null: return coordsh_query_bind_null(handle, index)
        case .integer(let v): return coordsh_query_bind_int64(handle, index, v)
        case .real(let v): return coordsh_query_bind_double(handle, index, v)
        case .text(var v):
            return v.withUTF8 { bytes in
                guard let length = Int32(exactly: bytes.count) else { return 18 }
                return coordsh_query_bind_text(handle, index, bytes.baseAddress, length)
            }
        case .blob(let v):
            return v.withUnsafeBytes { bytes in
                guard let length = Int32(exactly: bytes.count) else { return 18 }
                return coordsh_query_bind_blob(handle, index, bytes.baseAddress, length)
            }
        }
    }

    private static func value(_ column: Int32, _ handle: OpaquePointer?) -> SQLValue {
        var length: Int32 = 0
        switch coordsh_query_column_type(handle, column) {
        case 1: return .integer(coordsh_query_column_int64(handle, column))
        case 2: return .real(coordsh_query_column_double(handle, column))
        case 3:
            guard let text = coordsh_query_column_text(handle, column, &length) else { return .text("") }
            return .text(String(decoding: UnsafeBufferPointer(start: text, count: Int(length)), as: UTF8.self))
        case 4:
            let bytes = coordsh_query_column_blob(handle, column, &length)
            guard let bytes, length > 0 else { return .blob([]) }
            return .blob(Array(UnsafeRawBufferPointer(start: bytes, count: Int(length))))
        default: return .null
        }
    }

    /// SQLite's result code as GRDB's error (the store translates it into its one line).
    private func check(_ code: Int32, _ statement: Statement) throws {
        guard code != 0 else { return }
        throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
    }

    /// GRDB's arguments from the SDK's values, through its initializer for values of any type:
    /// the one for a sequence of one `DatabaseValueConvertible` type maps them with a generic
    /// key path, which the runtime builds again at every call (demangling type names) — 3 % of
    /// a batch script's time.
    static func statementArguments(_ values: [SQLValue]) -> StatementArguments {
        StatementArguments(values.map { value -> (any DatabaseValueConvertible)? in value.databaseValue })
    }

    /// No `;` except at the end: SQL text the statement cache can hold. Looked at as UTF-8
    /// bytes: as Characters, this scan was 5 % of a batch script (grapheme breaking).
    static func isSingleStatement(_ sql: String) -> Bool {
        let bytes = sql.utf8
        guard let semicolon = bytes.firstIndex(of: UInt8(ascii: ";")) else { return true }
        return bytes[bytes.index(after: semicolon)...].allSatisfy { $0 == 0x20 || (0x09...0x0D).contains($0) }
    }

    /// The schema's version number (`PRAGMA schema_version`): the statement check asks for it
    /// before every transaction of a feature. The cached statement is stepped directly —
    /// through GRDB's query machinery this one pragma was 3 % of the shop's cart cycle.
    func schemaVersion() throws -> Int64? {
        let statement = try db.cachedStatement(sql: "PRAGMA schema_version")
        var version: Int64 = 0
        switch coordsh_step_int64(statement.sqliteStatement, &version) {
        case 0: return version
        case 101: return nil
        case let code: throw DatabaseError(resultCode: ResultCode(rawValue: code), message: db.lastErrorMessage, sql: statement.sql)
        }
    }

    var lastInsertedRowID: Int64 { db.lastInsertedRowID }
    var backend: SQLBackend { .sqlite }
    var changes: Int { db.changesCount }
}

extension SQLValue {
    var databaseValue: DatabaseValue {
        switch self {
        case .null: .null
        case .integer(let v): v.databaseValue
        case .real(let v): v.databaseValue
        case .text(let v): v.databaseValue
        case .blob(let v): Data(v).databaseValue
        }
    }

    init(_ value: DatabaseValue) {
        switch value.storage {
        case .null: self = .null
        case .int64(let v): self = .integer(v)
        case .double(let v): self = .real(v)
        case .string(let v): self = .text(v)
        case .blob(let v): self = .blob(Array(v))
        }
    }
}
