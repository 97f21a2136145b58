import CoordProtocol
import CoordSandbox
@_spi(Host) import CoordSDK
import Foundation

/// The sandbox every process that runs plugin code enters before the first plugin is mapped:
/// the one-process shell, a supervised worker, `serve --single-process`, and the vetting and
/// contract children. What stays reachable is what coordsh itself needs — and so what every
/// plugin in the process may reach:
///
/// - read: the plugin folders, the SDK's folder and the folders of every library already
///   mapped (the Swift runtime), the system's libraries, the config file and the files its
///   plugin sections name (a catalog), a few files of /etc that libraries read (the linker's
///   cache, the time zone, user names, host names), /proc (a process started inside the
///   sandbox reads its own arguments there; the kernel keeps every other process's memory,
///   environment and descriptors from it, as Landlock forbids tracing outside the sandbox);
/// - read and write: the data folder and the database's folder, coordsh's state and cache
///   folders (history, quarantine, vetting verdicts), and what the caller adds (a worker's
///   running-command file, a server's socket folder, a contract child's scratch folder);
/// - run: coordsh's own two executables (vetting children) and the dynamic linker;
/// - connect: the configured PostgreSQL server's TCP port, or Unix sockets when it is reached
///   through a socket folder; nothing else, and no port bound;
/// - signal: only processes started inside the sandbox.
///
/// Nothing else of the person's: not their home, other folders, other programs, the network —
/// but what the person granted a plugin (`read-path`, `write-path`, `connect`, `run`, in the
/// config's `[plugins.grants]` or at a terminal). The kernel's rules are the process's: what
/// one plugin was granted, every plugin in the same process can reach (the data layer's
/// grants, by contrast, are per feature).
public enum PluginSandbox {
    /// The variables a process that runs plugin code keeps: where things are and how to show
    /// them. Nothing that may hold a secret (`PGPASSWORD`, the `--password-env` variable, an
    /// API token of the person's) reaches plugin code through the environment.
    public static let environmentAllowList: Set<String> = [
        "PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "TERM", "NO_COLOR", "COLUMNS", "LINES", "TMPDIR",
        "XDG_DATA_HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR",
        "SWIFT_BACKTRACE", "LLVM_PROFILE_FILE", "COORDSH_CONFIG", WireProtocol.workerRunningVariable,
    ]
    /// Kept by prefix: the locale's categories.
    public static let environmentAllowPrefixes = ["LC_"]

    /// What the caller's process adds to the host's rules.
    public struct Extra: Sendable {
        public var readable: [String] = []
        public var writable: [String] = []
        /// Unix sockets may be made (a server's listening socket).
        public var unixSockets = false
        /// Files, ports and programs the person granted plugins (`reach(config:grants:)`).
        public var granted: [Capability] = []
        public init() {}
    }

    /// What of the person's grants the kernel must let through: every `read-path`,
    /// `write-path`, `connect` and `run` given to any plugin by name, in the config or in
    /// the remembered answers. Known before any plugin is loaded, which is when the process
    /// confines itself.
    public static func reach(config: Config, grants: GrantStore?) -> [Capability] {
        let given = config.pluginGrants.values.flatMap { $0 } + (grants?.answers().values.flatMap(\.granted) ?? [])
        var reach: [Capability] = []
        for capability in given where !reach.contains(capability) {
            switch capability {
            case .readPath, .writePath, .connect, .run: reach.append(capability)
            case .read, .write, .service: continue
            // A kind of reach a later SDK adds is not let through until this host knows it.
            @unknown default: continue
            }
        }
        return reach
    }

