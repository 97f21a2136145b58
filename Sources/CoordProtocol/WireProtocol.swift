/// The constants of the client protocol of `coordsh serve` (see PROTOCOL.md): every side —
/// the server, `coordsh connect`, a client in another language — agrees on these.
public enum WireProtocol {
    /// The protocol version a `hello` carries. A peer that speaks another one is answered with
    /// an error frame naming both, then closed.
    public static let version = 1
    /// The largest frame body, in bytes. The length is checked before anything is allocated.
    public static let maxFrameBytes = 1 << 20
    /// Bytes of the length prefix (unsigned, big-endian).
    public static let headerBytes = 4
    /// The environment variable that carries a supervising front's `--db` to its worker. Not
    /// an argument: a PostgreSQL URL may hold a password, and any user can read another's
    /// command line in `ps`, while /proc/PID/environ is the owner's alone.
    public static let workerDatabaseVariable = "COORDSH_WORKER_DB"
    /// The environment variable that holds the descriptor of the memory file where a
    /// supervised worker notes the command it is running, so that its front can say which
    /// command a crash ended. A descriptor, not a path: the file (`memfd_create`) is in no
    /// folder, where another user could plant it first or read it, or a killed front leave it.
    public static let workerRunningVariable = "COORDSH_WORKER_RUNNING"
    /// That file's size: a command line, its plugin and its scene, cut at this length.
    public static let workerRunningBytes = 1 << 16

    /// The folder servers listen in: `$XDG_RUNTIME_DIR/coordsh`, else `/tmp/coordsh-UID`.
    public static func defaultFolder(environment: [String: String], uid: UInt32) -> String {
        if let runtime = environment["XDG_RUNTIME_DIR"], !runtime.isEmpty { return runtime + "/coordsh" }
        return "/tmp/coordsh-\(uid)"
    }

    /// The socket of the server named `name` (`default` when nil).
    public static func defaultSocket(name: String?, environment: [String: String], uid: UInt32) -> String {
        "\(defaultFolder(environment: environment, uid: uid))/\(name ?? "default").sock"
    }
}

/// A broken rule of the protocol: one line for the peer and the log, with a stable code.
public struct ProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
    public let code: String
    public let message: String

    public init(_ code: String, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }

    /// A peer's text as it may appear in an error line or the log: one line, at most 40
    /// characters.
    public static func clip(_ text: String) -> String {
        let flat = text.map { $0.isNewline || $0 == "\t" ? " " : $0 }
        return flat.count > 40 ? String(flat.prefix(40)) + "…" : String(flat)
    }
}
