import CoordData
import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import CoordSupervision
import Foundation

/// The shell's I/O around a `Session`: start-up (config, plugins, first page), then commands
/// from `-c`, from piped stdin, or from a person at the prompt, printed as text or JSON.
@MainActor
public final class Shell {
    public struct Options: Sendable, Equatable {
        public var commands: [String] = []
        public var pluginDirectories: [String] = []
        public var configPath: String?
        public var json = false
        public var openURL: String?
        /// The database file, overriding the config's `[data] path`.
        public var databasePath: String?
        /// The environment variable passwords are read from in scripts.
        public var passwordEnvironmentVariable: String?
        /// Run every command of a batch even after one fails; the exit status is still the
        /// first failure's.
        public var keepGoing = false
        /// A file of commands to run (`-f`).
        public var scriptPath: String?
        /// Exit with `pluginFailure` when any plugin is refused at start-up.
        public var strictPlugins = false
        /// Keep no history of interactive lines.
        public var noHistory = false
        /// Run the app in a worker process the shell watches and restarts (`--supervised`).
        public var supervised = false
        /// Run the whole batch as one write transaction (`-1`, `--single-transaction`).
        public var singleTransaction = false
        /// Where the interactive history is kept when `noHistory` is off; the local shell
        /// takes the config's, `connect` its own.
        var historyPath: String?
        /// The prompt's first word: `coordsh`, or `coordsh@NAME` for a served scene.
        var promptName = "coordsh"
        public init() {}

        /// The prompt, not a script: no `-c`, no `-f`, and stdin a terminal.
        public var isInteractive: Bool {
            commands.isEmpty && scriptPath == nil && isatty(STDIN_FILENO) == 1
        }
    }

    var options: Options
    let out = Style(fileDescriptor: STDOUT_FILENO)
    let err = Style(fileDescriptor: STDERR_FILENO)

    /// Exit status when `--strict-plugins` is given and a plugin was refused.
    public static let pluginFailure: Int32 = 3

    public init(options: Options) {
        self.options = options
    }

    /// The app `run` started in this process, held for as long as this shell is: a caller that
    /// ends the process next (the command line does) exits with it still held, so the kernel
    /// takes its memory back at once. Released, the app freed every object it held one by one
    /// — the features of every plugin, the scene, the statement caches: ≈ 0.8 M instructions of
    /// a start with 100 plugins, spent on memory the exit frees anyway.
    /// (Nothing of the app's is said by its release: its end is `AppHost.close`, called
    /// before `run` returns.)
    private var ranApp: (host: AppHost, session: Session)?

    /// Runs to the end and returns the process exit status: 0 when every command succeeded,
    /// otherwise the status of the first failing one (batch mode stops there).
    public func run() -> Int32 {
        if options.supervised { return runSupervised() }
        // The launcher guessed this shell would be supervised; it runs the plugins itself.
        EarlyWorker.discard()
        guard let config = loadConfig() else { return ShellError.Status.usage.rawValue }
        // Read before the sandbox blanks the environment of this process, which runs plugins,
        // and closes every file outside it: the password variable, the -f script.
        let secrets = SecretPrompt(environmentVariable: options.passwordEnvironmentVariable)
        script = options.scriptPath.map { try? String(contentsOfFile: $0, encoding: .utf8) }
        // This process runs plugin code: the person's grants are read only here.
        let (sandbox, grants) = PluginSandbox.enterRunningPlugins(
            config: config, database: options.databasePath ?? config.databaseLocation(),
            pluginDirectories: config.expandedPluginDirectories() + options.pluginDirectories)
        if let warning = sandbox.warning {
            guard !sandbox.refused else {
                printError(warning, code: "sandbox")
                return ShellError.Status.failure.rawValue
            }
            printWarning(warning)
        }
        let host = AppHost(config: config, databaseOverride: options.databasePath)
        // The app is never released (its plugins hold it), so its end is said here.
        defer { host.close() }
        host.grantStore = grants
        let report = host.start(extraPluginDirectories: options.pluginDirectories, secrets: secrets)
        // The shell still starts: every command that needs the data fails with this line.
        if let warning = report.databaseWarning { printWarning("warning: \(warning)") }
        // A terminal is one person's: its guest cart is the database's shared one, kept for
        // the next shell on the same file.
        let session = host.openSession(identifier: "terminal", visitor: .terminal)
        ranApp = (host, session)
        host.onAppEvent = { [unowned session] event in session.tell(event) }
        // Watched when the shell reads commands as they come (a terminal, -f, stdin), not for
        // -c: those are all given up front, and tearing down an inotify instance costs the
        // kernel an RCU grace period (~14 ms measured) at exit.
        let watcher = options.commands.isEmpty ? PluginWatcher(directories: host.loader.directories) : nil
        for refusal in report.refusals {
            printWarning(refusal.description)
        }
        if options.strictPlugins, !report.refusals.isEmpty {
            let count = report.refusals.count
            printError("--strict-plugins: \(count) plugin\(count == 1 ? " was" : "s were") refused", code: "plugin")
            return Self.pluginFailure
        }
        if options.openURL == nil, let home = config.home, let request = try? RouteRequest.parse(home),
            host.app.features.feature(named: request.feature) != nil {
            // Rendered only where it is shown (the interactive start prints it itself): a
            // script's home page is a place to start from, not output — and opened only once a
            // command needs the scene (`Session.startRoute`).
            if options.isInteractive {
                _ = try? session.open(request, trace: nil, rendering: false)
            } else {
                session.startRoute = request
            }
        }
        guard options.singleTransaction else { return drive(LocalBackend(session: session, watcher: watcher)) }
        // Every plugin loaded before the transaction begins: a first load creates the plugin's
        // tables, which PostgreSQL's script transaction must not see half of.
        for failure in host.loader.loadRegistered() { printWarning(failure.message) }
        return driveInOneTransaction(LocalBackend(session: session, watcher: watcher), data: host.data)
    }

