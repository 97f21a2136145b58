import CoordLoading
@_spi(Host) import CoordSDK
import Foundation

/// A plugin that registered its features: loaded (passed the handshake and registered), or
/// registered from the plugin registry cache and loaded when first needed.
public struct LoadedPlugin: Sendable, Equatable {
    package internal(set) var origin: PluginOrigin
    public let features: [String]
    /// True when a child process vetted it during this run, false when its verdict came from
    /// the cache (or vetting is off).
    public internal(set) var vettedNow: Bool
    /// False while it is only registered (from the cache) and its image not mapped.
    public internal(set) var isLoaded = true
}

/// Finds plugin files, checks who may have written them, vets new or changed ones in a child
/// process (caching the verdict), then opens them with `dlopen`, runs the handshake and lets
/// them register into the app.
///
/// Every file is opened once and everything — ownership, hash, the vetting child, dlopen —
/// uses that descriptor, so the file cannot be swapped in between. A cached, unchanged plugin
/// is registered at start from its folder entry without being opened (`registrable`); its
/// first use opens it and checks it again (`loadDeferred`). Nothing it loads is ever
/// `dlclose`d: the Swift runtime keeps pointers into every image that registered types, so
/// "unloading" means deregistering and a changed `.so` needs a restart.
@MainActor
public final class PluginLoader {
    public let app: AppCoordinator
    public private(set) var loaded: [LoadedPlugin] = []
    /// Where each plugin name first appears in `loaded` — the one way a plugin is found by
    /// name: the duplicate check runs for every plugin of a scan, and searching the list made
    /// a scan of N plugins quadratic.
    private var loadedIndex: [String: Int] = [:]
    /// The files refused so far (the latest reason per file).
    public private(set) var refused: [PluginRefusal] = []
    /// Who may supply plugins.
    public var policy = PluginPolicy()
    /// Runs the vetting children; nil loads in process without vetting (the vetting child
    /// itself, and in-process tests of the loader).
    public var vetting: ContractRunner?
    /// Verdicts of files vetted before.
    public var cache: VerdictCache?
    /// Plugins not to load, by name (set aside after crashes).
    public var quarantine: Quarantine?
    /// The folders `loadAll` scanned, for `rescan` and the watcher.
    public private(set) var directories: [String] = []
    /// Files (real paths) and plugin names to pass over without a word: the contract suite
    /// loads the installed plugins next to the one it checks, but not another copy of it.
    public var excludedPaths: Set<String> = []
    public var excludedNames: Set<String> = []
    /// Child processes started so far, for `plugins --json` and tests.
    public private(set) var vettingChildren = 0
    /// Register a cached, unchanged plugin from what it registered last time, without loading
    /// it; it is loaded the first time one of its coordinators, pages or services is needed.
    /// Off for the vetting child, the contract suite and explicit loads, which load at once.
    public var deferLoading = false
    /// Plugin images mapped so far (`dlopen`), for `plugins --json` and tests.
    public private(set) var imagesLoaded = 0
    /// Plugin files opened so far, for `plugins --json` and tests: a start registers a cached,
    /// unchanged plugin from its folder entry without opening it (`registrable`).
    public private(set) var filesOpened = 0

    /// What the loader last saw of each file it loaded or refused, so that a rescan only
    /// reports what changed.
    private struct Seen: Equatable {
        let size: Int64, modified: Int64, changed: Int64, inode: UInt64, device: UInt64
        init(_ file: some PluginFileStatus) {
            size = file.size
            modified = file.modificationTime
            changed = file.changeTime
            inode = file.inode
            device = file.device
        }
        /// The same file under another name: a rename changes only the change time.
        func sameFile(as other: Seen) -> Bool {
            inode == other.inode && device == other.device && size == other.size && modified == other.modified
        }
    }
    private var loadedFiles: [String: (name: String, seen: Seen)] = [:]
    private var refusedFiles: [String: Seen] = [:]
    /// Files (real paths) of plugins registered from the cache and not loaded yet.
    private var deferredFiles: Set<String> = []
    /// The plugin folders' owner and mode, looked at once per scan (`loadBatch`).
    private var foldersSeen = PluginPolicy.FolderMemo()
    /// The quarantine's entries as read at the start of a scan (`loadBatch`); nil outside one.
    private var quarantinedInBatch: [String: String]?

    public init(app: AppCoordinator) {
        self.app = app
    }

