/// The data stores a test can run on: the embedded SQLite file, and a PostgreSQL database on
/// the throwaway cluster `./test` starts.
public enum Backend: String, Sendable, CustomStringConvertible, CaseIterable {
    case sqlite
    case postgresql

    /// The backends this run has: SQLite always, PostgreSQL when its cluster is up. A suite
    /// run over these also has a test enabled only with PostgreSQL, so that a run without it
    /// reports that as skipped, with the reason, rather than passing quietly.
    public static var available: [Backend] { PostgresServer.isAvailable ? [.sqlite, .postgresql] : [.sqlite] }

    /// A new, empty store for one test: nil (the host's own SQLite file) or a fresh database's URL.
    public func freshLocation(_ label: String) throws -> String? {
        switch self {
        case .sqlite: nil
        case .postgresql: try PostgresServer.createDatabase(label)
        }
    }

    public var description: String { rawValue }
}
