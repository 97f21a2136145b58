import ArgumentParser
import CoordServe
import CoordShell
import Foundation

/// The command line of coordsh; everything else lives in CoordShell.
struct CoordshCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordsh",
        abstract: "A command shell whose features are plugins.",
        discussion: """
            With no -c and a terminal on stdin, coordsh is interactive. Otherwise it runs the -c \
            commands, or the lines piped to it, and stops at the first failing command.
            Exit status: 0 success, 1 a command failed, 2 a usage error (bad option, unknown \
            command, route or parameter, bad configuration), 3 a plugin was refused and \
            --strict-plugins was given.
            'coordsh serve' holds one app for many clients on a Unix socket; 'coordsh connect' \
            is this shell attached to a new scene of it (see PROTOCOL.md).
            For plugin authors: 'coordsh plugin check PATH.so' runs the contract suite against a \
            plugin, 'coordsh plugin new NAME' starts one ('coordsh plugin --help').
            """)

    @OptionGroup var session: SessionOptions

    @Option(name: .customLong("plugin-dir"), help: ArgumentHelp("Also load plugins from DIR (repeatable).", valueName: "DIR"))
    var pluginDirectories: [String] = []

    @Option(name: .customLong("db"), help: ArgumentHelp("Keep the shop's data in the SQLite FILE, or on the PostgreSQL server postgres://USER@HOST[:PORT]/DB (default: the config's, else $XDG_DATA_HOME/coordsh/shop.sqlite).", valueName: "FILE|URL"))
    var databasePath: String?

    @Flag(name: .customLong("strict-plugins"), help: "Exit with status 3 if any plugin is refused at start-up.")
    var strictPlugins = false

    @Flag(name: .customLong("supervised"), help: "Run the plugins in an app process that a crash restarts, back on the same page (the default at a terminal).")
    var supervised = false

    @Flag(name: .customLong("single-process"), help: "Run the plugins in this process, even at a terminal (a plugin's crash then ends the shell).")
    var singleProcess = false

    @Flag(name: [.customShort("1"), .customLong("single-transaction")], help: "Run the -f file, the -c commands or piped stdin as one transaction: all or nothing, rolled back at the first failing line.")
    var singleTransaction = false

    func validate() throws {
        if supervised, singleProcess { throw ValidationError("give either --supervised or --single-process, not both") }
        if singleTransaction {
            if session.keepGoing {
                throw ValidationError("--single-transaction and --keep-going contradict each other: the first failure rolls the whole script back")
            }
            if supervised { throw ValidationError("--single-transaction runs the script in this process; leave out --supervised") }
            if session.commands.isEmpty, session.scriptPath == nil, isatty(STDIN_FILENO) == 1 {
                throw ValidationError("--single-transaction needs a script: -f FILE, -c COMMAND or commands on stdin")
            }
        }
    }

    func run() throws {
        var options = session.shellOptions
        // At a terminal the app runs supervised: a person's session is worth a worker process.
        // Scripts (-c, -f, piped stdin) stay in one process unless asked: they start faster,
        // and a crash there is an exit status, not a lost session.
        let interactive = session.commands.isEmpty && session.scriptPath == nil && isatty(STDIN_FILENO) == 1
        options.supervised = supervised || (interactive && !singleProcess)
        options.pluginDirectories = pluginDirectories
        options.databasePath = databasePath
        options.strictPlugins = strictPlugins
        options.singleTransaction = singleTransaction
        let status = MainActor.assumeIsolated { Shell(options: options).run() }
        if status != 0 { throw ExitCode(status) }
    }
}

/// The options of a shell session, the same for `coordsh` and `coordsh connect`: where the
/// commands come from, how results are printed, and how passwords are answered.
struct SessionOptions: ParsableArguments {
    @Option(name: .customShort("c"), help: ArgumentHelp("Run COMMAND and exit (repeatable).", valueName: "COMMAND"))
    var commands: [String] = []

