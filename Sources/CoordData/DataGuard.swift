@_spi(Host) import CoordSDK

// SQLite's authorizer action codes (sqlite3.h; part of its stable interface).
private let SQLITE_CREATE_INDEX: Int32 = 1, SQLITE_CREATE_TABLE: Int32 = 2, SQLITE_CREATE_TRIGGER: Int32 = 7,
    SQLITE_CREATE_VIEW: Int32 = 8, SQLITE_DELETE: Int32 = 9, SQLITE_DROP_INDEX: Int32 = 10, SQLITE_DROP_TABLE: Int32 = 11,
    SQLITE_DROP_TRIGGER: Int32 = 16, SQLITE_DROP_VIEW: Int32 = 17, SQLITE_INSERT: Int32 = 18, SQLITE_PRAGMA: Int32 = 19,
    SQLITE_READ: Int32 = 20, SQLITE_SELECT: Int32 = 21, SQLITE_TRANSACTION: Int32 = 22, SQLITE_UPDATE: Int32 = 23,
    SQLITE_ATTACH: Int32 = 24, SQLITE_DETACH: Int32 = 25, SQLITE_ALTER_TABLE: Int32 = 26, SQLITE_REINDEX: Int32 = 27,
    SQLITE_FUNCTION: Int32 = 31, SQLITE_SAVEPOINT: Int32 = 32, SQLITE_RECURSIVE: Int32 = 33

/// What a feature may do to the data, as the host decided it (see `HostFeatureAccess`).
struct DataGrant {
    /// The plugin to name in a refusal (its file's plugin name), or nil for a feature
    /// registered in code.
    var plugin: String?
    /// Other features' tables it may read, and those it may also change.
    var reads: Set<TableName> = []
    var writes: Set<TableName> = []
}

/// Decides, before a statement runs, whether a feature's SQL stays within what it was granted:
/// its own tables (those its migrations created), the tables of others it was granted, nothing
/// of the host's, no transaction control, no attached files, no pragmas, and schema changes
/// only in its own migrations, to its own tables. Every statement of a string is checked,
/// with the bodies of the triggers it fires and of the views it reads
/// (`StatementChecker`). A verdict is kept per feature and SQL text until the schema, the
/// owners or the grants change, so a statement run a thousand times is compiled here once.
///
/// Which feature owns which table is kept in the store (`coordsh_table_owners`), written in
/// the transaction of the migration that created it.
final class DataGuard {
    /// Tables no feature touches, whatever it was granted: the host's own.
    static let hostTables: Set<String> = ["grdb_migrations", "coordsh_table_owners", "coordsh_migrations"]
    static let ownersTable = "coordsh_table_owners"

    let checker = StatementChecker()
    /// The store is PostgreSQL: text it would read differently from the checker's SQLite is
    /// refused first (`DialectCheck`).
    var runsOnPostgres = false
    /// Table → feature, the tables told apart as SQLite tells them (`TableName`).
    private var owners: [TableName: String] = [:]
    private var ownersLoaded = false
    /// The grants in force, by feature; a feature not here has none beyond its own tables.
    private var grants: [String: DataGrant] = [:]
    private var verdicts: [VerdictKey: CoordError?] = [:]
    /// The verdicts found last, in front of `verdicts`, whose keys cost a hash of up to 80 bytes
    /// of the text at every statement (`TextSlots`). Emptied whenever `verdicts` loses any.
    /// Unchecked: looked up or filled in one step, never across a call (the decision is made
    /// between the two); the access check cost a third of a lookup.
    @exclusivity(unchecked) private var recent = TextSlots<KeptVerdict>()
    /// How many statements were compiled to decide (the rest came from the verdicts).
    private(set) var compiled = 0

    /// Replaces the grants (after the person granted or revoked something).
    func setGrant(_ grant: DataGrant, for feature: String) {
        guard grants[feature]?.reads != grant.reads || grants[feature]?.writes != grant.writes || grants[feature]?.plugin != grant.plugin else { return }
        grants[feature] = grant
        verdicts = verdicts.filter { $0.key.feature != feature }
        recent.removeAll()
    }

