/// Why one plugin file was not loaded, in one line that names the file.
///
/// Bad plugins are normal input: the loader refuses each with a reason and goes on with the
/// others. The reasons follow PostgreSQL's `incompatible library` messages: a mismatch names
/// the field and both values. The plugin author's guide lists every kind with what to do.
public struct PluginRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// The file as it was found.
    public let path: String
    /// What was wrong, without the path.
    public let reason: String
    /// A stable machine-readable kind, for `--json`, the verdict cache and tests.
    public let kind: Kind
    /// The plugin's name, when the refusal knew it (a quarantined plugin: the name
    /// `plugins allow` takes); nil when the file was refused before its name was read.
    public let plugin: String?

    public enum Kind: String, Sendable, Codable, CaseIterable {
        // The file itself, before anything is mapped.
        case notAFile = "not_a_file"
        case emptyFile = "empty_file"
        case notELF = "not_elf"
        case truncated = "truncated_elf"
        case wrongMachine = "wrong_machine"
        // Load-time security.
        case insecurePermissions = "insecure_permissions"
        case wrongOwner = "wrong_owner"
        case notAllowed = "not_on_allow_list"
        // dlopen and the handshake.
        case notSharedObject = "not_a_shared_object"
        case noEntry = "no_entry_symbol"
        case entryFailed = "entry_failed"
        case badMagic = "bad_magic"
        case abiMismatch = "abi_version_mismatch"
        case sdkMismatch = "sdk_version_mismatch"
        case compilerMismatch = "compiler_mismatch"
        case libraryMismatch = "library_version_mismatch"
        case badDescriptor = "bad_descriptor"
        case typeIdentity = "type_identity"
        // Registration into the app.
        case registration = "registration_failed"
        case duplicate = "duplicate"
        case unmetDependency = "unmet_dependency"
        case alreadyLoaded = "already_loaded"
        case needsRestart = "needs_restart"
        // Out-of-process vetting.
        case crashed = "crashed"
        case hung = "hung"
        case vettingFailed = "vetting_failed"
        // Run-time supervision (`coordsh --supervised`).
        case quarantined = "quarantined"
    }

    public init(path: String, kind: Kind, reason: String, plugin: String? = nil) {
        self.path = path
        self.kind = kind
        self.reason = reason
        self.plugin = plugin
    }

    public var description: String { "refused plugin \(path): \(reason)" }
}