    /// The rules for a process of this configuration whose database is `database` (a SQLite
    /// file or a PostgreSQL URL; none for a vetting child, which opens none) and whose plugin
    /// folders are `pluginDirectories`.
    public static func policy(config: Config, database: String?, pluginDirectories: [String], extra: Extra = Extra()) -> SandboxPolicy {
        var policy = SandboxPolicy()
        // A path named relative to the current folder (`--db shop.sqlite`) has its folder
        // there: the folder part of a bare name is empty, which would grant nothing.
        func folder(_ path: String) -> String {
            let absolute = path.hasPrefix("/") ? path : FileManager.default.currentDirectoryPath + "/" + path
            return (absolute as NSString).deletingLastPathComponent
        }

        policy.readable = pluginDirectories + systemLibraries() + Sandbox.loadedLibraryFolders()
            + ["/etc/ld.so.cache", "/etc/localtime", "/etc/passwd", "/etc/group", "/etc/nsswitch.conf", "/etc/hosts",
               "/etc/host.conf", "/etc/resolv.conf", "/etc/gai.conf", "/usr/share/zoneinfo", "/proc",
               "/sys/devices/system/cpu", "/sys/fs/cgroup", "/dev/urandom", "/dev/random"]
            + (config.source.map { [$0] } ?? []) + settingFiles(config)
            + extra.readable
        policy.devices = ["/dev/null", "/dev/zero", "/dev/tty"]

        var writable = [config.expandedDataDirectory(), folder(config.expandedQuarantinePath()),
                        folder(config.expandedVerdictCachePath()), folder(config.expandedHistoryPath())]
        if let database, let postgres = PostgresLocation(database) {
            switch postgres.transport {
            case .tcp(let port): policy.connectPorts = [port]
            case .unixSocket: policy.unixSockets = true
            }
        } else if let database {
            writable.append(folder(database))
        }
        // Under `./test --coverage` every process writes its profile when it exits.
        // One variable read with getenv: Foundation's `environment` builds a dictionary of the
        // whole environment, and the first such dictionary in a process looks its type up by
        // name (≈ 0.6 M instructions of the supervised worker's start; BENCHMARKS.md, issue 41).
        if let value = getenv("LLVM_PROFILE_FILE") {
            let profile = String(cString: value)
            if profile.hasPrefix("/") { writable.append(folder(profile)) }
        }
        policy.writable = writable + extra.writable
        policy.unixSockets = policy.unixSockets || extra.unixSockets
        for path in writable where !path.isEmpty {
            try? PrivateFolder.create(path)
        }

        let exeFolder = folder(HostExecutables.current)
        policy.executable = [exeFolder + "/" + HostExecutables.frontName, exeFolder + "/" + HostExecutables.serverName]
            + ["/lib64/ld-linux-x86-64.so.2", "/lib/ld-linux-aarch64.so.1", "/usr/lib64/ld-linux-x86-64.so.2"]
        for capability in extra.granted {
            switch capability {
            case .readPath(let path): policy.readable.append(path)
            case .writePath(let path): policy.writable.append(path)
            case .connect(_, let port): if let port = UInt16(exactly: port), !policy.connectPorts.contains(port) { policy.connectPorts.append(port) }
            case .run(let program): policy.executable.append(program)
            case .read, .write, .service: continue
            @unknown default: continue  // as in `reach`: unknown reach is not let through
            }
        }
        return policy
    }

    /// What entering the sandbox said: nil when the process is confined, else the one line
    /// the person sees (`warning: …`); `refused` when `[plugins] require_sandbox` forbids
    /// running plugin code unconfined.
    public struct Outcome: Sendable {
        public var warning: String?
        public var refused: Bool
        public init(warning: String?, refused: Bool) {
            self.warning = warning
            self.refused = refused
        }
    }

    /// `enter` for a process that runs plugin code (the shell in one process, a worker,
    /// `serve` in one process): the person's grants are opened read only — before the sandbox
    /// closes the way to them, and never for writing: plugin code must not grant itself — and
    /// what they and the config grant is let through. Returns the grants too, for the host.
    public static func enterRunningPlugins(
        config: Config, database: String, pluginDirectories: [String], extra: Extra = Extra()
    ) -> (outcome: Outcome, grants: GrantStore) {
        let grants = GrantStore(path: config.expandedGrantsPath(), writable: false)
        var extra = extra
        extra.granted = reach(config: config, grants: grants)
        return (enter(config: config, database: database, pluginDirectories: pluginDirectories, extra: extra), grants)
    }

    /// Keeps what the process needs from its environment and blanks the rest, then confines
    /// it. Call before the first plugin is mapped and before any other thread starts.
    public static func enter(config: Config, database: String?, pluginDirectories: [String], extra: Extra = Extra()) -> Outcome {
        // Read before the environment is blanked and the home closed.
        if let database, PostgresLocation.isURL(database) {
            _ = PostgresLocation.environmentPassword
            _ = PostgresLocation.passwordFileLines
        }
        Sandbox.scrubEnvironment(keep: environmentAllowList, keepPrefixes: environmentAllowPrefixes)
        let policy = policy(config: config, database: database, pluginDirectories: pluginDirectories, extra: extra)
        switch Sandbox.confine(policy) {
        case .success:
            return Outcome(warning: nil, refused: false)
        case .failure(let failure):
            if config.requireSandbox {
                return Outcome(warning: "the plugin sandbox is required ([plugins] require_sandbox) but \(failure): no plugin code runs", refused: true)
            }
            return Outcome(warning: "warning: the plugin sandbox is off (\(failure)): plugins can reach everything this user can", refused: false)
        }
    }

    /// The folders the system's libraries live in.
    static func systemLibraries() -> [String] {
        ["/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"]
    }

    /// Files the plugins' sections of the config name (a string value that is the path of an
    /// existing file, relative to the config's folder): the person named them for a plugin to
    /// read, like the catalog.
    static func settingFiles(_ config: Config) -> [String] {
        let base = config.source.map { ($0 as NSString).deletingLastPathComponent } ?? FileManager.default.currentDirectoryPath
        var files: [String] = []
        for text in config.featureTexts where !text.isEmpty && text.count < 4096 {
            let path = text.hasPrefix("/") ? text : (base as NSString).appendingPathComponent(text)
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: path, isDirectory: &isFolder), !isFolder.boolValue { files.append(path) }
        }
        return files
    }
}
