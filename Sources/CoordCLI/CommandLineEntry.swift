import ArgumentParser
import CoordRuntime
import CoordSupervision
import CoordTerminal
import Foundation

/// coordsh's command line, shared by its two executables (`HostExecutables`): the shell, and
/// `coordsh-server`, which adds `serve` and `worker`.
public enum CommandLineEntry {
    /// Runs the command line in `arguments` (without the program name) and exits.
    /// `serverCommands` are the subcommands this executable has beyond the shell's (`serve`,
    /// `worker`); the shell passes none, and hands those words to `coordsh-server` beside it
    /// with `exec`, so that `coordsh serve` works as before — same process, same arguments.
    /// (`plugin`, `serve`, `connect` and `worker` are dispatched here rather than declared as
    /// subcommands, so that their options, such as `--json`, are their own and not the shell's.)
    public static func run(_ arguments: [String], serverCommands: [String: ([String]) -> Never] = [:]) -> Never {
        // Any command but the shell: the app process the launcher may have started for a
        // supervised shell is not wanted (`EarlyWorker`); the shell decides for itself.
        if let first = arguments.first, ["plugin", "connect", "serve", "worker"].contains(first) {
            MainActor.assumeIsolated { EarlyWorker.discard() }
        }
        switch arguments.first {
        case "plugin": main(PluginCommand.self, Array(arguments.dropFirst()))
        case "connect": main(ConnectCommand.self, Array(arguments.dropFirst()))
        case let word? where word == "serve" || word == "worker":
            if let command = serverCommands[word] { command(Array(arguments.dropFirst())) }
            execServer(arguments)
        default:
            if let line = CommonLine.read(arguments) {
                CoordshCommand.start(line.options, supervised: line.supervised, singleProcess: line.singleProcess)
            }
            main(CoordshCommand.self, arguments)
        }
    }

    /// Parses and runs `Command`. A bad option is a usage error like an unknown command: status
    /// 2, one line, the usage.
    public static func main<Command: ParsableCommand>(_ command: Command.Type, _ arguments: [String]) -> Never {
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

    /// Replaces this process with `coordsh-server ARGUMENTS…`; if it cannot be started, one line
    /// that names the file and status 2 (the install is incomplete).
    private static func execServer(_ arguments: [String]) -> Never {
        let path = HostExecutables.server
        fflush(nil)
        var argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) }
        argv.append(nil)
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        FileHandle.standardError.write(Data("coordsh: error: '\(arguments[0])' needs \(path): \(reason) (it is built and installed beside coordsh)\n".utf8))
        exit(2)
    }
}
