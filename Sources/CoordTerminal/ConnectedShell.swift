import CoordClient
import CoordProtocol
import CoordSession
import Foundation

extension Shell {
    /// `coordsh connect`: the same shell, attached to a new scene of the server at `socketPath`.
    public func connect(socketPath: String?, name: String?) -> Int32 {
        guard loadConfig() != nil else { return ShellError.Status.usage.rawValue }
        let path = socketPath ?? WireProtocol.defaultSocket(name: name, environment: ProcessInfo.processInfo.environment, uid: getuid())
        options.promptName = "coordsh@\(name ?? (socketPath.map { ($0 as NSString).lastPathComponent } ?? "default"))"
        let backend: RemoteBackend
        do {
            backend = try RemoteBackend(path: path, secrets: SecretPrompt(environmentVariable: options.passwordEnvironmentVariable))
            // Text is printed from the lines: the server need not build the --json document.
            backend.documents = options.json
        } catch {
            printError("\(error)", code: "connection")
            return ShellError.Status.failure.rawValue
        }
        return drive(backend)
    }
}
