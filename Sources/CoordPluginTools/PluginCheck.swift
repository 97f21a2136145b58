import CoordContract
import CoordData
import CoordLoading
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// `coordsh plugin check PATH`: the contract suite against one plugin, run in child
/// processes of this binary so that a crash or a hang is a failed check, not a dead shell.
@MainActor
public enum PluginCheck {
    public struct Options: Sendable {
        public var path = ""
        public var json = false
        /// Check the plugin with no other plugin loaded (its dependencies are then only the
        /// host's services).
        public var alone = false
        public var configPath: String?
        public var pluginDirectories: [String] = []
        public var timeout: Double = 10
        public init() {}
    }

    /// Runs the suite; exit status 0 when every check passed, 1 otherwise, 2 for bad usage.
    public static func run(_ options: Options) -> Int32 {
        guard FileManager.default.fileExists(atPath: options.path) else {
            FileHandle.standardError.write(Data("coordsh: error: no such file: \(options.path)\n".utf8))
            return ShellError.Status.usage.rawValue
        }
        var extra: [String] = []
        if options.alone { extra.append("--alone") }
        if let config = options.configPath { extra += ["--config", config] }
        for directory in options.pluginDirectories { extra += ["--plugin-dir", directory] }
        let runner = ContractRunner(executable: LoaderSetup.executablePath, timeout: options.timeout)
        let results = runner.check(options.path, extraArguments: extra) { result in
            if !options.json { FileHandle.standardOutput.write(Data((result.description + "\n").utf8)) }
        }
        let passed = results.filter(\.passed).count, failed = results.count - passed
        if options.json {
            let document: [String: Any] = [
                "plugin": options.path, "passed": passed, "failed": failed, "ok": failed == 0,
                "checks": results.map(\.jsonObject),
            ]
            if let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]) {
                FileHandle.standardOutput.write(data + Data("\n".utf8))
            }
        } else {
            FileHandle.standardOutput.write(Data("\(passed) passed, \(failed) failed\n".utf8))
        }
        return failed == 0 ? 0 : ShellError.Status.failure.rawValue
    }
}

/// The child side of `plugin check` and of the loader's vetting: runs checks in this process
/// and prints one JSON line per event (see `ContractRunner`).
@MainActor
public enum PluginCheckChild {
    public struct Options: Sendable {
        public var path = ""
        public var from = 0
        public var only: [String]?
        public var descriptor: Int32?
        public var alone = false
        public var configPath: String?
        public var pluginDirectories: [String] = []
        /// The folder its scratch database goes in: the parent's to make and remove (this
        /// process is confined, and may not remove a folder of the temporary folder). None for
        /// vetting, which opens no database: then nothing is written.
        public var scratch: String?
        public init() {}
    }

    public static func run(_ options: Options) -> Int32 {
        let scratch = options.scratch
        // The plugin under test runs here: this process is confined before it is mapped, like
        // every process that runs plugin code (a bad configuration is reported by the checks
        // that need it; the rules then come from the built-in one).
        let config = (try? ConfigDiscovery.load(option: options.configPath)) ?? Config.builtIn()
        var extra = PluginSandbox.Extra()
        extra.readable = [options.path, (options.path as NSString).deletingLastPathComponent]
        extra.writable = scratch.map { [$0] } ?? []
        let sandbox = PluginSandbox.enter(
            config: config, database: scratch.map { $0 + "/contract.sqlite" },
            pluginDirectories: config.expandedPluginDirectories() + options.pluginDirectories, extra: extra)
        if sandbox.refused, let warning = sandbox.warning {
            emit(["result": ContractResult(id: "file", title: ContractSuite.checks[0].title, passed: false, detail: warning, refusal: nil).jsonObject])
            return 0
        }
        // Vetting runs only checks that need no services: it gets no scratch database and no
        // companions (it runs at start-up, once per new or changed plugin).
        let needsServices = options.only.map { $0.contains { !ContractSuite.vettingChecks.contains($0) } } ?? true
        let environment = needsServices ? ContractEnvironment { app, pluginName in
            try prepare(app, pluginName: pluginName, options: options, scratch: scratch)
        } : ContractEnvironment()
        let suite: ContractSuite
        if let descriptor = options.descriptor {
            do {
                suite = ContractSuite(file: try PluginFile(inheritedDescriptor: descriptor, path: options.path), environment: environment)
            } catch {
                emit(["result": ContractResult(
                    id: "file", title: ContractSuite.checks[0].title, passed: false, detail: error.reason, refusal: error.kind.rawValue
                ).jsonObject])
                return 0
            }
        } else {
            suite = ContractSuite(pluginAt: options.path, environment: environment)
        }
        var announced = false
        for (index, check) in ContractSuite.checks.enumerated() where index >= options.from {
            if let only = options.only, !only.contains(check.id) { continue }
            emit(["begin": check.id])
            let result = suite.run(index)
            if !announced, let (name, version) = suite.identity {
                announced = true
                emit(["plugin": ["name": name, "version": version]])
            }
            emit(["result": result.jsonObject])
        }
        return 0
    }

    /// The loaders of the installed plugins, kept for the child's life: a plugin registered
    /// from the registry cache is loaded on first use by its loader, which must still be there
    /// when a check reaches it (a message that reads the Account plugin's `user`).
    private static var companions: [PluginLoader] = []

    /// The services a shell would have, on a scratch database, and unless `--alone` the
    /// installed plugins (vetted and cached like at start-up), except the one under test.
    private static func prepare(_ app: AppCoordinator, pluginName: String, options: Options, scratch: String?) throws {
        guard let scratch else { throw CoordError.failed("no scratch folder for its database (--scratch, given by `coordsh plugin check`)") }
        let config = try ConfigDiscovery.load(option: options.configPath)
        let data = SQLiteDataManager(path: scratch + "/contract.sqlite", busyTimeout: 1)
        try data.open()
        HostServices.provide(
            to: app, environment: HostEnvironment(dataDirectory: scratch, configFile: config.source, settings: config.featureSettings),
            data: data, secrets: NoTerminal())
        // The plugin under test is granted what it declares and nothing more, so that what it
        // uses without declaring fails its checks, naming what was refused.
        var grants = PluginGrants(configured: config.pluginGrants)
        grants.declarationsGranted = [pluginName]
        let access = HostFeatureAccess(grants: grants)
        access.app = app
        app.install(access: access)
        guard !options.alone else { return }
        let loader = PluginLoader(app: app)
        LoaderSetup.configure(loader, config: config)
        if let real = realpath(options.path, nil) {
            loader.excludedPaths = [String(cString: real)]
            free(real)
        }
        loader.excludedNames = [pluginName]
        loader.loadAll(from: config.expandedPluginDirectories() + options.pluginDirectories)
        companions.append(loader)
    }

    private static func emit(_ object: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys]) else { return }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }
}

extension ContractResult {
    /// The result as the child prints it and `plugin check --json` reports it.
    var jsonObject: [String: Any] {
        var entry: [String: Any] = ["id": id, "title": title, "passed": passed, "detail": detail]
        if let refusal { entry["refusal"] = refusal }
        return entry
    }
}

/// The contract suite has no terminal: a message that asks for a password is refused.
@MainActor
final class NoTerminal: SecretPrompting {
    func secret(_ prompt: String, confirm: Bool) throws -> String {
        throw CoordError.failed("no terminal to ask for a password (contract suite)")
    }
}
