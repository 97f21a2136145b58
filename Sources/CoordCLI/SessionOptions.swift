import ArgumentParser
import CoordTerminal
import Foundation

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