    @Option(name: .customShort("f"), help: ArgumentHelp("Run the commands in FILE ('#' starts a comment) and exit.", valueName: "FILE"))
    var scriptPath: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("Read the configuration from FILE.", valueName: "FILE"))
    var configPath: String?

    @Flag(name: .customLong("json"), help: "Print every command's result as one JSON document.")
    var json = false

    @Option(name: .customLong("open"), help: ArgumentHelp("Start at the page of a coordsh:// deep link.", valueName: "URL"))
    var openURL: String?

    @Option(name: .customLong("password-env"), help: ArgumentHelp("Read passwords from the environment variable VAR instead of the terminal (for scripts).", valueName: "VAR"))
    var passwordEnvironmentVariable: String?

    @Flag(name: .customLong("keep-going"), help: "In batch mode, run every command even after one fails (exit status: the first failure's).")
    var keepGoing = false

    @Flag(name: .customLong("no-history"), help: "Do not read or write the interactive history.")
    var noHistory = false

    func validate() throws {
        if scriptPath != nil, !commands.isEmpty { throw ValidationError("give either -c or -f, not both") }
    }

    var shellOptions: Shell.Options {
        var options = Shell.Options()
        options.commands = commands
        options.scriptPath = scriptPath
        options.configPath = configPath
        options.json = json
        options.openURL = openURL
        options.passwordEnvironmentVariable = passwordEnvironmentVariable
        options.keepGoing = keepGoing
        options.noHistory = noHistory
        return options
    }
}

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
    @OptionGroup var app: AppOptions

    func validate() throws {
        if socketPath != nil, name != nil { throw ValidationError("give either --socket or --name, not both") }
    }

    func run() throws {
        var options = app.serveOptions
        options.socketPath = socketPath
        options.name = name
        options.supervised = !singleProcess
        let status = MainActor.assumeIsolated { Serve.run(options) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `coordsh connect`: the shell, attached to a new scene of a server.
struct ConnectCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordsh connect",
        abstract: "Attach to a coordsh server: the shell, in a scene of its own on the server's app.",
        discussion: "Everything runs on the server; -c, -f, piped stdin, --json, --keep-going and the exit statuses work as in coordsh.")

    @Option(name: .customLong("socket"), help: ArgumentHelp("The server's Unix socket.", valueName: "PATH"))
    var socketPath: String?
    @Option(name: .customLong("name"), help: ArgumentHelp("The server's name (default: default).", valueName: "NAME"))
    var name: String?
    @OptionGroup var session: SessionOptions

    func validate() throws {
        if socketPath != nil, name != nil { throw ValidationError("give either --socket or --name, not both") }
    }

    func run() throws {
        let options = session.shellOptions
        let status = MainActor.assumeIsolated { Shell(options: options).connect(socketPath: socketPath, name: name) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `coordsh worker`: the app process of a supervised shell or server, started by its front.
struct WorkerCommand: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "coordsh worker", shouldDisplay: false)

    @Option(name: .customLong("fd")) var descriptor: Int32
    @Flag(name: .customLong("terminal")) var terminal = false
    @Option(name: .customLong("guest-tag")) var guestTag: String?
    @Option(name: .customLong("log-level")) var logLevel: String?
    @Flag(name: .customLong("no-watch")) var noWatch = false
    @OptionGroup var app: AppOptions

    func run() throws {
        var options = Worker.Options()
        options.app = app.serveOptions
        options.descriptor = descriptor
        options.terminal = terminal
        options.guestTag = guestTag
        options.logLevel = logLevel
        options.watchPlugins = !noWatch
        let status = MainActor.assumeIsolated { Worker.run(options) }
        if status != 0 { throw ExitCode(status) }
    }
}

/// `coordsh plugin …`: tools for plugin authors.
struct PluginCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "coordsh plugin", abstract: "Check a plugin against the contract, or start a new one.",
        subcommands: [CheckCommand.self, NewCommand.self])
}

