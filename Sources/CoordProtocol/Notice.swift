/// Something a person is told besides a command's result — a note, or a warning — with what it
/// is about, so that a program (a front, `--strict-plugins`) acts on the kind and never on the
/// words. One type from the session that makes it to the client that prints it.
public struct Notice: Sendable, Equatable {
    /// What a notice is about.
    public enum Kind: String, Sendable, CaseIterable {
        /// Anything else: for the person to read.
        case note
        /// A plugin file was refused (at start, at a rescan, dropped into a folder).
        case pluginRefused = "plugin_refused"
        /// A plugin was loaded while the app ran (dropped into a folder): it may ask for
        /// something, which an interactive shell asks the person about.
        case pluginLoaded = "plugin_loaded"
        /// The app moved to a new app process with new plugin versions (a supervised front's
        /// upgrade): as with a loaded plugin, a new version may ask for something new.
        case upgraded
        /// The server said it about the connection itself (its goodbye, an error frame that
        /// answers no request): made by the client that received it, never sent.
        case server
    }

    public let text: String
    public let isWarning: Bool
    public let kind: Kind

    public init(text: String, isWarning: Bool, kind: Kind = .note) {
        self.text = text
        self.isWarning = isWarning
        self.kind = kind
    }

    /// The notice as a frame carries it (PROTOCOL.md): `kind` only when it is not a plain note.
    public var object: [String: Any] {
        var object: [String: Any] = ["text": text, "warning": isWarning]
        if kind != .note { object["kind"] = kind.rawValue }
        return object
    }

    /// The `kind` of a notice's object: absent is a note; a kind this side does not know (a
    /// newer server's) is read as a note too, so that an old client still prints it.
    static func kind(in object: [String: Any]) throws(ProtocolError) -> Kind {
        guard let value = object["kind"] else { return .note }
        guard let text = value as? String else { throw ProtocolError("reply", "a notice's kind must be a string") }
        return Kind(rawValue: text) ?? .note
    }
}