    func grant(for feature: String) -> DataGrant { grants[feature] ?? DataGrant() }

    /// Forgets every verdict: the schema or the owners changed.
    func invalidate() {
        verdicts.removeAll(keepingCapacity: true)
        recent.removeAll()
    }

    func loadOwners(_ rows: [(table: String, feature: String)]) {
        owners = Dictionary(rows.map { (TableName($0.table), $0.feature) }, uniquingKeysWith: { first, _ in first })
        ownersLoaded = true
        invalidate()
    }

    var needsOwners: Bool { !ownersLoaded }

    func recordOwner(_ table: String, feature: String) {
        owners[TableName(table)] = feature
        invalidate()
    }

    /// The feature that owns `table`, if one does.
    func owner(of table: String) -> String? { owners[TableName(table)] }

    /// Whether `feature` owns a table.
    func ownsAny(_ feature: String) -> Bool { owners.values.contains(feature) }

    /// Throws the one-line refusal when `feature` may not run `sql` outside a migration.
    func check(_ sql: String, feature: String) throws(CoordError) {
        if let known = recent.value(for: sql, tag: feature) {
            if known.refused, let refusal = known.refusal { throw refusal }
            return
        }
        let key = VerdictKey(feature: feature, sql: sql)
        if let known = verdicts[key] {
            recent.keep(KeptVerdict(known), for: sql, tag: feature)
            if let refusal = known { throw refusal }
            return
        }
        let verdict: CoordError?
        do throws(CoordError) {
            try decide(sql, feature: feature, migration: nil)
            verdict = nil
        } catch {
            verdict = error
        }
        // A statement that did not compile is not remembered: the schema may catch up.
        if case .database = verdict {} else {
            verdicts[key] = verdict
            recent.keep(KeptVerdict(verdict), for: sql, tag: feature)
        }
        if let verdict { throw verdict }
    }

    /// A verdict as the slots keep it: a reference, and whether it refuses as a plain `Bool`.
    /// `CoordError` is the SDK's resilient enum, so each copy, test or destruction of a
    /// `CoordError?` went through its value witnesses (≈ 1,000 instructions a shop command);
    /// a statement let through now reads one flag.
    final class KeptVerdict {
        let refused: Bool
        let refusal: CoordError?

        init(_ refusal: CoordError?) {
            self.refusal = refusal
            refused = refusal != nil
        }
    }

    /// Tables being created by a migration that is running, by the feature running it.
    struct MigrationScope {
        var feature: String
        var created: Set<TableName> = []
    }

    /// The check of a statement of `feature`'s migration: schema changes allowed to its own
    /// tables and to new names; what it reads and writes as at run time. Returns the tables
    /// the statement creates.
    func checkMigration(_ sql: String, scope: MigrationScope) throws(CoordError) -> Set<TableName> {
        try decide(sql, feature: scope.feature, migration: scope)
    }

