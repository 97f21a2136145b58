@_spi(Host) import CoordSDK
import CoordSession
import Foundation

/// The host's `SecretPrompting`: passwords from `--password-env VAR`, or typed at the terminal
/// with echo off. Never from a command word, so a password cannot end up in output, a script
/// or the history.
@MainActor
package final class SecretPrompt: SecretPrompting {
    /// The environment variable named by `--password-env`, if any.
    let environmentVariable: String?
    /// Its value, read when the prompt is made: a process that runs plugin code blanks the
    /// variable from its environment before the first plugin loads (see `PluginSandbox`).
    private let environmentValue: String?

    package init(environmentVariable: String?) {
        self.environmentVariable = environmentVariable
        environmentValue = environmentVariable.flatMap { ProcessInfo.processInfo.environment[$0] }
    }

    package func secret(_ prompt: String, confirm: Bool) throws -> String {
        if let name = environmentVariable {
            guard let value = environmentValue, !value.isEmpty else {
                throw CoordError.failed("--password-env \(name): the environment variable \(name) is not set or empty")
            }
            return value
        }
        guard isatty(STDIN_FILENO) == 1 else {
            throw CoordError.failed("a password is needed: run coordsh at a terminal, or pass --password-env VAR naming a variable that holds it")
        }
        let first = try readHidden("\(prompt): ")
        if confirm {
            let again = try readHidden("\(prompt) (again): ")
            guard again == first else { throw CoordError.failed("the two passwords differ; nothing was changed") }
        }
        return first
    }

    /// Reads one line from the terminal with echo turned off, restoring the terminal after.
    private func readHidden(_ prompt: String) throws -> String {
        FileHandle.standardOutput.write(Data(prompt.utf8))
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else { throw CoordError.failed("cannot read the terminal settings") }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        quiet.c_lflag |= tcflag_t(ECHONL)
        tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        defer { tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved) }
        guard let line = readLine(strippingNewline: true) else { throw CoordError.failed("no password given") }
        return line
    }
}
