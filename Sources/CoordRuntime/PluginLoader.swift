import CCoordABI
import CoordSDK
import Foundation

/// A plugin that passed the handshake and registered its features.
public struct LoadedPlugin: Sendable, Equatable {
    public let origin: PluginOrigin
    public let features: [String]
}

/// Finds plugin files, opens them with `dlopen`, calls their entry through libffi, checks the
/// descriptor and lets the plugin register into the app.
///
/// Nothing it loads is ever `dlclose`d: the Swift runtime keeps pointers into every image that
/// registered types or conformances, so unloading one would leave them dangling. "Unloading" a
/// plugin means stopping and deregistering it; a changed `.so` needs a restart.
@MainActor
public final class PluginLoader {
    public let app: AppCoordinator
    public private(set) var loaded: [LoadedPlugin] = []
    public private(set) var refused: [PluginRefusal] = []
    private var loadedFiles: [String: String] = [:]  // real path → plugin name
    private let caller: EntryCaller

    public init(app: AppCoordinator) throws(LoaderError) {
        self.app = app
        self.caller = try EntryCaller()
    }

    /// The `.so` files directly inside `directory`, sorted by name so that load order (and so
    /// which of two clashing plugins wins) is the same on every run. A missing folder is empty.
    public static func candidates(in directory: String) -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        return names.filter { $0.hasSuffix(".so") }.sorted().map { (directory as NSString).appendingPathComponent($0) }
    }

    /// Loads every candidate in `directories`, in order. Refusals are collected in `refused`
    /// and returned; the rest are loaded.
    @discardableResult
    public func loadAll(from directories: [String]) -> [PluginRefusal] {
        var refusals: [PluginRefusal] = []
        for directory in directories {
            for path in Self.candidates(in: directory) {
                if isHostLibrary(path) { continue }
                do {
                    try load(path)
                } catch {
                    refusals.append(error)
                }
            }
        }
        return refusals
    }

    /// A library the process already has that is no plugin (the SDK itself, which sits in
    /// the executable's folder during development) is not a candidate. Plugins that another
    /// loader already opened still are: they have the entry symbol.
    private func isHostLibrary(_ path: String) -> Bool {
        let real = Self.realPath(path)
        if loadedFiles[real] != nil { return false }
        // RTLD_NOLOAD only returns a handle for an image that is already mapped; never closed.
        guard let handle = dlopen(real, RTLD_NOW | RTLD_NOLOAD) else { return false }
        return dlsym(handle, PluginABI.entrySymbol) == nil
    }

    /// Loads one plugin file, or throws why not. The refusal is also recorded in `refused`.
    @discardableResult
    public func load(_ path: String) throws(PluginRefusal) -> LoadedPlugin {
        do {
            let plugin = try open(path)
            loaded.append(plugin)
            return plugin
        } catch {
            refused.append(error)
            throw error
        }
    }

    private func open(_ path: String) throws(PluginRefusal) -> LoadedPlugin {
        func refuse(_ kind: PluginRefusal.Kind, _ reason: String) -> PluginRefusal {
            PluginRefusal(path: path, kind: kind, reason: reason)
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw refuse(.notAFile, "no such file")
        }
        let real = Self.realPath(path)
        if let name = loadedFiles[real] {
            throw refuse(.alreadyLoaded, "already loaded as plugin '\(name)'; a changed plugin needs a restart (Swift images are never unloaded)")
        }

        // RTLD_NOW: resolve every symbol now, so a plugin with a missing one fails here with
        // the linker's reason instead of crashing later in the middle of a command.
        guard let handle = dlopen(real, RTLD_NOW | RTLD_LOCAL) else {
            throw refuse(.notSharedObject, "not a loadable shared object (\(Self.dlerrorReason(real)))")
        }
        guard let entry = dlsym(handle, PluginABI.entrySymbol) else {
            throw refuse(.noEntry, "no entry symbol '\(PluginABI.entrySymbol)' (is it a coordsh plugin?)")
        }

        var descriptor = coordsh_plugin_descriptor()
        let status = caller.call(entry, &descriptor)
        guard status == 0 else {
            let why = descriptor.error.map { String(cString: $0) } ?? "no reason given"
            throw refuse(.entryFailed, "entry returned \(status): \(why)")
        }
        // Magic and ABI version first: if either is off, the rest of the struct may not even
        // have the layout this host expects, so nothing else is read.
        guard descriptor.magic == PluginABI.magic else {
            throw refuse(.badMagic, "bad magic number — host expects \(Self.hex(PluginABI.magic)), plugin has \(Self.hex(descriptor.magic))")
        }
        guard descriptor.abi_version == PluginABI.version else {
            throw refuse(.abiMismatch, "plugin ABI version mismatch — host is \(PluginABI.version), plugin is \(descriptor.abi_version)")
        }
        let sdk = descriptor.sdk_version.map { String(cString: $0) } ?? "(none)"
        guard sdk == CoordSDKVersion.library else {
            throw refuse(.sdkMismatch, "SDK version mismatch — host has CoordSDK \(CoordSDKVersion.library), plugin was built against \(sdk); rebuild the plugin against this SDK")
        }
        let compiler = descriptor.swift_version.map { String(cString: $0) } ?? "(none)"
        guard compiler == CoordSDKVersion.compiler else {
            throw refuse(.compilerMismatch, "Swift compiler mismatch — host was built with Swift \(CoordSDKVersion.compiler), plugin with \(compiler); Swift has no stable ABI on Linux, so rebuild the plugin with the host's compiler")
        }
        guard let cName = descriptor.name, let cVersion = descriptor.version else {
            throw refuse(.badDescriptor, "descriptor has no plugin name or version")
        }
        let name = String(cString: cName), version = String(cString: cVersion)
        guard let opaque = descriptor.plugin else {
            throw refuse(.badDescriptor, "descriptor has no plugin object")
        }
        let object = Unmanaged<AnyObject>.fromOpaque(opaque).takeRetainedValue()
        guard let plugin = object as? CoordPlugin else {
            throw refuse(.typeIdentity, "its plugin object (\(type(of: object))) is not a CoordSDK.CoordPlugin — was the SDK linked into it statically instead of as libCoordSDK.so?")
        }
        if let other = loaded.first(where: { $0.origin.name == name }) {
            throw refuse(.duplicate, "duplicate plugin name '\(name)': already loaded from \(other.origin.path)")
        }

        let staging = StagingRegistrar()
        do {
            try plugin.register(with: staging)
        } catch {
            throw refuse(.registration, "registration failed: \(error)")
        }
        let unmet = app.unmetNeeds(of: staging.definitions)
        guard unmet.isEmpty else {
            throw refuse(.unmetDependency, "needs \(unmet.map { "'\($0.name)'" }.joined(separator: ", ")), which neither the host nor any loaded plugin provides")
        }
        let origin = PluginOrigin(name: name, version: version, path: path)
        do {
            try app.register(staging.definitions, origin: origin)
        } catch {
            let kind: PluginRefusal.Kind = error.message.hasPrefix("duplicate") ? .duplicate : .registration
            throw refuse(kind, error.message)
        }
        loadedFiles[real] = name
        return LoadedPlugin(origin: origin, features: staging.definitions.map(\.name))
    }

    static func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
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