    @discardableResult
    private func decide(_ sql: String, feature: String, migration: MigrationScope?) throws(CoordError) -> Set<TableName> {
        compiled += 1
        if runsOnPostgres, let difference = DialectCheck.postgresDifference(sql) {
            throw .failed("\(feature): this SQL uses \(difference), which the statement check cannot read as PostgreSQL would; nothing ran")
        }
        let inspected: (accesses: [StatementChecker.Access], statements: Int)
        do {
            inspected = try checker.inspect(sql)
        } catch {
            throw .database("\(feature): \(error.message)")
        }
        let grant = grant(for: feature)
        var created: Set<TableName> = []
        func own(_ table: String) -> Bool {
            let name = TableName(table)
            return owner(of: table) == feature || migration?.created.contains(name) == true || created.contains(name)
        }
        func refuse(_ capability: Capability, _ what: String) -> CoordError {
            .notGranted(capability, context: "\(feature): \(what)", plugin: grant.plugin ?? feature)
        }
        func refuseOutright(_ what: String) -> CoordError {
            .failed("\(feature): \(what) is not allowed in a plugin's SQL; nothing ran")
        }
        for access in inspected.accesses {
            let first = access.first ?? ""
            let through = access.inner.map { " (through \($0))" } ?? ""
            switch access.action {
            case SQLITE_SELECT, SQLITE_RECURSIVE:
                continue
            case SQLITE_READ:
                if first.hasPrefix("sqlite_") { continue }
                if Self.hostTables.contains(first) { throw refuseOutright("reading coordsh's own table '\(first)'") }
                if own(first) || grant.reads.contains(TableName(first)) || grant.writes.contains(TableName(first)) { continue }
                throw refuse(.read(table: first), "reading table '\(first)'\(through) of \(ownerName(first))")
            case SQLITE_INSERT, SQLITE_UPDATE, SQLITE_DELETE:
                if first.hasPrefix("sqlite_") {
                    if migration != nil { continue }
                    // Writing the schema table is what a schema change does.
                    throw refuseOutright("changing the schema outside the feature's migrations")
                }
                if Self.hostTables.contains(first) { throw refuseOutright("changing coordsh's own table '\(first)'") }
                if own(first) || grant.writes.contains(TableName(first)) { continue }
                throw refuse(.write(table: first), "changing table '\(first)'\(through) of \(ownerName(first))")
            case SQLITE_FUNCTION:
                let name = (access.second ?? "").lowercased()
                if name == "load_extension" || name == "readfile" || name == "writefile" || name == "fts3_tokenizer" {
                    throw refuseOutright("the function \(name)()")
                }
            case SQLITE_CREATE_TABLE, SQLITE_CREATE_VIEW:
                guard migration != nil else { throw refuseOutright("changing the schema outside the feature's migrations") }
                if let owner = owner(of: first), owner != feature {
                    throw refuseOutright("creating '\(first)', which belongs to feature '\(owner)',")
                }
                if owner(of: first) == nil, checker.tables().contains(first), migration?.created.contains(TableName(first)) != true {
                    throw refuseOutright("creating '\(first)', which exists and is not the feature's,")
                }
                created.insert(TableName(first))
            case SQLITE_CREATE_INDEX, SQLITE_CREATE_TRIGGER, SQLITE_DROP_INDEX, SQLITE_DROP_TRIGGER:
                // first: the index or trigger, second: its table.
                guard migration != nil else { throw refuseOutright("changing the schema outside the feature's migrations") }
                let table = access.second ?? ""
                guard own(table) else { throw refuseOutright("an index or trigger on '\(table)', which is not the feature's,") }
            case SQLITE_DROP_TABLE, SQLITE_DROP_VIEW:
                guard migration != nil else { throw refuseOutright("changing the schema outside the feature's migrations") }
                guard own(first) else { throw refuseOutright("dropping '\(first)', which is not the feature's,") }
            case SQLITE_ALTER_TABLE:
                // first: the database, second: the table.
                guard migration != nil else { throw refuseOutright("changing the schema outside the feature's migrations") }
                let table = access.second ?? ""
                guard own(table) else { throw refuseOutright("altering '\(table)', which is not the feature's,") }
            case SQLITE_REINDEX:
                guard migration != nil else { throw refuseOutright("REINDEX outside the feature's migrations") }
            case SQLITE_TRANSACTION, SQLITE_SAVEPOINT:
                throw refuseOutright("transaction control (the host runs each command's transaction)")
            case SQLITE_ATTACH, SQLITE_DETACH:
                throw refuseOutright("attaching a database file")
            case SQLITE_PRAGMA:
                throw refuseOutright("PRAGMA \(first)")
            default:
                // Temporary tables, views, triggers and indexes, virtual tables, ANALYZE.
                throw refuseOutright("this statement (SQLite action \(access.action))")
            }
        }
        return created
    }

    private func ownerName(_ table: String) -> String {
        owner(of: table).map { "feature '\($0)'" } ?? "no feature of this process"
    }
}
