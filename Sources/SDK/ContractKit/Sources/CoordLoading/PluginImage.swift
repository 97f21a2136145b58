@_spi(Host) import CoordSDK
#if canImport(Glibc)
import Glibc
#endif

/// One plugin file mapped into this process, and the ABI handshake with it.
///
/// The steps are separate so that the contract suite can report each field on its own line;
/// `load` runs them all in order and throws at the first refusal. Magic and ABI version come
/// first: if either is off, the rest of the descriptor may not even have the layout this host
/// expects, so nothing else is read.
///
/// Nothing is ever `dlclose`d: the Swift runtime keeps pointers into every image that
/// registered types or conformances, so unloading one would leave them dangling.
@MainActor
public final class PluginImage {
    public let file: PluginFile
    private var descriptor = coordsh_plugin_descriptor()
    private var object: CoordPlugin?
    /// A C plugin's feature, once its descriptor was read.
    private var cFeature: CFeature?
    /// The dlopen handle: the plugin and the libraries it was linked with, for their version
    /// symbols (`checkLibraries`).
    private var handle: UnsafeMutableRawPointer?

    private init(file: PluginFile) { self.file = file }

    /// Maps the file (`RTLD_NOW`, so a missing symbol fails here and not in the middle of a
    /// command) and calls its entry through libffi.
    public static func open(_ file: PluginFile) throws(PluginRefusal) -> PluginImage {
        let image = PluginImage(file: file)
        guard let handle = dlopen(file.descriptorPath, RTLD_NOW | RTLD_LOCAL) else {
            throw image.refuse(.notSharedObject, "not a loadable shared object (\(dlerrorReason(file.descriptorPath)))")
        }
        file.keepOpenForever()
        image.handle = handle
        guard let entry = dlsym(handle, PluginABI.entrySymbol) else {
            throw image.refuse(.noEntry, "no entry symbol '\(PluginABI.entrySymbol)' (is it a coordsh plugin?)")
        }
        guard let caller = EntryCaller.shared else {
            throw image.refuse(.entryFailed, "libffi could not prepare the entry signature")
        }
        let status = caller.call(entry, &image.descriptor)
        guard status == 0 else {
            let why = image.descriptor.error.map { String(cString: $0) } ?? "no reason given"
            throw image.refuse(.entryFailed, "entry returned \(status): \(why)")
        }
        return image
    }

    /// Every handshake step after `open`, in order.
    public func checkMagic() throws(PluginRefusal) {
        guard descriptor.magic == PluginABI.magic else {
            throw refuse(.badMagic, "bad magic number — host expects \(Self.hex(PluginABI.magic)), plugin has \(Self.hex(descriptor.magic))")
        }
    }

    public func checkABIVersion() throws(PluginRefusal) {
        guard descriptor.abi_version == PluginABI.version || descriptor.abi_version == PluginABI.versionC else {
            throw refuse(.abiMismatch, "plugin ABI version mismatch — host speaks \(PluginABI.version) (Swift) and \(PluginABI.versionC) (C), plugin is \(descriptor.abi_version)")
        }
    }

    /// A plain C plugin (ABI version 2): no Swift type of it crosses, so neither the SDK's
    /// version nor the compiler's is compared.
    public var isC: Bool { descriptor.abi_version == PluginABI.versionC }

    public func checkSDKVersion() throws(PluginRefusal) {
        guard !isC else { return }
        if let why = ReleaseVersion.refusal(library: "CoordSDK", loaded: CoordSDKVersion.library, builtAgainst: sdkVersion) {
            throw refuse(.sdkMismatch, "SDK version mismatch — \(why)")
        }
    }

    public func checkCompiler() throws(PluginRefusal) {
        guard !isC else { return }
        guard compilerVersion == CoordSDKVersion.compiler else {
            throw refuse(.compilerMismatch, "Swift compiler mismatch — host was built with Swift \(CoordSDKVersion.compiler), plugin with \(compilerVersion); on Linux the Swift runtime the host and every plugin share has no stable ABI, so rebuild the plugin with Swift \(CoordSDKVersion.compiler)")
        }
    }

    /// The plugin's name and version from the descriptor.
    public func identity() throws(PluginRefusal) -> (name: String, version: String) {
        guard let name = descriptor.name.map({ String(cString: $0) }), !name.isEmpty,
              let version = descriptor.version.map({ String(cString: $0) }), !version.isEmpty else {
            throw refuse(.badDescriptor, "descriptor has no plugin name or version")
        }
        return (name, version)
    }

    /// The plugin object, cast to the SDK's protocol. The cast only succeeds when the plugin
    /// and the host share one `libCoordSDK.so`.
    public func plugin() throws(PluginRefusal) -> CoordPlugin {
        if let object { return object }
        if isC {
            guard let feature = descriptor.feature else { throw refuse(.badDescriptor, "an ABI 2 (C) descriptor with no feature") }
            do {
                let described = CFeature(try CFeatureDescription(feature, size: descriptor.feature_size))
                cFeature = described
                let made = CPlugin(described)
                object = made
                return made
            } catch {
                throw refuse(.badDescriptor, error.reason)
            }
        }
        guard let opaque = descriptor.plugin else {
            throw refuse(.badDescriptor, "descriptor has no plugin object")
        }
        // The entry passed it retained (+1); take that reference exactly once.
        descriptor.plugin = nil
        let value = Unmanaged<AnyObject>.fromOpaque(opaque).takeRetainedValue()
        guard let plugin = value as? CoordPlugin else {
            throw refuse(.typeIdentity, "its plugin object (\(type(of: value))) is not a CoordSDK.CoordPlugin — was the SDK linked into it statically instead of as libCoordSDK.so?")
        }
        object = plugin
        return plugin
    }

