/// A feature's hold on the app's data store: the services it was last given, its own
/// migrations, and whether its tables are set up.
///
/// Every feature with tables needs the same three things, so they live here once: set the
/// tables up as soon as the data store arrives (other features read them inside their own
/// transactions, where no migration can run), retry on the next use if that failed (a locked
/// database), and refuse those in-transaction reads with one line while the tables are missing.
@MainActor
public final class FeatureStore {
    /// The feature whose tables these are: its data handle reaches these and no others.
    public let feature: String
    private let migrations: [Migration]
    private let setUp: (@MainActor (any DataManaging) throws -> Void)?
    /// The services as of the last dependency rebuild.
    @exclusivity(unchecked) public private(set) var dependencies = AppDependency()
    /// The migrations ran on the current data handle: reads and writes may start. False
    /// until the host provides the data service (a message that needs it waits meanwhile).
    @exclusivity(unchecked) public private(set) var isReady = false

    /// A store for `feature`'s tables, made once by the feature's service:
    ///
    ///     private let store = FeatureStore(feature: "wishlist", migrations: [
    ///         Migration("v1", sql: ["CREATE TABLE wishlist_items (user_id INTEGER NOT NULL, product_id INTEGER NOT NULL)"]),
    ///     ])
    ///
    /// - Parameters:
    ///   - feature: the feature's name: its data handle reaches its own tables and no others.
    ///   - migrations: its schema's steps, applied once each, in order, when the data store
    ///     first arrives (see `attach`).
    ///   - setUp: runs once after the migrations (say, seeding an empty table).
    public init(feature: String, migrations: [Migration], setUp: (@MainActor (any DataManaging) throws -> Void)? = nil) {
        self.feature = feature
        self.migrations = migrations
        self.setUp = setUp
    }

    /// Call from the feature's `ServiceProvision`: keeps the services and sets the tables up
    /// when it can; a failure is reported later by the first command that needs them.
    public func attach(_ dependencies: AppDependency) {
        self.dependencies = dependencies
        if !isReady { _ = try? data() }
    }

    /// The data store, with this feature's tables set up.
    public func data() throws -> any DataManaging {
        let data = try dataService()
        if !isReady {
            try data.migrate(feature: feature, migrations)
            try setUp?(data)
            isReady = true
        }
        return data
    }

    /// `db`, lent by another feature inside its transaction, as this feature's own (see
    /// `DataManaging.adopt`): call it at the top of a service method that takes `in db:`.
    public func adopt(_ db: any SQLDatabase) throws -> any SQLDatabase {
        try requireReady()
        return try dataService().adopt(db)
    }

    /// The data service as the last rebuild gave it, or the one line that says there is none.
    private func dataService() throws -> any DataManaging {
        // A copy: the services are unchecked (see `Responder.parent`), and reading one may set them.
        let dependencies = self.dependencies
        guard let data = dependencies[Services.data] else {
            throw CoordError.failed("\(feature): no data store is available")
        }
        return data
    }

    /// For methods other features call inside their transactions, where tables can no longer
    /// be created.
    public func requireReady() throws {
        guard isReady else {
            throw CoordError.failed("\(feature): its tables are not set up; '\(feature)' commands show why")
        }
    }
}
