import ArgumentParser
import CoordTerminal
import Foundation

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