struct CheckCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check",
        abstract: "Run the plugin contract suite against PATH.so in a child process.",
        discussion: "Prints one line per check and 'N passed, N failed'; exits 0 only when every check passed. A crash or hang fails the check it happened in.")

    @Argument(help: "The plugin's .so file.") var path: String
    @Flag(name: .customLong("json"), help: "Print the results as one JSON document.") var json = false
    @Flag(name: .customLong("alone"), help: "Load no other plugin: its dependencies are only the host's services.") var alone = false
    @Option(name: .customLong("config"), help: ArgumentHelp("Read the configuration (plugin folders, feature settings) from FILE.", valueName: "FILE"))
    var configPath: String?
    @Option(name: .customLong("plugin-dir"), help: ArgumentHelp("Also load plugins from DIR as its companions (repeatable).", valueName: "DIR"))
    var pluginDirectories: [String] = []
    @Option(name: .customLong("timeout"), help: ArgumentHelp("Seconds one check may take before it counts as hung.", valueName: "SECONDS"))
    var timeout: Double = 10

    // The child side (the parent starts it; also the loader's vetting).
    @Flag(name: .customLong("child"), help: .hidden) var child = false
    @Option(name: .customLong("from"), help: .hidden) var from = 0
    @Option(name: .customLong("only"), help: .hidden) var only: String?
    @Option(name: .customLong("fd"), help: .hidden) var descriptor: Int32?

    func run() throws {
        let status = MainActor.assumeIsolated { () -> Int32 in
            if child {
                var options = PluginCheckChild.Options()
                options.path = path
                options.from = from
                options.only = only?.split(separator: ",").map(String.init)
                options.descriptor = descriptor
                options.alone = alone
                options.configPath = configPath
                options.pluginDirectories = pluginDirectories
                return PluginCheckChild.run(options)
            }
            var options = PluginCheck.Options()
            options.path = path
            options.json = json
            options.alone = alone
            options.configPath = configPath
            options.pluginDirectories = pluginDirectories
            options.timeout = timeout
            return PluginCheck.run(options)
        }
        if status != 0 { throw ExitCode(status) }
    }
}

struct NewCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "new",
        abstract: "Create a plugin package NAME: a coordinator, two pages, one message and a contract test.")

    @Argument(help: "The feature's name and message prefix (lower-case letters and digits).") var name: String
    @Option(name: .customLong("path"), help: ArgumentHelp("Create it in DIR (default: ./NAME).", valueName: "DIR"))
    var path: String?
    @Option(name: .customLong("sdk"), help: ArgumentHelp("The coordsh SDK package to build against (default: the one this binary was built from).", valueName: "DIR"))
    var sdk: String?

    @Option(name: .customLong("config"), help: ArgumentHelp("The configuration whose plugin folders hold the plugins a new name must not clash with.", valueName: "FILE"))
    var configPath: String?

    func run() throws {
        let directory = path ?? name
        let sdkPath = sdk ?? PluginTemplate.defaultSDKPath
        do {
            let taken = MainActor.assumeIsolated { PluginTemplate.takenNames(configPath: configPath) }
            let files = try PluginTemplate.create(name: name, in: directory, sdkPath: sdkPath, taken: taken)
            print("created plugin '\(name)' in \(directory), built against the SDK in \(sdkPath):")
            for file in files { print("  \(file)") }
            print("build it with: cd \(directory) && swift build")
        } catch {
            FileHandle.standardError.write(Data("coordsh: error: \(error)\n".utf8))
            throw ExitCode(2)
        }
    }
}

/// Parses and runs `Command`. A bad option is a usage error like an unknown command: status 2,
/// one line, the usage. (`plugin` is dispatched here rather than declared as a subcommand, so
/// that its options, such as `--json`, are its own and not the shell's.)
func main<Command: ParsableCommand>(_ command: Command.Type, _ arguments: [String]) -> Never {
    do {
        var parsed = try Command.parseAsRoot(arguments)
        try parsed.run()
        exit(0)
    } catch let error as ExitCode {
        exit(error.rawValue)
    } catch {
        if Command.exitCode(for: error) == .success { Command.exit(withError: error) }
        FileHandle.standardError.write(Data("coordsh: error: \(Command.message(for: error))\n\(Command.usageString())\n".utf8))
        exit(2)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
switch arguments.first {
case "plugin": main(PluginCommand.self, Array(arguments.dropFirst()))
case "serve": main(ServeCommand.self, Array(arguments.dropFirst()))
case "connect": main(ConnectCommand.self, Array(arguments.dropFirst()))
case "worker": main(WorkerCommand.self, Array(arguments.dropFirst()))
default: break
}
main(CoordshCommand.self, arguments)