    /// `-1`: the batch inside one transaction of the data store, committed when every line
    /// succeeded, rolled back whole at the first failure (whose line the error names).
    private func driveInOneTransaction(_ backend: ShellBackend, data: (any HostDataManager)?) -> Int32 {
        guard let data else {
            printError("--single-transaction: there is no data store to run the script in", code: "database")
            return ShellError.Status.failure.rawValue
        }
        do {
            try data.beginScriptTransaction()
        } catch {
            printError("--single-transaction: \(error)", code: "database")
            return ShellError.Status.failure.rawValue
        }
        let status = data.holdingWriter { drive(backend) }
        do {
            try data.endScriptTransaction(commit: status == 0)
        } catch {
            printError("--single-transaction: the script's commands succeeded but its transaction did not commit, so nothing was kept: \(error)", code: "database")
            return ShellError.Status.failure.rawValue
        }
        if status != 0, let line = failedLine {
            printError("--single-transaction: rolled back: nothing the script did before \(line) was kept", code: "database")
        }
        return status
    }

    /// The configuration in force (a bad one is printed as one line: nil), with the history
    /// file taken from it.
    func loadConfig() -> Config? {
        do {
            let config = try ConfigDiscovery.load(option: options.configPath)
            options.historyPath = options.historyPath ?? config.expandedHistoryPath()
            return config
        } catch {
            printError("\(error)", code: "config")
            return nil
        }
    }

    /// The loop every shell runs, on whichever backend: the `--open` page, then `-f`, `-c`,
    /// piped stdin or the interactive prompt.
    func drive(_ backend: ShellBackend) -> Int32 {
        let interactive = options.isInteractive
        if let url = options.openURL {
            if let status = runOne(backend, "open \(Words.quote(url))"), !interactive { return status }
        }
        if let path = options.scriptPath {
            return runScript(backend, path)
        }
        if !options.commands.isEmpty {
            var commands = options.commands.makeIterator()
            return runBatch(backend, &commands)
        }
        if !interactive {
            // Line by line as they arrive, so that a script's output follows its commands.
            var lines = AnyIterator { readLine(strippingNewline: true) }
            return runBatch(backend, &lines)
        }
        return runInteractive(backend)
    }

    /// The `-f` file's text, read before the plugin sandbox closed the way to it (nil inside
    /// when it could not be read); nil when not read ahead (a supervised shell's front).
    private var script: String??

    /// Runs a file of commands (`-f`); errors name the file and line.
    private func runScript(_ backend: ShellBackend, _ path: String) -> Int32 {
        guard let text = script ?? (try? String(contentsOfFile: path, encoding: .utf8)) else {
            printError("cannot read script \(path)", code: "usage")
            return ShellError.Status.usage.rawValue
        }
        var lines = ScriptLines.split(text).makeIterator()
        return runBatch(backend, &lines, source: path)
    }

    /// Where the batch stopped, for `--single-transaction`'s last line: `line 50` of a file or
    /// stdin, `-c 3` for the third command.
    private var failedLine: String?

    /// Runs lines as they come; stops at the first failure unless `--keep-going`. With
    /// `--single-transaction` every error names its line, whatever the lines come from.
    private func runBatch<Lines: IteratorProtocol<String>>(_ backend: ShellBackend, _ lines: inout Lines, source: String? = nil) -> Int32 {
        var firstFailure: Int32?
        var number = 0
        while !quitRequested, let line = lines.next() {
            number += 1
            _ = printPushed(backend, atPrompt: false)
            // Where the line is, written only for an error (each line's cost 1,000 instructions).
            let location = { [options] in
                if let source { return "\(source):\(number): " }
                if options.singleTransaction { return options.commands.isEmpty ? "stdin:\(number): " : "-c \(number): " }
                return ""
            }
            if let status = runOne(backend, line, location: location()) {
                failedLine = options.commands.isEmpty ? "line \(number)" : "-c \(number)"
                if !options.keepGoing { return status }
                firstFailure = firstFailure ?? status
            }
        }
        return firstFailure ?? 0
    }

