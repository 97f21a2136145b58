@_spi(Host) import CoordSDK

/// The app-wide password prompt of a process with no terminal (`coordsh serve`, the
/// benchmark's in-process app). A served client's scene lays its own over it
/// (`RemoteSecrets`), so this only answers code that runs outside every scene: with a failure
/// that says why, never a hang on a terminal nobody watches.
@MainActor
public final class NoTerminalSecrets: SecretPrompting {
    public init() {}

    public func secret(_ prompt: String, confirm: Bool) throws -> String {
        throw CoordError.failed("\(prompt): the server has no terminal to ask on")
    }
}
