@_spi(Host) import CoordSDK

/// One store's guard, shared by every feature's handle on it: keeps the statement checker's
/// copy of the schema and the table owners in step with the store, and runs migrations so that
/// what they create is recorded as the migrating feature's.
@MainActor
final class StoreGuard {
    let store: any DataManaging
    /// Used from the connections' statements, which run on the main actor's thread inside
    /// `read` and `write` (the connection protocol itself is not isolated).
    nonisolated(unsafe) let guardian = DataGuard()
    /// Features whose declarations come granted (bundled with coordsh, or registered in code):
    /// they may claim tables that exist from before owners were recorded.
    var trusted: (String) -> Bool = { _ in true }

    init(store: any DataManaging) {
        self.store = store
        guardian.runsOnPostgres = store is PostgresDataManager
    }

    /// Brings the copy of the schema and the owners up to date before a transaction's first
    /// statement: on SQLite, when the schema version moved (one pragma per transaction) —
    /// another process may have migrated, and what it created is recorded in the owners table.
    nonisolated func prepare(_ db: any SQLDatabase) throws {
        if guardian.needsOwners { try loadOwners(db) }
        switch db.backend {
        case .sqlite:
            let version = try (db as? Connection)?.schemaVersion() ?? db.row("PRAGMA schema_version")?.values.first?.int64
            if version != guardian.checker.mirroredVersion {
                if guardian.checker.mirroredVersion != nil { try loadOwners(db) }
                try mirror(db, version: version)
            }
        case .postgresql:
            if guardian.checker.mirroredVersion == nil { try mirror(db, version: 0) }
        @unknown default: throw Self.unknownBackend(db)
        }
    }

    /// Copies the store's schema into the checker.
    nonisolated func mirror(_ db: any SQLDatabase, version: Int64?) throws {
        var statements: [(kind: String, name: String, sql: String)] = []
        switch db.backend {
        case .sqlite:
            for row in try db.rows(
                "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' ORDER BY rowid", []) {
                statements.append((row.string("type"), row.string("name"), row.string("sql")))
            }
        case .postgresql:
            // Tables and views by their columns: PostgreSQL's DDL is not SQLite's, and the
            // copy only needs the names a statement may use.
            var columns: [String: [String]] = [:]
            var order: [String] = []
            for row in try db.rows(
                "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() ORDER BY table_name, ordinal_position", []) {
                let table = row.string("table_name")
                if columns[table] == nil { order.append(table) }
                columns[table, default: []].append(StatementChecker.quote(row.string("column_name")))
            }
            // Unique keys too: an upsert's ON CONFLICT must name one, or SQLite will not compile it.
            var unique: [String: [String]] = [:]
            for row in try db.rows("""
                SELECT t.relname AS table_name, string_agg(quote_ident(a.attname), ', ' ORDER BY k.ord) AS columns
                FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid JOIN pg_namespace n ON n.oid = t.relnamespace
                CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
                JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
                WHERE n.nspname = current_schema() AND i.indisunique AND i.indpred IS NULL
                GROUP BY t.relname, i.indexrelid
                """, []) {
                unique[row.string("table_name"), default: []].append("UNIQUE (\(row.string("columns")))")
            }
            for table in order {
                let parts = (columns[table] ?? []) + (unique[table] ?? [])
                statements.append(("table", table, "CREATE TABLE \(StatementChecker.quote(table)) (\(parts.joined(separator: ", ")))"))
            }
        @unknown default: throw Self.unknownBackend(db)
        }
        guardian.checker.mirror(statements, version: version)
        guardian.invalidate()
    }

    /// A backend a later SDK names and this host's data layer does not know: refused in one
    /// line rather than checked as if it were one of the two it knows.
    nonisolated static func unknownBackend(_ db: any SQLDatabase) -> CoordError {
        .database("this coordsh does not know the data backend '\(db.backend.rawValue)'")
    }

    nonisolated func loadOwners(_ db: any SQLDatabase) throws {
        let exists: Bool
        switch db.backend {
        case .sqlite: exists = try db.int("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", [SQLValue(DataGuard.ownersTable)]) ?? 0 > 0
        case .postgresql: exists = try db.int("SELECT count(*) FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = ?", [SQLValue(DataGuard.ownersTable)]) ?? 0 > 0
        @unknown default: throw Self.unknownBackend(db)
        }
        let rows = exists ? try db.rows("SELECT table_name, feature FROM \(DataGuard.ownersTable)", []) : []
        guardian.loadOwners(rows.map { ($0.string("table_name"), $0.string("feature")) })
    }