    private var quitRequested = false
    /// Requests already noted by a shell that cannot ask (plugin and file), said once each.
    var grantRequestsNoted: Set<String> = []
    /// A plugin may have arrived asking for something: asked about before the next prompt.
    var grantsPending = false

    private func runInteractive(_ backend: ShellBackend) -> Int32 {
        if let page = backend.startPage, !options.json { printLines(page) }
        let history = options.noHistory ? nil : options.historyPath
        let editor: LineEditor
        do throws(ShellError) {
            editor = try LineEditor(backend: backend, historyPath: history)
        } catch {
            printError(error.message, code: error.code)
            return error.status.rawValue
        }
        if let descriptor = backend.watchDescriptor {
            editor.watch(descriptor) { [unowned self] in
                guard printPushed(backend, atPrompt: true) else { return .nothing }
                return grantsPending ? .wantsTerminal : .printed
            }
        }
        grantsPending = true
        while !quitRequested {
            if grantsPending { askGrants(backend, editor: editor) }
            let route = backend.route.map { " \($0)" } ?? ""
            switch editor.read(prompt: "\(options.promptName)\(route)> ") {
            case .end:
                FileHandle.standardOutput.write(Data("\n".utf8))
                return 0
            case .interrupted, .yielded:
                continue
            case .line(let line):
                // Run first: a remote backend knows whether the line carried a secret (a card
                // number) only once its server has seen it, and a secret never enters history.
                _ = runOne(backend, line)
                editor.remember(line)
                // A plugin just loaded may ask for something.
                if line.split(separator: " ").first == "plugins" { grantsPending = true }
            }
        }
        return 0
    }

    /// Prints what arrived unasked. Returns whether it printed anything. A plugin that arrived
    /// may ask for something: the interactive shell asks at its next prompt.
    private func printPushed(_ backend: ShellBackend, atPrompt: Bool) -> Bool {
        let notices = backend.takePushed()
        guard !notices.isEmpty else { return false }
        if atPrompt { FileHandle.standardOutput.write(Data("\n".utf8)) }
        printNotices(notices)
        if notices.contains(where: { $0.kind == .pluginLoaded || $0.kind == .upgraded }) { grantsPending = true }
        return true
    }

    /// Runs one line and prints its reply; returns the failure status, or nil on success.
    private func runOne(_ backend: ShellBackend, _ line: String, location: @autoclosure () -> String = "") -> Int32? {
        var reply = backend.run(line)
        if reply.error == nil {
            do {
                reply = try GraphvizDrawing.draw(reply)
            } catch {
                reply.error = error
            }
        }
        if reply.result.quit { quitRequested = true }
        if let error = reply.error {
            printNotices(reply.notices)
            printError(location() + error.message, code: error.code)
            return error.status.rawValue
        }
        if options.json {
            if let document = reply.document { printJSON(document) }
        } else {
            printLines(reply.result.lines)
            printNotices(reply.notices)
        }
        return nil
    }

    func printNotices(_ notices: [Reply.Notice]) {
        for notice in notices {
            if notice.isWarning { printWarning(notice.text) } else { printLines(["note: \(notice.text)"]) }
        }
    }

    /// One write for a command's lines, gathered as bytes: appended to a `String` they were
    /// 4 % of a batch script's instructions.
    func printLines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        // Counted in a loop, not with `reduce`: a closure made on the main actor and handed to
        // the standard library checks its executor at each call (≈ 300 instructions a line).
        var count = lines.count
        for line in lines { count += line.utf8.count }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(count)
        for line in lines {
            bytes.append(contentsOf: out.line(line).utf8)
            bytes.append(UInt8(ascii: "\n"))
        }
        StandardStream.write(bytes, to: STDOUT_FILENO)
    }

    private func printJSON(_ document: JSONObject) {
        let object = JSONValue.object(document).foundationObject
        guard let data = try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            printWarning("internal error: result is not JSON-serialisable")
            return
        }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    func printError(_ message: String, code: String) {
        if options.json {
            printJSON(["ok": false, "error": ["code": .string(code), "message": .string(message)]])
        }
        StandardStream.write("coordsh: \(err.error("error:")) \(message)\n", to: STDERR_FILENO)
    }

    func printWarning(_ message: String) {
        StandardStream.write("coordsh: \(err.warning(message))\n", to: STDERR_FILENO)
    }
}
