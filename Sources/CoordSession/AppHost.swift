import CoordAccounting
import CoordData
import CoordLoading
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

/// One running app: the root coordinator, its plugins, its configuration and its data — what
/// every scene of the process shares. The shell at a terminal puts one scene (one `Session`)
/// on it; `coordsh serve` one per attached client.
@MainActor
public final class AppHost {
    public let app: AppCoordinator
    public let loader: PluginLoader
    /// The configuration in force, for the `config` command.
    public let config: Config
    /// The `--db` file, which overrides the config's `[data] path`.
    let databaseOverride: String?
    /// The data store `start` opened (nil before).
    public private(set) var data: (any HostDataManager)?
    /// The open sessions, in opening order (`scenes` lists them).
    public private(set) var sessions: [Session] = []
    /// Events reported at the app itself rather than inside a scene. The shell prints them
    /// with its one session's; the server sends them to every client.
    public var onAppEvent: (DispatchEvent) -> Void = { _ in }
    /// The coordsh executable that vets new plugins in child processes; nil means this process,
    /// which is coordsh. A program that embeds the host (the benchmark) names coordsh here, or
    /// its children would be copies of itself.
    public var vettingExecutable: String?
    /// What each feature's code may reach (its data handle, the guarded services it was
    /// granted); also the key with which the host reads services sealed to plugins.
    package let access = HostFeatureAccess(grants: PluginGrants(configured: [:]))
    /// The person's remembered answers to plugins' requests, opened before the sandbox (the
    /// caller decides whether this process may write them); nil to remember none.
    public var grantStore: GrantStore?
    /// Whether each feature's code gets its own scoped data and only its granted services.
    /// Always on in coordsh; only the benchmark turns it off, in its own process, to measure
    /// what the scoping costs next to the same app without it.
    public var scopesFeatures = true
    /// What each plugin's code cost (`plugins stats`); nil when `[plugins] accounting` is off.
    package let stats: PluginStats?
    /// The session whose command runs now: told when a handler is slow.
    weak var running: Session?
    /// This app runs in a process a front supervises (`coordsh-server worker`): the front
    /// answers `restart` and `plugins upgrade`, and the sessions list them.
    package var hasFront = false

    public init(config: Config, databaseOverride: String? = nil) {
        self.app = AppCoordinator()
        self.config = config
        self.databaseOverride = databaseOverride
        self.loader = PluginLoader(app: app)
        self.stats = config.accounting ? PluginStats(slowThreshold: UInt64(config.slowHandler * 1e9)) : nil
        app.eventSink = { [unowned self] event in onAppEvent(event) }
        stats?.onSlow = { [unowned self] line in
            if let running { running.tell(.note(line)) } else { onAppEvent(.note(line)) }
        }
    }

    /// What starting reported: a database that would not open (every command that needs it
    /// then fails with this line) and the plugins refused.
    public struct StartReport {
        public var databaseWarning: String?
        public var refusals: [PluginRefusal]
    }

    /// Opens the database, provides the host's services and loads the plugins of the
    /// configured folders plus `extraPluginDirectories`. `secrets` is the app-wide way to ask
    /// for a password; a scene may lay its own over it (a client of a server asks its person).
    public func start(extraPluginDirectories: [String], secrets: any SecretPrompting) -> StartReport {
        var report = StartReport(databaseWarning: nil, refusals: [])
        let data = DataManagers.make(
            location: databaseOverride ?? config.databaseLocation(), busyTimeout: config.busyTimeout, statementTimeout: config.statementTimeout)
        self.data = data
        do {
            try data.checkAtStart()
        } catch {
            report.databaseWarning = "\(error)"
        }
        HostServices.provide(
            to: app,
            environment: HostEnvironment(
                dataDirectory: config.expandedDataDirectory(), configFile: config.source, settings: config.featureSettings),
            data: data, secrets: secrets)
        // One app counts per process: the clock is the SDK's.
        FeatureClock.accounting = stats
        access.grants = PluginGrants(configured: config.pluginGrants)
        access.grants.remembered = grantStore?.answers() ?? [:]
        access.app = app
        if scopesFeatures { app.install(access: access) }
        LoaderSetup.configure(loader, config: config, vettingExecutable: vettingExecutable)
        report.refusals = loader.loadAll(from: config.expandedPluginDirectories() + extraPluginDirectories)
        return report
    }

    /// The process is about to end: the data store is closed (what this app changed goes into
    /// a SQLite database's file; a run that changed nothing leaves it untouched).
    public func close() {
        data?.close()
    }

    /// The remembered answers changed (`plugins grant`, a prompt): they take effect at once —
    /// each feature's data handle and guarded services are handed out again.
    public func regrant() {
        access.grants.remembered = grantStore?.answers() ?? [:]
        app.rebuildDependencies()
    }

    /// Opens a scene for a new session. `visitor` says who it is for (the terminal's person,
    /// or one client: what the features keep for someone not logged in is keyed by it);
    /// `secrets`, when given, is how this scene asks its person for a password (over a
    /// client's socket) instead of the app's way.
    public func openSession(
        identifier: String, visitor: SceneVisitor, secrets: (any SecretPrompting)? = nil, peer: Session.Peer? = nil
    ) -> Session {
        let session = Session(host: self, identifier: identifier, peer: peer)
        session.scene.provide(Services.visitor, visitor, provider: "host")
        if let secrets { session.scene.provide(Services.secrets, secrets, provider: "host") }
        sessions.append(session)
        return session
    }

    /// Closes a session's scene: its coordinators hear `sceneWillClose` (a client's guest cart
    /// goes). Returns what was reported meanwhile, the dropped queued messages among it.
    public func closeSession(_ session: Session) -> [DispatchEvent] {
        sessions.removeAll { $0 === session }
        app.closeScene(session.scene)
        return session.drainEvents()
    }
}
