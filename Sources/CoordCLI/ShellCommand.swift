import ArgumentParser
import CoordTerminal
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
            if session.shellOptions.isInteractive {
                throw ValidationError("--single-transaction needs a script: -f FILE, -c COMMAND or commands on stdin")
            }
        }
    }

    func run() throws {
        Self.start(options, supervised: supervised, singleProcess: singleProcess)
    }

    /// What the options say, for the shell (`CommonLine` reads the common lines into the same).
    var options: Shell.Options {
        var options = session.shellOptions
        options.pluginDirectories = pluginDirectories
        options.databasePath = databasePath
        options.strictPlugins = strictPlugins
        options.singleTransaction = singleTransaction
        return options
    }

    /// Runs the shell and ends the process with its exit status.
    static func start(_ given: Shell.Options, supervised: Bool, singleProcess: Bool) -> Never {
        var options = given
        // At a terminal the app runs supervised: a person's session is worth a worker process.
        // Scripts (-c, -f, piped stdin) stay in one process unless asked: they start faster,
        // and a crash there is an exit status, not a lost session.
        options.supervised = supervised || (options.isInteractive && !singleProcess)
        return MainActor.assumeIsolated { () -> Never in
            let shell = Shell(options: options)
            let status = shell.run()
            // The process ends with the shell and the app it ran still held (`Shell.ranApp`):
            // the kernel frees their memory, instead of the process freeing each object first.
            withExtendedLifetime(shell) { Glibc.exit(status) }
        }
    }
}
