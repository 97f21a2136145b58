import CoordData
import CoordRuntime
import CoordSDK
import Foundation

/// The shell's I/O around a `Session`: start-up (config, plugins, first page), then commands
/// from `-c`, from piped stdin, or from a person at the prompt, printed as text or JSON.
@MainActor
public final class Shell {
    public struct Options: Sendable {
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
        public init() {}
    }

    let options: Options
    var session: Session!
    /// Tells when a plugin file arrives in a plugin folder.
    var watcher: PluginWatcher?
    let out = Style(fileDescriptor: STDOUT_FILENO)
    let err = Style(fileDescriptor: STDERR_FILENO)
    var config = Config.builtIn()

    /// Exit status when `--strict-plugins` is given and a plugin was refused.
    public static let pluginFailure: Int32 = 3

    public init(options: Options) {
        self.options = options
    }

    /// Runs to the end and returns the process exit status: 0 when every command succeeded,
    /// otherwise the status of the first failing one (batch mode stops there).
    public func run() -> Int32 {
        do {
            config = try ConfigDiscovery.load(option: options.configPath)
            session = Session(config: config, databaseOverride: options.databasePath)
        } catch {
            printError("\(error)", code: "config")
            return ShellError.Status.usage.rawValue
        }
        let data = SQLiteDataManager(
            path: options.databasePath ?? config.expandedDatabasePath(), busyTimeout: config.busyTimeout)
        do {
            try data.open()
        } catch {
            // The shell still starts: every command that needs the data fails with this line.
            printWarning("warning: \(error)")
        }
        HostServices.provide(
            to: session.app,
            environment: HostEnvironment(
                dataDirectory: config.expandedDataDirectory(), configFile: config.source, settings: config.featureSettings),
            data: data, secrets: SecretPrompt(environmentVariable: options.passwordEnvironmentVariable))
        let directories = config.expandedPluginDirectories() + options.pluginDirectories
        Self.configure(session.loader, config: config)
        let refusals = session.loader.loadAll(from: directories)
        // Watched when the shell reads commands as they come (a terminal, -f, stdin), not for
        // -c: those are all given up front, and tearing down an inotify instance costs the
        // kernel an RCU grace period (~14 ms measured) at exit.
        if options.commands.isEmpty {
            watcher = PluginWatcher(directories: session.loader.directories)
        }
        for refusal in refusals {
            printWarning(refusal.description)
        }
        if options.strictPlugins, !refusals.isEmpty {
            printError("--strict-plugins: \(refusals.count) plugin\(refusals.count == 1 ? " was" : "s were") refused", code: "plugin")
            return Self.pluginFailure
        }

        let interactive = options.commands.isEmpty && options.scriptPath == nil && isatty(STDIN_FILENO) == 1
        if let url = options.openURL {
            if let status = runOne("open \(RouteRequest.quoteWord(url))"), !interactive { return status }
        } else if let home = config.home, let request = try? RouteRequest.parse(home),
            session.app.features.feature(named: request.feature) != nil {
            _ = try? session.open(request, trace: nil)
        }

        if let path = options.scriptPath {
            return runScript(path)
        }
        if !options.commands.isEmpty {
            var commands = options.commands.makeIterator()
            return runBatch(&commands)
        }
        if !interactive {
            // Line by line as they arrive, so that a script's output follows its commands.
            var lines = AnyIterator { readLine(strippingNewline: true) }
            return runBatch(&lines)
        }
        return runInteractive()
    }

