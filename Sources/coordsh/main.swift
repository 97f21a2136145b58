import ArgumentParser
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
            Exit status: 0 success, 1 a command failed, 2 a usage error (unknown command, \
            route or parameter, bad configuration).
            """)

    @Option(name: .customShort("c"), help: ArgumentHelp("Run COMMAND and exit (repeatable).", valueName: "COMMAND"))
    var commands: [String] = []

    @Option(name: .customLong("plugin-dir"), help: ArgumentHelp("Also load plugins from DIR (repeatable).", valueName: "DIR"))
    var pluginDirectories: [String] = []

    @Option(name: .customLong("config"), help: ArgumentHelp("Read the configuration from FILE.", valueName: "FILE"))
    var configPath: String?

    @Flag(name: .customLong("json"), help: "Print every command's result as one JSON document.")
    var json = false

    @Option(name: .customLong("open"), help: ArgumentHelp("Start at the page of a coordsh:// deep link.", valueName: "URL"))
    var openURL: String?

    @Option(name: .customLong("db"), help: ArgumentHelp("Keep the shop's data in FILE (default: the config's, else $XDG_DATA_HOME/coordsh/shop.sqlite).", valueName: "FILE"))
    var databasePath: String?

    @Option(name: .customLong("password-env"), help: ArgumentHelp("Read passwords from the environment variable VAR instead of the terminal (for scripts).", valueName: "VAR"))
    var passwordEnvironmentVariable: String?

    @Flag(name: .customLong("keep-going"), help: "In batch mode, run every command even after one fails (exit status: the first failure's).")
    var keepGoing = false

    func run() throws {
        var options = Shell.Options()
        options.commands = commands
        options.pluginDirectories = pluginDirectories
        options.configPath = configPath
        options.json = json
        options.openURL = openURL
        options.databasePath = databasePath
        options.keepGoing = keepGoing
        options.passwordEnvironmentVariable = passwordEnvironmentVariable
        let status = MainActor.assumeIsolated { Shell(options: options).run() }
        if status != 0 { throw ExitCode(status) }
    }
}

CoordshCommand.main()
