import CoordAccounting
import CoordClient
import CoordRuntime
import CoordSession
import CoordSupervision
import Foundation

extension Shell {
    /// `coordsh --supervised`: this process keeps the terminal, the history and the session's
    /// place; the plugins, coordinators and database run in a `coordsh-server worker` child, which a
    /// crash replaces (see `SupervisedBackend`).
    func runSupervised() -> Int32 {
        var arguments = ["worker", "--fd", "3", "--terminal"]
        // As in one process: commands given up front (-c) need no watch of the plugin folders.
        if !options.commands.isEmpty { arguments.append("--no-watch") }
        // As in one process: a script's home page is opened when a command first needs it.
        if !options.isInteractive { arguments.append("--script") }
        if let path = options.configPath { arguments += ["--config", path] }
        for directory in options.pluginDirectories { arguments += ["--plugin-dir", directory] }
        // The app process is `coordsh-server worker`: the shell itself does not contain it.
        let executable = HostExecutables.server
        let database = options.databasePath
        let launch = { (history: WorkerHistory) in
            try WorkerProcess(executable: executable, arguments: arguments, database: database, history: history)
        }
        // The first worker is the one the launcher started with this process, when it did
        // (`EarlyWorker`: the two executables' loading overlaps), else it starts here before
        // this process reads its configuration: its loading (plugins, database) and ours
        // overlap (`./bench startup`). It reads the same file.
        let early = EarlyWorker.claim().flatMap { started in
            try? WorkerProcess(adopting: started, arguments: arguments, database: database)
        }
        let first = early ?? (try? launch(WorkerHistory()))
        guard let config = loadConfig() else {
            first?.stop()
            return ShellError.Status.usage.rawValue
        }
        let backend: SupervisedBackend
        do {
            backend = try SupervisedBackend(
                secrets: SecretPrompt(environmentVariable: options.passwordEnvironmentVariable), answerTimeout: config.workerTimeout,
                quarantine: Quarantine(path: config.expandedQuarantinePath()),
                grants: GrantStore(path: config.expandedGrantsPath(), writable: true), configuredGrants: config.pluginGrants,
                first: first, documents: options.json, launch: launch)
        } catch {
            printError("cannot start the app process: \(error)", code: "connection")
            return ShellError.Status.failure.rawValue
        }
        // What the worker said at start (refused plugins, a database that would not open).
        let notices = backend.takePushed()
        printNotices(notices)
        if options.strictPlugins {
            let refused = notices.filter { $0.kind == .pluginRefused }.count
            if refused > 0 {
                printError("--strict-plugins: \(refused) plugin\(refused == 1 ? " was" : "s were") refused", code: "plugin")
                backend.stop()
                return Self.pluginFailure
            }
        }
        let status = drive(backend)
        // This process ends next: the worker's own end overlaps ours (`WorkerProcess.stop`).
        backend.stop(reaping: false)
        return status
    }
}