    /// Runs `feature`'s migrations with each statement checked as the feature's own (schema
    /// changes to its own tables and new names only), and records what they create as its.
    func migrate(feature: String, _ migrations: [Migration]) throws {
        let isTrusted = trusted(feature)
        let guarded = migrations.map { migration in
            Migration(migration.identifier) { [self] db in
                try self.prepare(db)
                let connection = MigrationConnection(db, guardian: guardian, scope: DataGuard.MigrationScope(feature: feature), trusted: isTrusted)
                try migration.apply(connection)
                let created = connection.scope.created
                guard !created.isEmpty else { return }
                try db.execute("CREATE TABLE IF NOT EXISTS \(DataGuard.ownersTable) (table_name TEXT PRIMARY KEY, feature TEXT NOT NULL)", [])
                for table in created.map(\.text).sorted() {
                    try db.execute("INSERT INTO \(DataGuard.ownersTable) (table_name, feature) VALUES (?, ?) ON CONFLICT (table_name) DO NOTHING",
                                   [SQLValue(table), SQLValue(feature)])
                    guardian.recordOwner(table, feature: feature)
                }
            }
        }
        try store.migrate(feature: feature, guarded)
        try store.read { db in
            try loadOwners(db)
            // PostgreSQL has no schema version to notice the change by: copy it again.
            if db.backend == .postgresql { try mirror(db, version: 0) } else { try prepare(db) }
        }
        if trusted(feature), !guardian.ownsAny(feature) { try claim(feature: feature, migrations) }
    }

    /// A store made before owners were recorded: the tables a trusted feature's migrations
    /// create (run on an empty copy to learn their names) and nobody owns become its.
    private func claim(feature: String, _ migrations: [Migration]) throws {
        let scratch = StatementChecker()
        let connection = ScratchConnection(scratch)
        for migration in migrations { try? migration.apply(connection) }
        let existing = guardian.checker.tables()
        let claimed = scratch.tables().filter { existing.contains($0) && guardian.owner(of: $0) == nil && !DataGuard.hostTables.contains($0) }
        guard !claimed.isEmpty else { return }
        for table in claimed.sorted() { guardian.recordOwner(table, feature: feature) }
        // Kept in the store when it can be written; a read-only store keeps them in memory.
        try? store.write { db in
            try db.execute("CREATE TABLE IF NOT EXISTS \(DataGuard.ownersTable) (table_name TEXT PRIMARY KEY, feature TEXT NOT NULL)", [])
            for table in claimed.sorted() {
                try db.execute("INSERT INTO \(DataGuard.ownersTable) (table_name, feature) VALUES (?, ?) ON CONFLICT (table_name) DO NOTHING",
                               [SQLValue(table), SQLValue(feature)])
            }
        }
    }
}

/// A feature's handle on the store: what `Services.data` is in the feature's own
/// `AppDependency`. Every statement its code runs is checked as that feature's before it runs
/// (`DataGuard`); `feature` nil is the handle of the app's own value, which reaches no table.
@MainActor
final class ScopedData: DataManaging {
    let feature: String?
    let shared: StoreGuard

    init(feature: String?, shared: StoreGuard) {
        self.feature = feature
        self.shared = shared
    }

    var location: String { shared.store.location }
    var backend: SQLBackend { shared.store.backend }

    func migrate(feature name: String, _ migrations: [Migration]) throws {
        guard let feature else { throw Self.noFeature }
        guard name == feature else {
            throw CoordError.failed("\(feature): cannot run the migrations of feature '\(name)'; a feature migrates its own tables")
        }
        try shared.migrate(feature: feature, migrations)
    }

