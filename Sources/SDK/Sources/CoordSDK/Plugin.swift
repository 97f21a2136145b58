import CCoordABI
#if canImport(Glibc)
import Glibc
#endif

/// The object a plugin's entry hands to the host. After the handshake the host calls
/// `register(with:)` once; the plugin registers its features there.
///
/// It crosses the dlopen boundary as an opaque pointer and is cast back to this protocol by
/// the host; that cast only works because the protocol lives in the one shared SDK image.
public protocol CoordPlugin: AnyObject {
    /// Registers the plugin's features (`registrar.register(FeatureDefinition(…))`), once,
    /// after the handshake. Throw to refuse to load, with a reason the host prints; do nothing
    /// here the person must see (it also runs when vetting, in a child process).
    @MainActor func register(with registrar: any PluginRegistrar) throws

    /// The shared libraries besides the SDK whose types the plugin uses, each with the version
    /// it was compiled against (`[CoordShopVersion.requirement]` for a shop plugin). The loader
    /// checks them before `register`, as it checks the SDK's version before anything: Swift has
    /// no stable ABI on Linux. Empty by default.
    var libraries: [LibraryRequirement] { get }
}

extension CoordPlugin {
    /// No shared library of types beyond the SDK: a plugin that imports only CoordSDK.
    public var libraries: [LibraryRequirement] { [] }
}

/// A shared library of types that plugins share (like CoordShop) at the version a plugin was
/// compiled against. The library exports `coordsh_library_version_NAME`, a C function that
/// returns its version, so that the loader can compare the two without trusting any type of it.
public struct LibraryRequirement: Sendable, Equatable {
    /// The library's name: `CoordShop` for `libCoordShop.so`.
    public let name: String
    /// The version the plugin was compiled against: `CoordShopVersion.compiledAgainst`, never
    /// written by hand, so that a rebuild against a new library updates it.
    public let version: String

    /// What a library's `requirement` returns; a plugin names the library's own value.
    public init(name: String, version: String) {
        self.name = name
        self.version = version
    }
}

/// What a plugin registers into. The host validates everything a plugin registers before any
/// of it becomes visible, so a plugin is loaded whole or not at all.
@MainActor
public protocol PluginRegistrar: AnyObject {
    /// Registers one feature. Throws (and nothing of the plugin is kept) when its prefix, pages
    /// or services clash with what the app has.
    func register(_ feature: FeatureDefinition) throws
}

/// Collects one plugin's definitions so that they can be validated and committed together.
@MainActor
@_spi(Host) public final class StagingRegistrar: PluginRegistrar {
    public private(set) var definitions: [FeatureDefinition] = []
    public init() {}
    public func register(_ feature: FeatureDefinition) throws { definitions.append(feature) }
}

/// The versions a plugin and its host compare at load, and the promise between them.
///
/// **The promise.** CoordSDK is built for library evolution and numbered `MAJOR.MINOR.PATCH`:
/// a plugin built against release `M.m.p` loads in every coordsh whose SDK is a later `M.x.y`
/// (before 1.0, a later `0.m.y`) and is refused by an older one or another major, with both
/// versions named. Within a major a release only adds: an API it replaces stays, deprecated
/// with a message that names its replacement, for at least one minor release. The releases are
/// stored in the SDK package (`Releases/`), and `scripts/sdk-api check` fails a change that
/// breaks API or ABI without a new major. The Swift compiler, though, must be the host's own:
/// on Linux the Swift runtime (`libswiftCore.so`), which the host and every plugin share in
/// one process, has no stable ABI between compiler releases.
public enum CoordSDKVersion {
    /// The version of the SDK library loaded in this process. Not inlinable: it is read from
    /// `libCoordSDK.so`, whatever the caller was compiled against.
    public static let library = "1.1.1"

    /// The SDK version the *caller* was compiled against, baked into the caller's image (so a
    /// plugin reports the release whose interface it was built with, not the one it runs with).
    @_alwaysEmitIntoClient
    public static var compiledAgainst: String { "1.1.1" }  // the same as `library` in each release

    /// The Swift compiler that built the SDK module the caller imported. A module compiled by
    /// one Swift compiler cannot be imported by another, so this is also the caller's compiler.
    @_alwaysEmitIntoClient
    public static var compiler: String {
        #if compiler(>=7.0)
        return "7.0 or later"
        #elseif compiler(>=6.4)
        return "6.4 or later"
        #elseif compiler(>=6.3.2)
        return "6.3.2 or later"
        #elseif compiler(>=6.3.1)
        return "6.3.1"
        #elseif compiler(>=6.3)
        return "6.3"
        #elseif compiler(>=6.2)
        return "6.2"
        #else
        return "older than 6.2"
        #endif
    }
}

/// The plugin ABI constants, the same numbers as `coordsh_plugin.h`.
@_spi(Host) public enum PluginABI {
    public static let magic: UInt32 = 0x434F_4F52
    public static let version: UInt32 = 1
    /// A plain C plugin's descriptor (`COORDSH_PLUGIN_ABI_VERSION_C`).
    public static let versionC: UInt32 = 2
    public static let entrySymbol = "coordsh_plugin_entry"
}

/// Helpers for a plugin's C entry point.
public enum PluginEntry {
    /// Fills the descriptor for the host. Call it from your `@_cdecl("coordsh_plugin_entry")`
    /// function and return its result:
    ///
    /// ```swift
    /// @_cdecl("coordsh_plugin_entry")
    /// public func coordshPluginEntry(_ d: UnsafeMutablePointer<coordsh_plugin_descriptor>?) -> Int32 {
    ///     PluginEntry.fill(d, name: "cart", version: "1.0.0") { CartPlugin() }
    /// }
    /// ```
    ///
    /// It is emitted into the plugin, so the versions it writes are those the plugin was built
    /// with, not those of the SDK library the host happens to have loaded.
    @_alwaysEmitIntoClient
    public static func fill(
        _ descriptor: UnsafeMutablePointer<coordsh_plugin_descriptor>?, name: StaticString,
        version: StaticString, plugin: () -> CoordPlugin
    ) -> Int32 {
        guard let descriptor else { return 1 }
        descriptor.pointee.magic = 0x434F_4F52
        descriptor.pointee.abi_version = 1
        descriptor.pointee.sdk_version = cString(CoordSDKVersion.compiledAgainst)
        descriptor.pointee.swift_version = cString(CoordSDKVersion.compiler)
        descriptor.pointee.name = UnsafeRawPointer(name.utf8Start).assumingMemoryBound(to: CChar.self)
        descriptor.pointee.version = UnsafeRawPointer(version.utf8Start).assumingMemoryBound(to: CChar.self)
        descriptor.pointee.plugin = Unmanaged.passRetained(plugin() as AnyObject).toOpaque()
        descriptor.pointee.error = nil
        return 0
    }

    /// A C string that lives as long as the process (plugins are never unloaded).
    @_alwaysEmitIntoClient @usableFromInline
    static func cString(_ s: String) -> UnsafePointer<CChar> {
        UnsafePointer(strdup(s)!)
    }
}
