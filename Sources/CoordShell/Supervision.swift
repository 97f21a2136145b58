import CoordRuntime
import Foundation

extension Shell {
    /// `coordsh --supervised`: this process keeps the terminal, the history and the session's
    /// place; the plugins, coordinators and database run in a `coordsh worker` child, which a
    /// crash replaces (see `SupervisedBackend`).
    func runSupervised() -> Int32 {
        guard let config = loadConfig() else { return ShellError.Status.usage.rawValue }
        var arguments = ["worker", "--fd", "3", "--terminal"]
        if let path = options.configPath { arguments += ["--config", path] }
        if let path = options.databasePath { arguments += ["--db", path] }
        for directory in options.pluginDirectories { arguments += ["--plugin-dir", directory] }
        let runningFile = NSTemporaryDirectory() + "coordsh-\(getpid())-running"
        defer { unlink(runningFile) }
        let executable = Shell.executablePath
        let backend: SupervisedBackend
        do {
            backend = try SupervisedBackend(
                secrets: SecretPrompt(environmentVariable: options.passwordEnvironmentVariable), answerTimeout: config.workerTimeout,
                quarantine: Quarantine(path: config.expandedQuarantinePath())
            ) {
                try WorkerProcess(executable: executable, arguments: arguments, runningFile: runningFile)
            }
        } catch {
            printError("cannot start the app process: \(error)", code: "connection")
            return ShellError.Status.failure.rawValue
        }
        // What the worker said at start (refused plugins, a database that would not open).
        printNotices(backend.takePushed())
        let status = drive(backend)
        backend.stop()
        return status
    }
}
