// coordsh-server: coordsh's command line plus `coordsh serve` and `coordsh worker`, the app
// process of a supervised shell or server (see HostExecutables for why they are apart).
import ArgumentParser
import CoordCLI
import CoordServe
// The shop's shared image is linked here, and nowhere in the host's modules (which use no shop
// type): it is mapped once at start, so that every shop plugin — bundled or an outside one
// built against the installed CoordShop — finds the one libCoordShop.so and shares its types.
import CoordShop
import Foundation

/// Where an app process finds its configuration, data and extra plugins: the same for
/// `coordsh serve` and the supervised shell's `coordsh worker`.
struct AppOptions: ParsableArguments {
    @Option(name: .customLong("config"), help: ArgumentHelp("Read the configuration from FILE.", valueName: "FILE"))
    var configPath: String?
    @Option(name: .customLong("db"), help: ArgumentHelp("Keep the shop's data in the SQLite FILE or on the PostgreSQL server URL.", valueName: "FILE|URL"))
    var databasePath: String?
    @Option(name: .customLong("plugin-dir"), help: ArgumentHelp("Also load plugins from DIR (repeatable).", valueName: "DIR"))
    var pluginDirectories: [String] = []

    var serveOptions: Serve.Options {
        var options = Serve.Options()
        options.configPath = configPath
        options.databasePath = databasePath
        options.pluginDirectories = pluginDirectories
        return options
    }
}

/// `coordsh serve`: one app, a scene per client.
struct ServeCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordsh serve",
        abstract: "Load the plugins and the database once and give every client on a Unix socket a scene of its own.",
        discussion: """
            The socket is $XDG_RUNTIME_DIR/coordsh/NAME.sock (without XDG_RUNTIME_DIR, \
            /tmp/coordsh-UID/NAME.sock) unless --socket names one. Only your own uid may attach. \
            Logs go to stderr. SIGTERM or SIGINT: no new clients, commands in flight finish, \
            clients get a goodbye, the socket is removed, exit 0. Limits: the [serve] section \
            of the config. The protocol: PROTOCOL.md. The app runs in a worker process this one \
            watches: a plugin that crashes costs its client one command, every scene is restored \
            in a new worker, and a new version of a loaded plugin is taken up without a restart; \
            --single-process runs it in this process instead.
            """)

    @Option(name: .customLong("socket"), help: ArgumentHelp("Listen on the Unix socket PATH.", valueName: "PATH"))
    var socketPath: String?
    @Option(name: .customLong("name"), help: ArgumentHelp("The server's name, for the default socket (default: default).", valueName: "NAME"))
    var name: String?
    @Flag(name: .customLong("single-process"), help: "Run the plugins in this process (a plugin's crash then ends the server and every scene).")
    var singleProcess = false
    @Option(
        name: .customLong("metrics"),
        help: ArgumentHelp(
            "Serve Prometheus metrics at http://HOST:PORT/metrics (loopback only unless [serve] metrics_any_address = true).",
            valueName: "HOST:PORT"))
    var metrics: String?
    @OptionGroup var app: AppOptions

    func validate() throws {
        if socketPath != nil, name != nil { throw ValidationError("give either --socket or --name, not both") }
    }

    func run() throws {
        var options = app.serveOptions
        options.socketPath = socketPath
        options.name = name
        options.supervised = !singleProcess
        options.metrics = metrics
        let status = MainActor.assumeIsolated { Serve.run(options) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `coordsh worker`: the app process of a supervised shell or server, started by its front.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordsh worker", shouldDisplay: false)

    @Option(name: .customLong("fd")) var descriptor: Int32
    @Flag(name: .customLong("terminal")) var terminal = false
    @Flag(name: .customLong("script")) var script = false
    @Option(name: .customLong("guest-tag")) var guestTag: String?
    @Option(name: .customLong("log-level")) var logLevel: String?
    @Flag(name: .customLong("no-watch")) var noWatch = false
    @Option(name: .customLong("metrics-fd")) var metricsDescriptor: Int32?
    @OptionGroup var app: AppOptions

    func run() throws {
        var options = Worker.Options()
        options.app = app.serveOptions
        options.descriptor = descriptor
        options.terminal = terminal
        options.script = script
        options.guestTag = guestTag
        options.logLevel = logLevel
        options.watchPlugins = !noWatch
        options.metricsDescriptor = metricsDescriptor
        let status = MainActor.assumeIsolated { Worker.run(options) }
        if status != 0 { throw ExitCode(status) }
    }
}

extension WorkerCommand {
    /// The worker line a supervised shell's front writes (`Shell.runSupervised`: `--fd N`,
    /// `--terminal`, `--no-watch`, `--script`, `--config FILE`, `--plugin-dir DIR`…), read without the
    /// parser, whose reflection costs a start ≈ 8 ms (BENCHMARKS.md, "Issue 41"); an early
    /// worker's start waits on it. Any other line is nil, for the parser.
    static func frontsLine(_ words: [String]) -> Worker.Options? {
        var options = Worker.Options()
        var index = words.startIndex
        var given: Set<String> = []
        while index < words.endIndex {
            let word = words[index]
            switch word {
            case "--terminal", "--no-watch", "--script":
                guard given.insert(word).inserted else { return nil }
                switch word {
                case "--terminal": options.terminal = true
                case "--script": options.script = true
                default: options.watchPlugins = false
                }
                index += 1
            case "--fd", "--config", "--plugin-dir":
                let next = index + 1
                guard next < words.endIndex, !words[next].hasPrefix("-"), word == "--plugin-dir" || given.insert(word).inserted else { return nil }
                switch word {
                case "--fd":
                    guard let descriptor = Int32(words[next]) else { return nil }
                    options.descriptor = descriptor
                case "--config": options.app.configPath = words[next]
                default: options.app.pluginDirectories.append(words[next])
                }
                index = next + 1
            default:
                return nil
            }
        }
        return given.contains("--fd") ? options : nil
    }
}

var arguments = Array(CommandLine.arguments.dropFirst())
// The app process the launcher started beside a supervised front: it waits for the front's
// worker line (`Worker.awaitEarlyStart`), then runs it as any worker's.
// The launcher passes on the front's `--config FILE`, if it saw one: the worker parses that
// configuration while it waits (`ConfigReadAhead`).
if arguments.starts(with: ["worker", "--early"]), arguments.count == 2 || (arguments.count == 4 && arguments[2] == "--config") {
    let words = Worker.awaitEarlyStart(configGuess: arguments.count == 4 ? arguments[3] : nil)
    if let options = WorkerCommand.frontsLine(words) {
        exit(MainActor.assumeIsolated { Worker.run(options) })
    }
    arguments = ["worker"] + words
}

CommandLineEntry.run(arguments, serverCommands: [
    "serve": { CommandLineEntry.main(ServeCommand.self, $0) },
    "worker": { CommandLineEntry.main(WorkerCommand.self, $0) },
])