    /// The `.so` files directly inside `directory`, sorted by name so that load order (and so
    /// which of two clashing plugins wins) is the same on every run. A missing folder is empty.
    /// The shared libraries plugins link (the SDK, CoordShop) are not candidates: every build
    /// folder, the host's and each plugin author's, has them next to the plugins.
    /// Not isolated to the main actor, like `fileNames`: a closure made in an isolated function
    /// checks its executor at every call (Swift 6's dynamic isolation checks).
    nonisolated public static func candidates(in directory: String) -> [String] {
        // Sorted as they are read, by binary insertion (a folder's names are distinct): the
        // standard library's sort keeps its runs in an array whose first growth, past about
        // twenty names, made that array's type from its mangled name (≈ 320,000 instructions
        // once); an insertion here moves references only.
        var names: [String] = []
        for name in fileNames(in: directory) where name.hasSuffix(".so") && !sharedLibraryNames.contains(name) {
            var low = 0, high = names.count
            while low < high {
                let middle = (low + high) / 2
                if names[middle] < name { low = middle + 1 } else { high = middle }
            }
            names.insert(name, at: low)
        }
        // The folder's part of a path, as `appendingPathComponent` writes it, made once: a name
        // from the folder holds no slash, so every path is that part and the name (joined
        // through NSString, each was ≈ 2,500 instructions).
        guard let first = names.first else { return [] }
        let joined = (directory as NSString).appendingPathComponent(first)
        guard joined.hasSuffix(first) else { return names.map { (directory as NSString).appendingPathComponent($0) } }
        let folderPart = String(joined.dropLast(first.count))
        return names.map { folderPart + $0 }
    }

