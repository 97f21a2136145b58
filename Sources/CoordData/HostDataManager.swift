import CoordRuntime
@_spi(Host) import CoordSDK

/// A data manager the host can open at start-up, so that a store that will not open is a
/// warning before the first prompt rather than a surprise at the first command.
@MainActor
public protocol HostDataManager: DataManaging {
    /// Opens the store now; throws the one line every later use would throw.
    func open() throws

    /// What the start-up calls: throws what would keep the store from opening, either by
    /// opening it now or, where a look at it costs far less and can tell, by looking.
    func checkAtStart() throws

    /// Opens one write transaction that every later `read` and `write` runs inside, until
    /// `endScriptTransaction`: `coordsh -1` (`--single-transaction`), like `psql -1`. Each
    /// `write` becomes a savepoint in it; reads see what the script wrote so far.
    func beginScriptTransaction() throws

    /// Commits the script's transaction, or rolls it back; nothing when none is open. A commit
    /// that fails leaves nothing written and throws its one line.
    func endScriptTransaction(commit: Bool) throws

    /// Runs `body` — the commands of a script between `beginScriptTransaction` and
    /// `endScriptTransaction` — holding whatever the store's accesses would otherwise take and
    /// give back at each one (SQLite: the writer's connection); the store's reads and writes
    /// inside it work as anywhere else.
    func holdingWriter<T>(_ body: () -> T) -> T

    /// Ends this process's use of the store (a later use opens it again). The shell and the
    /// worker call it before they exit: SQLite then puts what this process changed into the
    /// database file, and PostgreSQL ends the session instead of dropping it.
    func close()
}

extension SQLiteDataManager: HostDataManager {}
extension PostgresDataManager: HostDataManager {
    /// Nothing to hold: the session's connection is this manager's alone.
    public func holdingWriter<T>(_ body: () -> T) -> T { body() }
}

/// The data manager `--db` or `[data]` names.
public enum DataManagers {
    /// A PostgreSQL server for a `postgres://` or `postgresql://` URL; otherwise the SQLite
    /// file at that path.
    @MainActor
    public static func make(location: String, busyTimeout: Double, statementTimeout: Double) -> any HostDataManager {
        if let server = PostgresLocation(location) { return PostgresDataManager(server, statementTimeout: statementTimeout) }
        return SQLiteDataManager(path: location, busyTimeout: busyTimeout)
    }
}
