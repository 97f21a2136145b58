/// Why one plugin file was not loaded, in one line that names the file.
///
/// Bad plugins are normal input: the loader refuses each with a reason and goes on with the
/// others. The reasons follow PostgreSQL's `incompatible library` messages: a mismatch names
/// the field and both values.
public struct PluginRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file as it was found.
    public let path: String
    /// What was wrong, without the path.
    public let reason: String
    /// A stable machine-readable kind, for `--json` and tests.
    public let kind: Kind

    public enum Kind: String, Sendable {
        case notAFile = "not_a_file"
        case notSharedObject = "not_a_shared_object"
        case noEntry = "no_entry_symbol"
        case entryFailed = "entry_failed"
        case badMagic = "bad_magic"
        case abiMismatch = "abi_version_mismatch"
        case sdkMismatch = "sdk_version_mismatch"
        case compilerMismatch = "compiler_mismatch"
        case badDescriptor = "bad_descriptor"
        case typeIdentity = "type_identity"
        case registration = "registration_failed"
        case duplicate = "duplicate"
        case unmetDependency = "unmet_dependency"
        case alreadyLoaded = "already_loaded"
    }

    public init(path: String, kind: Kind, reason: String) {
        self.path = path
        self.kind = kind
        self.reason = reason
    }

    public var description: String { "refused plugin \(path): \(reason)" }
}