    func read<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        guard let feature else { throw Self.noFeature }
        return try shared.store.read { db in
            try shared.prepare(db)
            return try body(GuardedConnection(db, feature: feature, shared: shared))
        }
    }

    func write<T>(_ body: (any SQLDatabase) throws -> T) throws -> T {
        guard let feature else { throw Self.noFeature }
        return try shared.store.write { db in
            try shared.prepare(db)
            return try body(GuardedConnection(db, feature: feature, shared: shared))
        }
    }

    func integrityCheck() throws -> [String] { try shared.store.integrityCheck() }

    func adopt(_ db: any SQLDatabase) -> any SQLDatabase {
        guard let feature, let lent = db as? GuardedConnection, lent.shared === shared else { return db }
        return GuardedConnection(lent.inner, feature: feature, shared: shared)
    }

    static let noFeature = CoordError.failed(
        "this data handle belongs to no feature: a feature's code uses the one in its own coordinator's dependencies")
}

/// A connection that checks each statement before the store runs it: what the feature's and
/// the migration's connections share. The check refuses by default; each kind says what passes.
class CheckedConnection: SQLDatabase {
    let inner: any SQLDatabase

    init(_ inner: any SQLDatabase) { self.inner = inner }

    /// Throws the one-line refusal when `sql` may not run.
    func check(_ sql: String) throws {
        throw CoordError.failed("this connection checks no statement; nothing ran")
    }

    /// After `sql` ran (a migration keeps its copy of the schema up to date).
    func didExecute(_ sql: String, _ arguments: [SQLValue]) {}

    // Each statement, checked or refused, counts for the handler or page that ran it
    // (`plugins stats`).
    final func execute(_ sql: String, _ arguments: [SQLValue]) throws {
        let start = FeatureClock.ticks()
        defer { FeatureClock.statement(since: start) }
        try check(sql)
        try inner.execute(sql, arguments)
        didExecute(sql, arguments)
    }

    final func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] {
        let start = FeatureClock.ticks()
        defer { FeatureClock.statement(since: start) }
        try check(sql)
        return try inner.rows(sql, arguments)
    }

    final var lastInsertedRowID: Int64 { inner.lastInsertedRowID }
    final var changes: Int { inner.changes }
    final var backend: SQLBackend { inner.backend }
}

/// A connection lent to a feature's closure: each statement checked as the feature's.
final class GuardedConnection: CheckedConnection {
    let feature: String
    let shared: StoreGuard

    init(_ inner: any SQLDatabase, feature: String, shared: StoreGuard) {
        self.feature = feature
        self.shared = shared
        super.init(inner)
    }

    override func check(_ sql: String) throws {
        do {
            try shared.guardian.check(sql, feature: feature)
        } catch {
            guard case .database = error else { throw error }
            // Not compiled against the copy: another process may have changed the schema.
            try shared.mirror(inner, version: nil)
            try shared.guardian.check(sql, feature: feature)
        }
    }
}

/// A migration's connection: each statement checked as a schema change of the feature's, then
/// run, then mirrored into the checker so that the next statement sees it.
final class MigrationConnection: CheckedConnection {
    let guardian: DataGuard
    var scope: DataGuard.MigrationScope
    let trusted: Bool

    init(_ inner: any SQLDatabase, guardian: DataGuard, scope: DataGuard.MigrationScope, trusted: Bool) {
        self.guardian = guardian
        self.scope = scope
        self.trusted = trusted
        super.init(inner)
    }

    override func check(_ sql: String) throws {
        // The bundled features' PostgreSQL DDL (identity columns, partial indexes) need not
        // compile in the checker: it runs as it is, and their tables are claimed after
        // (`claim`). An outside plugin's is checked like any of its statements: what SQLite
        // cannot read is refused, in one line.
        if inner.backend == .postgresql, trusted { return }
        scope.created.formUnion(try guardian.checkMigration(sql, scope: scope))
    }

    override func didExecute(_ sql: String, _ arguments: [SQLValue]) {
        // The copy learns the new table at once, for the migration's next statement (on
        // PostgreSQL it is copied again from the server once the migration is done).
        if arguments.isEmpty, inner.backend == .sqlite || !trusted { try? guardian.checker.run(sql) }
    }
}

/// Runs a migration on an empty copy only, to learn the names of the tables it creates.
final class ScratchConnection: SQLDatabase {
    let checker: StatementChecker
    init(_ checker: StatementChecker) { self.checker = checker }
    func execute(_ sql: String, _ arguments: [SQLValue]) throws { try checker.run(sql) }
    func rows(_ sql: String, _ arguments: [SQLValue]) throws -> [SQLRow] { [] }
    var lastInsertedRowID: Int64 { 0 }
    var changes: Int { 0 }
    var backend: SQLBackend { .sqlite }
}