    /// The names in `directory` (none for a folder that is missing or cannot be read), with
    /// `readdir`: Foundation's `contentsOfDirectory` joins paths with the standard library's
    /// unspecialised `joined(separator:)`, whose first call at a start looks a conformance up
    /// in every loaded image's records (≈ 350,000 instructions). Not isolated to the main
    /// actor: the closure that finds a name's end ran once a byte, and in an isolated function
    /// each run asked which executor it was on (≈ 3,300 instructions a plugin; BENCHMARKS.md).
    nonisolated private static func fileNames(in directory: String) -> [String] {
        guard let folder = opendir(directory) else { return [] }
        defer { closedir(folder) }
        var names: [String] = []
        while let entry = readdir(folder) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { bytes in
                String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
            }
            if name != "." && name != ".." { names.append(name) }
        }
        return names
    }

    /// The file name (and SONAME) of the shared SDK image.
    nonisolated public static let sdkLibraryName = "libCoordSDK.so"

    /// The libraries of shared types that sit beside plugins without being plugins.
    nonisolated public static let sharedLibraryNames: Set<String> = [sdkLibraryName, "libCoordShop.so"]

    /// Loads every candidate in `directories`, in order, and remembers the folders for
    /// `rescan`. Returns the refusals.
    @discardableResult
    public func loadAll(from directories: [String]) -> [PluginRefusal] {
        for directory in directories where !self.directories.contains(directory) { self.directories.append(directory) }
        return loadBatch(directories.flatMap(Self.candidates), explicit: false).refused
    }

    /// Looks at every folder again and loads what is new or changed; files already loaded or
    /// refused and unchanged are skipped without a word.
    public func rescan() -> (loaded: [LoadedPlugin], refused: [PluginRefusal]) {
        loadBatch(directories.flatMap(Self.candidates), explicit: false)
    }

    /// Loads one plugin file, or throws why not. An explicit load retries a refused file.
    @discardableResult
    public func load(_ path: String) throws(PluginRefusal) -> LoadedPlugin {
        // A plugin registered from the cache and not loaded yet: load it now.
        let opened = try? PluginFile(path: path)
        if opened != nil { filesOpened += 1 }
        if let file = opened, deferredFiles.contains(file.realPath), let name = loadedFiles[file.realPath]?.name,
            let feature = app.features.features.first(where: { !$0.isLoaded && $0.origin?.name == name }) {
            do throws(CoordError) {
                try feature.load()
            } catch {
                throw refused.last { $0.path == path } ?? PluginRefusal(path: path, kind: .registration, reason: error.message)
            }
            if let index = loadedIndex[name] { return loaded[index] }
        }
        let outcome = loadBatch([path], explicit: true)
        if let refusal = outcome.refused.first { throw refusal }
        guard let plugin = outcome.loaded.first else {
            throw PluginRefusal(path: path, kind: .notAFile, reason: "not a plugin (a library the host itself uses)")
        }
        return plugin
    }

    // MARK: The pipeline

    private struct Candidate {
        /// The open file; nil for a plugin registered from its folder entry and the cache.
        let file: PluginFile?
        /// What the file system says of it: the open file's, or its folder entry's.
        let status: any PluginFileStatus
        var sha256: String?
        var verdict: PluginVerdict?
        var vettedNow = false
        /// What it registered last time, for a plugin registered from its folder entry.
        var manifests: [FeatureManifest]?

        init(file: PluginFile) {
            self.file = file
            status = file
        }

        init(entry: PluginFolderEntry, verdict: PluginVerdict, sha256: String, manifests: [FeatureManifest]) {
            file = nil
            status = entry
            self.verdict = verdict
            self.sha256 = sha256
            self.manifests = manifests
        }
    }

    private func loadBatch(_ paths: [String], explicit: Bool) -> (loaded: [LoadedPlugin], refused: [PluginRefusal]) {
        // A refused file that is gone is no longer a refusal to list.
        refused.removeAll { !FileManager.default.fileExists(atPath: $0.path) }
        for path in refusedFiles.keys where !FileManager.default.fileExists(atPath: path) { refusedFiles[path] = nil }
        var candidates: [Candidate] = []
        var refusals: [PluginRefusal] = []
        var plugins: [LoadedPlugin] = []
        foldersSeen = PluginPolicy.FolderMemo()
        // The quarantine file read once for the batch, not once per plugin (with 100 plugins
        // it was 1.6 % of a start).
        quarantinedInBatch = quarantine?.entries()
        defer {
            foldersSeen = PluginPolicy.FolderMemo()
            quarantinedInBatch = nil
        }
        func refuse(_ refusal: PluginRefusal, _ file: (any PluginFileStatus)?) {
            refusals.append(refusal)
            refused.removeAll { $0.path == refusal.path }
            refused.append(refusal)
            if let file { refusedFiles[file.realPath] = Seen(file) }
        }
        // Each folder opened once, its files relative to it.
        var folders = PluginFolders()
        let registersFromEntries = deferLoading && !explicit && policy.allowList == nil && cache != nil
        for path in paths {
            if registersFromEntries, let candidate = registrable(path, in: &folders) {
                candidates.append(candidate)
                continue
            }
            let file: PluginFile
            do {
                file = try folders.open(path)
                filesOpened += 1
            } catch {
                if explicit || !sameRefusal(error) { refuse(error, nil) }
                continue
            }
            if !explicit, refusedFiles[file.realPath] == Seen(file) { continue }
            if excludedPaths.contains(file.realPath) { continue }
            do {
                guard let candidate = try prepare(file, explicit: explicit) else { continue }
                candidates.append(candidate)
            } catch {
                refuse(error, file)
            }
        }
        vet(&candidates)
        for candidate in candidates {
            if let name = candidate.verdict?.name, excludedNames.contains(name) { continue }
            do {
                plugins.append(try commit(candidate, explicit: explicit))
            } catch {
                refuse(error, candidate.status)
            }
        }
        // Plugins registered from the cache left the dependencies to this one rebuild.
        if plugins.contains(where: { !$0.isLoaded }) { app.rebuildDependencies() }
        cache?.save()
        return (plugins, refusals)
    }

    /// A plugin that can be registered from the cache on its folder entry alone, without
    /// opening its file: one `fstatat` where the open, its `fstat`, the ELF header's read and
    /// the close were four system calls a plugin at every start (BENCHMARKS.md, issue 41). The
    /// entry must be a plain file that the loader neither knows nor refused, that passes the
    /// ownership check, and whose cached verdict accepted it and whose cached registration
    /// unpacks, all for exactly this size, inode, device and modification and change times —
    /// the file the cache saw vetted and registered. Nil for anything else, which is then
    /// opened and checked as before, so that its refusal or load is the same. Its first use
    /// opens it and compares those fields again (`loadDeferred`).
    private func registrable(_ path: String, in folders: inout PluginFolders) -> Candidate? {
        // At a start the three are empty, and asking an empty dictionary still hashes the path.
        guard let cache, let entry = folders.entry(path), loadedFiles.isEmpty || loadedFiles[entry.realPath] == nil,
            refusedFiles.isEmpty || refusedFiles[entry.realPath] == nil,
            excludedPaths.isEmpty || !excludedPaths.contains(entry.realPath)
        else { return nil }
        let seen = Seen(entry)
        guard !loadedFiles.contains(where: { $0.value.seen.sameFile(as: seen) }),
            (try? policy.checkOwnership(entry, folders: &foldersSeen)) != nil,
            let (verdict, sha256, manifests) = cache.registration(for: entry), verdict.refusal == nil, verdict.name != nil,
            verdict.version != nil
        else { return nil }
        return Candidate(entry: entry, verdict: verdict, sha256: sha256, manifests: manifests)
    }

    /// A file the scan refused before it could be opened (say, a text file whose bytes have
    /// not changed) is only reported once.
    private func sameRefusal(_ refusal: PluginRefusal) -> Bool {
        refused.contains(refusal)
    }

    /// Ownership, allow-list and cache; nil when the file is loaded and unchanged (also when
    /// a loaded file was renamed: the same inode and contents under a new name is the plugin
    /// already loaded, not a second copy of it).
    private func prepare(_ file: PluginFile, explicit: Bool) throws(PluginRefusal) -> Candidate? {
        if loadedFiles[file.realPath] == nil, !explicit,
           let (oldPath, known) = loadedFiles.first(where: { $0.value.seen.sameFile(as: Seen(file)) && !FileManager.default.fileExists(atPath: $0.key) }) {
            loadedFiles[oldPath] = nil
            loadedFiles[file.realPath] = (known.name, Seen(file))
            return nil
        }
        if let known = loadedFiles[file.realPath] {
            if known.seen != Seen(file), deferredFiles.contains(file.realPath) {
                // Registered and not loaded yet: its first use vets the new file and loads it
                // (a supervised app is offered an upgrade on this refusal's kind instead).
                throw PluginRefusal(
                    path: file.path, kind: .needsRestart,
                    reason: "changed since plugin '\(known.name)' was registered; it is vetted again when first used, or restart coordsh")
            }
            if known.seen == Seen(file) {
                if !explicit { return nil }
                throw PluginRefusal(path: file.path, kind: .alreadyLoaded, reason: "already loaded as plugin '\(known.name)'")
            }
            throw PluginRefusal(
                path: file.path, kind: .needsRestart,
                reason: "changed since plugin '\(known.name)' was loaded from it; restart coordsh to load the new version (Swift images are never unloaded)")
        }
        try policy.checkOwnership(file, folders: &foldersSeen)
        var candidate = Candidate(file: file)
        if policy.allowList != nil {
            let sha256 = PluginPolicy.sha256(of: file)
            try policy.checkAllowed(file, sha256: sha256)
            candidate.sha256 = sha256
        }
        if let (verdict, sha256) = cache?.lookup(file, sha256: candidate.sha256) {
            candidate.verdict = verdict
            candidate.sha256 = sha256
        }
        return candidate
    }

    /// Vets, in child processes and all at once, every candidate without a cached verdict.
    private func vet(_ candidates: inout [Candidate]) {
        guard let vetting else { return }
        // Only opened files lack a verdict: one registered from its entry had the cache's.
        let pending = candidates.indices.compactMap { index in
            candidates[index].verdict == nil ? candidates[index].file.map { (index, $0) } : nil
        }
        guard !pending.isEmpty else { return }
        // A few at a time: each child is a whole coordsh process.
        for batch in stride(from: 0, to: pending.count, by: 8).map({ Array(pending[$0..<min($0 + 8, pending.count)]) }) {
            let verdicts = vetting.vet(batch.map(\.1))
            vettingChildren += batch.count
            for ((index, file), verdict) in zip(batch, verdicts) {
                let sha256 = candidates[index].sha256 ?? PluginPolicy.sha256(of: file)
                candidates[index].verdict = verdict
                candidates[index].sha256 = sha256
                candidates[index].vettedNow = true
                cache?.store(file, sha256: sha256, verdict: verdict)
            }
        }
    }

    /// Loads a vetted (or, without vetting, any) candidate into this process and registers it
    /// — or, when `deferLoading` is on and the cache knows what it registers, registers it from
    /// that without loading it.
    private func commit(_ candidate: Candidate, explicit: Bool) throws(PluginRefusal) -> LoadedPlugin {
        let path = candidate.status.path
        func refuse(_ kind: PluginRefusal.Kind, _ reason: String) -> PluginRefusal {
            PluginRefusal(path: path, kind: kind, reason: reason)
        }
        if let verdict = candidate.verdict {
            if let kind = verdict.refusal { throw refuse(kind, verdict.reason ?? kind.rawValue) }
            // Known before anything is mapped: a second copy or a new version of a loaded
            // plugin must not be dlopened next to it.
            if let name = verdict.name {
                try checkNotQuarantined(name, path: path)
                try checkNotLoaded(name, version: verdict.version ?? "?", path: path)
                if deferLoading, !explicit, !candidate.vettedNow, let version = verdict.version,
                    let manifests = candidate.manifests ?? cache?.manifests(for: candidate.status) {
                    return try registerDeferred(candidate.status, name: name, version: version, manifests: manifests)
                }
            }
        }
        // Only a plugin registered from its folder entry has no open file, and it was
        // registered above: its verdict named it and its manifests were unpacked.
        guard let file = candidate.file else {
            throw refuse(.registration, "not registered from the cache, and not opened")
        }
        let (image, name, version) = try PluginImage.load(file)
        imagesLoaded += 1
        try checkNotQuarantined(name, path: path)
        try checkNotLoaded(name, version: version, path: path)
        let definitions = try image.register()
        let unmet = app.unmetNeeds(of: definitions)
        guard unmet.isEmpty else {
            throw refuse(.unmetDependency, "needs \(unmet.map { "'\($0.name)'" }.joined(separator: ", ")), which neither the host nor any loaded plugin provides")
        }
        let origin = PluginOrigin(name: name, version: version, path: file.path)
        do {
            try app.register(definitions, origin: origin)
        } catch {
            throw refuse(error.message.hasPrefix("duplicate") ? .duplicate : .registration, error.message)
        }
        cache?.store(definitions.map(FeatureManifest.init), for: file)
        loadedFiles[file.realPath] = (name, Seen(file))
        refusedFiles[file.realPath] = nil
        refused.removeAll { $0.path == file.path }
        let plugin = LoadedPlugin(origin: origin, features: definitions.map(\.name), vettedNow: candidate.vettedNow)
        record(plugin)
        return plugin
    }

    /// Registers a cached, unchanged plugin from the manifests it registered last time; its
    /// first use calls `loadDeferred`.
    private func registerDeferred(_ file: some PluginFileStatus, name: String, version: String, manifests: [FeatureManifest]) throws(PluginRefusal) -> LoadedPlugin {
        let unmet = app.unmetNeeds(of: manifests)
        guard unmet.isEmpty else {
            throw PluginRefusal(
                path: file.path, kind: .unmetDependency,
                reason: "needs \(unmet.map { "'\($0.name)'" }.joined(separator: ", ")), which neither the host nor any loaded plugin provides")
        }
        let origin = PluginOrigin(name: name, version: version, path: file.path)
        let deferred = DeferredPlugin(name: name, path: file.path, realPath: file.realPath, seen: Seen(file))
        do {
            try app.register(manifests: manifests, origin: origin, rebuild: false) { [weak self] () throws(CoordError) in
                guard let self else { throw .failed("plugin \(name): the loader is gone") }
                try loadDeferred(deferred)
            }
        } catch {
            throw PluginRefusal(path: file.path, kind: error.message.hasPrefix("duplicate") ? .duplicate : .registration, reason: error.message)
        }
        loadedFiles[file.realPath] = (name, Seen(file))
        deferredFiles.insert(file.realPath)
        refusedFiles[file.realPath] = nil
        refused.removeAll { $0.path == file.path }
        let plugin = LoadedPlugin(origin: origin, features: manifests.map(\.name), vettedNow: false, isLoaded: false)
        record(plugin)
        return plugin
    }

    /// Loads every plugin that is only registered (`-1`: a plugin's first load may migrate its
    /// tables, which must not happen inside the script's transaction). Returns the failures.
    public func loadRegistered() -> [CoordError] {
        var failures: [CoordError] = []
        for feature in app.features.features where !feature.isLoaded {
            do throws(CoordError) {
                try feature.load()
            } catch {
                failures.append(error)
            }
        }
        return failures
    }

    private struct DeferredPlugin {
        let name: String
        let path: String
        let realPath: String
        let seen: Seen
    }

    /// The first use of a plugin registered from the cache: the file is opened again; if it
    /// changed since start-up it is vetted again like any changed file (never loaded on the
    /// strength of the old verdict); then it is loaded and its live registration replaces the
    /// cached one (and the cache entry, if they differ). Any failure is one line, and the
    /// command that needed the plugin fails with it.
    private func loadDeferred(_ deferred: DeferredPlugin) throws(CoordError) {
        func failure(_ why: String) -> CoordError {
            .failed("plugin \(deferred.name) (\(deferred.path)) could not be loaded: \(why)")
        }
        func refusing(_ refusal: PluginRefusal) -> CoordError {
            refused.removeAll { $0.path == refusal.path }
            refused.append(refusal)
            return failure(refusal.reason)
        }
        let file: PluginFile
        do {
            file = try PluginFile(path: deferred.path)
            filesOpened += 1
        } catch {
            throw refusing(error)
        }
        // Quarantined since start-up (by another shell's crashes): refused whether or not the
        // file changed, as it would have been at start-up.
        do {
            try checkNotQuarantined(deferred.name, path: file.path)
        } catch {
            throw refusing(error)
        }
        var vettedNow = false
        if Seen(file) != deferred.seen || file.realPath != deferred.realPath {
            var candidates = [Candidate(file: file)]
            do {
                try policy.checkOwnership(file)
                if policy.allowList != nil {
                    let sha256 = PluginPolicy.sha256(of: file)
                    try policy.checkAllowed(file, sha256: sha256)
                    candidates[0].sha256 = sha256
                }
            } catch {
                throw refusing(error)
            }
            vet(&candidates)
            vettedNow = candidates[0].vettedNow
            if let verdict = candidates[0].verdict, let kind = verdict.refusal {
                throw refusing(PluginRefusal(path: file.path, kind: kind, reason: verdict.reason ?? kind.rawValue))
            }
        }
        let definitions: [FeatureDefinition]
        let version: String
        do throws(PluginRefusal) {
            let (image, name, loadedVersion) = try PluginImage.load(file)
            imagesLoaded += 1
            guard name == deferred.name else {
                throw PluginRefusal(path: file.path, kind: .needsRestart, reason: "it is now plugin '\(name)'; restart coordsh to load it")
            }
            version = loadedVersion
            definitions = try image.register()
        } catch {
            throw refusing(error)
        }
        let origin = PluginOrigin(name: deferred.name, version: version, path: deferred.path)
        do {
            try app.fulfil(definitions, origin: origin)
        } catch {
            throw refusing(PluginRefusal(path: file.path, kind: .registration, reason: error.message))
        }
        cache?.store(definitions.map(FeatureManifest.init), for: file)
        cache?.save()
        deferredFiles.remove(deferred.realPath)
        refused.removeAll { $0.path == deferred.path }
        refusedFiles[deferred.realPath] = nil
        loadedFiles[deferred.realPath] = nil
        loadedFiles[file.realPath] = (deferred.name, Seen(file))
        if let index = loadedIndex[deferred.name] {
            loaded[index].origin = origin
            loaded[index].isLoaded = true
            loaded[index].vettedNow = loaded[index].vettedNow || vettedNow
        }
    }

    private func checkNotQuarantined(_ name: String, path: String) throws(PluginRefusal) {
        if let reason = (quarantinedInBatch ?? quarantine?.entries())?[name] {
            throw PluginRefusal(path: path, kind: .quarantined, reason: "quarantined: \(reason); 'plugins allow \(name)' lets it load again", plugin: name)
        }
    }

    /// Adds `plugin` to `loaded` and to the index by name.
    private func record(_ plugin: LoadedPlugin) {
        if loadedIndex[plugin.origin.name] == nil { loadedIndex[plugin.origin.name] = loaded.count }
        loaded.append(plugin)
    }

    private func checkNotLoaded(_ name: String, version: String, path: String) throws(PluginRefusal) {
        guard let index = loadedIndex[name] else { return }
        let other = loaded[index]
        if other.origin.version == version {
            throw PluginRefusal(path: path, kind: .duplicate, reason: "duplicate plugin name '\(name)': already loaded from \(other.origin.path)")
        }
        throw PluginRefusal(
            path: path, kind: .needsRestart,
            reason: "is version \(version) of plugin '\(name)', whose version \(other.origin.version) is loaded from \(other.origin.path); restart coordsh to load the new version (Swift images are never unloaded)")
    }
}