    /// For a C plugin: every render function and handler its descriptor names is code of its
    /// own image (not a stray pointer into data or another library), found by `dladdr` at the
    /// same base as its entry. Says how many, and which exported names they have.
    public func checkCFunctions() throws(PluginRefusal) -> String {
        guard isC else { return "a Swift plugin (ABI 1): none to check" }
        _ = try plugin()
        guard let feature = cFeature, let handle, let entry = dlsym(handle, PluginABI.entrySymbol) else {
            throw refuse(.badDescriptor, "its feature could not be read")
        }
        guard let base = coordsh_image_base(entry, nil) else { throw refuse(.badDescriptor, "its entry is in no loaded image") }
        var functions: [(String, UnsafeRawPointer)] = feature.description.pages.map { ("page \($0.name)", unsafeBitCast($0.render, to: UnsafeRawPointer.self)) }
        functions += feature.description.messages.map { ("message \($0.verb)", unsafeBitCast($0.handler, to: UnsafeRawPointer.self)) }
        if let complete = feature.description.complete { functions.append(("completion", unsafeBitCast(complete, to: UnsafeRawPointer.self))) }
        for (what, function) in functions {
            var path: UnsafePointer<CChar>?
            guard coordsh_image_base(function, &path) == base else {
                throw refuse(.badDescriptor, "the function of \(what) is not in the plugin's image (it points into \(path.map { String(cString: $0) } ?? "no loaded image"))")
            }
        }
        let completion = feature.description.complete == nil ? "" : ", 1 completion"
        return "\(functions.count) functions (\(feature.description.pages.count) render, \(feature.description.messages.count) handlers\(completion)), all in the plugin's image"
    }

    /// Compares each library the plugin says it was compiled against (`CoordPlugin.libraries`,
    /// e.g. CoordShop) with the version of that library it was loaded with, read from the
    /// library's C symbol `coordsh_library_version_NAME` — before the plugin registers, which
    /// is the first time its code may touch a type of that library.
    public func checkLibraries() throws(PluginRefusal) {
        for requirement in try plugin().libraries {
            let name = requirement.name
            guard !name.isEmpty, name.utf8.count <= 64,
                name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_") }) else {
                throw refuse(.libraryMismatch, "it names a library '\(CoordError.oneLine(name))', which is not a library name")
            }
            guard let handle, let symbol = dlsym(handle, "coordsh_library_version_\(name)") else {
                throw refuse(.libraryMismatch, "it was built against \(name) \(CoordError.oneLine(requirement.version)) but is not linked with lib\(name).so (no coordsh_library_version_\(name)); rebuild it against this SDK")
            }
            typealias VersionFunction = @convention(c) () -> UnsafePointer<CChar>?
            let loaded = unsafeBitCast(symbol, to: VersionFunction.self)().map { String(cString: $0) } ?? "(none)"
            if let why = ReleaseVersion.refusal(library: name, loaded: loaded, builtAgainst: requirement.version) {
                throw refuse(.libraryMismatch, "\(name) version mismatch — \(why)")
            }
        }
    }

    /// Lets the plugin register; nothing is visible to any app yet. The libraries it uses are
    /// checked first.
    public func register() throws(PluginRefusal) -> [FeatureDefinition] {
        try checkLibraries()
        let staging = StagingRegistrar()
        do {
            try plugin().register(with: staging)
        } catch let refusal as PluginRefusal {
            throw refusal
        } catch {
            throw refuse(.registration, "registration failed: \(error)")
        }
        guard !staging.definitions.isEmpty else { throw refuse(.registration, "registered no feature") }
        return staging.definitions
    }

    /// The whole handshake: open, every descriptor check, the cast. Returns the plugin's name
    /// and version with the image.
    public static func load(_ file: PluginFile) throws(PluginRefusal) -> (image: PluginImage, name: String, version: String) {
        let image = try open(file)
        try image.checkMagic()
        try image.checkABIVersion()
        try image.checkSDKVersion()
        try image.checkCompiler()
        let (name, version) = try image.identity()
        _ = try image.plugin()
        return (image, name, version)
    }

    public var sdkVersion: String { descriptor.sdk_version.map { String(cString: $0) } ?? "(none)" }
    public var compilerVersion: String { descriptor.swift_version.map { String(cString: $0) } ?? "(none)" }

    public func refuse(_ kind: PluginRefusal.Kind, _ reason: String) -> PluginRefusal {
        PluginRefusal(path: file.path, kind: kind, reason: reason)
    }

    /// dlerror's text without the path it repeats.
    private static func dlerrorReason(_ path: String) -> String {
        guard let error = dlerror() else { return "unknown dlopen error" }
        let text = String(cString: error)
        if text.hasPrefix(path + ": ") { return String(text.dropFirst(path.count + 2)) }
        return text
    }

    private static func hex(_ value: UInt32) -> String { "0x" + String(value, radix: 16, uppercase: true) }
}