    /// Runs a file of commands (`-f`); errors name the file and line.
    private func runScript(_ path: String) -> Int32 {
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            printError("cannot read script \(path)", code: "usage")
            return ShellError.Status.usage.rawValue
        }
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init).makeIterator()
        return runBatch(&lines, source: path)
    }

    /// Runs lines as they come; stops at the first failure unless `--keep-going`.
    private func runBatch<Lines: IteratorProtocol<String>>(_ lines: inout Lines, source: String? = nil) -> Int32 {
        var firstFailure: Int32?
        var number = 0
        while !quitRequested, let line = lines.next() {
            number += 1
            _ = pickUpDroppedPlugins(atPrompt: false)
            if let status = runOne(line, location: source.map { "\($0):\(number): " } ?? "") {
                if !options.keepGoing { return status }
                firstFailure = firstFailure ?? status
            }
        }
        return firstFailure ?? 0
    }

    private var quitRequested = false

    private func runInteractive() -> Int32 {
        if let view = session.currentView, !options.json { printLines(session.render(view)) }
        let history = options.noHistory ? nil : config.expandedHistoryPath()
        let editor = LineEditor(session: session, historyPath: history)
        if let watcher {
            editor.watch(watcher.descriptor) { [unowned self] in pickUpDroppedPlugins(atPrompt: true) }
        }
        while !quitRequested {
            let route = session.currentRoute.map { " \($0)" } ?? ""
            switch editor.read(prompt: "coordsh\(route)> ") {
            case .end:
                FileHandle.standardOutput.write(Data("\n".utf8))
                return 0
            case .interrupted:
                continue
            case .line(let line):
                editor.remember(line)
                _ = runOne(line)
            }
        }
        return 0
    }

    /// Loads the plugins that arrived in a plugin folder since the last look, with a note for
    /// each and a warning for each refusal. Returns whether it printed anything.
    private func pickUpDroppedPlugins(atPrompt: Bool) -> Bool {
        guard let watcher, watcher.drain() else { return false }
        let (loaded, refused) = session.loader.rescan()
        guard !loaded.isEmpty || !refused.isEmpty else { return false }
        if atPrompt { FileHandle.standardOutput.write(Data("\n".utf8)) }
        for plugin in loaded {
            printLines(["note: loaded plugin \(plugin.origin.name) \(plugin.origin.version) from \(plugin.origin.path)"])
        }
        for refusal in refused { printWarning(refusal.description) }
        printEvents(session.drainEvents())
        return true
    }

    /// Runs one line and prints its result; returns the failure status, or nil on success.
    private func runOne(_ line: String, location: String = "") -> Int32? {
        do {
            let result = try session.execute(line)
            if result.quit { quitRequested = true }
            let events = session.drainEvents()
            if options.json {
                guard !(result.lines.isEmpty && result.json.isEmpty && events.isEmpty) else { return nil }
                var document = result.json
                document["ok"] = true
                if !events.isEmpty { document["events"] = events.map(\.description) }
                printJSON(document)
            } else {
                printLines(result.lines)
                printEvents(events)
            }
            return nil
        } catch {
            printEvents(session.drainEvents())
            printError(location + error.message, code: error.code)
            return error.status.rawValue
        }
    }

    private func printEvents(_ events: [DispatchEvent]) {
        for event in events {
            if event.isFailure { printWarning(event.description) } else { printLines(["note: \(event)"]) }
        }
    }

    private func printLines(_ lines: [String]) {
        guard !lines.isEmpty else { return }
        FileHandle.standardOutput.write(Data((lines.map(out.line).joined(separator: "\n") + "\n").utf8))
    }

    private func printJSON(_ document: [String: Any]) {
        guard let data = try? JSONSerialization.data(withJSONObject: document, options: [.sortedKeys, .withoutEscapingSlashes]) else {
            printWarning("internal error: result is not JSON-serialisable")
            return
        }
        FileHandle.standardOutput.write(data + Data("\n".utf8))
    }

    private func printError(_ message: String, code: String) {
        if options.json {
            printJSON(["ok": false, "error": ["code": code, "message": message]])
        }
        FileHandle.standardError.write(Data("coordsh: \(err.error("error:")) \(message)\n".utf8))
    }

    private func printWarning(_ message: String) {
        FileHandle.standardError.write(Data("coordsh: \(err.warning(message))\n".utf8))
    }
}

extension RouteRequest {
    /// Quotes a word so that `Words.split` gives it back unchanged.
    static func quoteWord(_ word: String) -> String {
        "'" + word.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
