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
    /// The statements the writer and the reader ran last, found again without hashing their
    /// text; new ones each time the file is opened, as the connections are.
    private var writerStatements = StatementMemo()
    private var readerStatements = StatementMemo()
    private var migrated: Set<String> = []
    /// A `--single-transaction` script's transaction is open on the pool's writer.
    private var inScript = false
    /// The writer's connection while a script's commands hold it (`holdingWriter`), with the
    /// pool it is the writer of.
    private var held: (pool: DatabasePool, db: Database)?
    /// The file's data version when the pool had opened it: the end compares it (`close`).
    private var openedVersion: UInt32 = 0

    /// - Parameter busyTimeout: how long a write waits for another process's lock before it
    ///   fails with "database is locked".
    public init(path: String, busyTimeout: TimeInterval = 2) {
        _ = Self.withoutMemoryStatistics
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

    /// SQLite's memory statistics off, once, before this process's first connection (see
    /// `coordsh_sqlite_without_memory_statistics`).
    private static let withoutMemoryStatistics: Int32 = coordsh_sqlite_without_memory_statistics()

    /// Opens the file now (creating it and its folder when missing); the error it throws is
    /// the one every later use would throw. The start-up calls `checkAtStart` instead.
    public func open() throws {
        _ = try connection()
    }

    /// What the start-up says about the file. Opening it through SQLite — GRDB's pool, the
    /// log's index rebuilt from the log, the schema — was a seventh of `coordsh -c 'echo ok'`,
    /// paid by every run whose commands need no data (`help`, `pages`, `echo`). So a file that
    /// can be seen to be an SQLite database this user may read and write, its log beside it,
    /// is opened by its first use instead; anything else — no file yet (made now), a file this
    /// user may only read, one that does not begin as SQLite's files do, a symbolic link, a
    /// missing or empty log — is opened now, and its warning is the start's, as always. A file
    /// that passes the look and still will not open (its header damaged past the first bytes)
    /// fails each use in the same one line that the start would have warned with.
    public func checkAtStart() throws {
        if Self.looksOpenable(location) { return }
        try open()
    }

    /// A regular file (not a link) of at least one page, beginning with SQLite's header string,
    /// which this user may read and write, with a non-empty log this user may read and write.
    private static func looksOpenable(_ path: String) -> Bool {
        guard path != ":memory:", !path.hasPrefix("file:") else { return false }
        let descriptor = Glibc.open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard descriptor >= 0 else { return false }
        defer { Glibc.close(descriptor) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size >= 512 else { return false }
        var header = [UInt8](repeating: 0, count: sqliteHeader.count)
        guard pread(descriptor, &header, header.count, 0) == header.count, header == sqliteHeader else { return false }
        var log = stat()
        guard stat(path + "-wal", &log) == 0, log.st_size > 0 else { return false }
        return faccessat(AT_FDCWD, path, R_OK | W_OK, AT_EACCESS) == 0 && faccessat(AT_FDCWD, path + "-wal", R_OK | W_OK, AT_EACCESS) == 0
    }

    /// The first 16 bytes of every SQLite database file (sqlite.org/fileformat.html, 1.3).
    private static let sqliteHeader = Array("SQLite format 3\0".utf8)

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
            _ = try readOnReader(reader) { db, _ in try Int.fetchOne(db, sql: "SELECT count(*) FROM sqlite_master") }
            openedVersion = pool.writeWithoutTransaction { db in Self.dataVersion(db) }
            self.pool = pool
            self.reader = reader
            writerStatements = StatementMemo()
            readerStatements = StatementMemo()
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
        _ = try? onWriterConnection(pool) { db in
            if Self.dataVersion(db) != openedVersion { _ = try? db.checkpoint(.passive) }
        }
    }

    /// `body` on `pool`'s writer: on the connection a script's commands hold, when they hold
    /// this pool's, directly (GRDB's queue would refuse a second entry: "not reentrant");
    /// otherwise through GRDB's queue.
    private func onWriterConnection<T>(_ pool: DatabasePool, _ body: (Database) throws -> T) throws -> T {
        if let held, held.pool === pool { return try body(held.db) }
        return try pool.writeWithoutTransaction(body)
    }

    /// Runs `body` — the commands of a `--single-transaction` script, inside its transaction —
    /// in one entry to the writer's connection, which each of their reads and writes then uses
    /// directly. Each entered GRDB's serial queue on its own before: a `dispatch_sync`, its
    /// blocks copied and released, and the metadata of an optional looked up twice in the
    /// dispatch library's unspecialised code — ≈ 2.5 k instructions of a shop command's 100 k
    /// (BENCHMARKS.md, issue 41). Every use of the writer here goes through
    /// `onWriterConnection`, so none enters the queue again while the script holds it.
    public func holdingWriter<T>(_ body: () -> T) -> T {
        guard inScript, held == nil, let pool else { return body() }
        return pool.writeWithoutTransaction { db in
            held = (pool, db)
            defer { held = nil }
            return body()
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
            if try !readOnReader(reader, { db, _ in try migrator.hasCompletedMigrations(db) }) {
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
                let statements = writerStatements
                if inScript { return try onWriterConnection(pool) { db in try body(Connection(db, statements: statements)) } }
                return try onWriterConnection(pool) { db in
                    try Self.inTransaction(db, "BEGIN DEFERRED") { try body(Connection(db, statements: statements)) }
                }
            }
            onReader += 1
            defer { onReader -= 1 }
            let statements = readerStatements
            return try readOnReader(reader) { db, version in try body(Connection(db, schemaVersion: version, statements: statements)) }
        } catch {
            throw translate(error)
        }
    }

    public func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        let pool = try connection()
        if onWriter > 0 || (inScript && onReader > 0) { throw Self.nested }
        onWriter += 1
        defer { onWriter -= 1 }
        let statements = writerStatements
        do {
            return try onWriterConnection(pool) { db in
                // Inside a --single-transaction script, a savepoint of the script's transaction.
                if inScript { return try Self.inCommandSavepoint(db, statements) { try body(Connection(db, statements: statements)) } }
                return try Self.inTransaction(db, "BEGIN IMMEDIATE") { try body(Connection(db, statements: statements)) }
            }
        } catch {
            throw translate(error)
        }
    }

    /// `work` in a read transaction on the reader, given the schema version the transaction
    /// reads. When the schema changed since its last read (another process's migration),
    /// GRDB's caches of it are emptied first — its compiled statements and their column names —
    /// as GRDB's own readers do. The version is read inside the transaction, once: the
    /// statement check's own look at it (`StoreGuard.prepare`) takes it from the connection
    /// rather than stepping the pragma again, once a read each command of a `-f` script.
    private func readOnReader<T>(_ reader: DatabaseQueue, _ work: (Database, Int64?) throws -> T) throws -> T {
        try reader.inDatabase { db in
            try Self.inTransaction(db, "BEGIN DEFERRED") {
                let version = try Connection(db).schemaVersion()
                if version != readerSchemaVersion {
                    db.clearSchemaCache()
                    readerSchemaVersion = version
                }
                return try work(db, version)
            }
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
    ///
    /// The savepoint is begun and released by stepping its statements directly: GRDB's
    /// `execute` (its observation and transaction-tracking hooks) cost more than SQLite's work
    /// for them, two each command. GRDB does not learn of this savepoint, which it only tracks
    /// for transaction observers (there are none); the rollback after a failure goes through
    /// GRDB, which lets a savepoint it does not know pass.
    static func inCommandSavepoint<T>(_ db: Database, _ statements: StatementMemo, _ work: () throws -> T) throws -> T {
        try Connection.step(db, "SAVEPOINT coordsh_command", statements: statements)
        let result: T
        do {
            result = try work()
        } catch {
            try? db.cachedStatement(sql: "ROLLBACK TO SAVEPOINT coordsh_command").execute()
            try? db.cachedStatement(sql: "RELEASE SAVEPOINT coordsh_command").execute()
            throw error
        }
        try Connection.step(db, "RELEASE SAVEPOINT coordsh_command", statements: statements)
        return result
    }

    public func beginScriptTransaction() throws {
        guard !inScript else { return }
        let pool = try connection()
        do {
            try onWriterConnection(pool) { db in try db.beginTransaction(.immediate) }
        } catch {
            throw translate(error)
        }
        inScript = true
    }

    public func endScriptTransaction(commit: Bool) throws {
        guard inScript, let pool else { return }
        inScript = false
        do {
            try onWriterConnection(pool) { db in
                guard db.isInsideTransaction else { return }
                if commit { try db.commit() } else { try db.rollback() }
            }
        } catch {
            if commit { _ = try? onWriterConnection(pool) { db in if db.isInsideTransaction { try db.rollback() } } }
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
