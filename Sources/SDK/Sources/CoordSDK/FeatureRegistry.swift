/// The root's table of registered features — the seeds' `enum Section`, open at run time.
///
/// It is the single place that knows which prefix belongs to which feature and which routes
/// exist, so it refuses anything that would make a name ambiguous: a second feature with the
/// same name or prefix, or a feature that lists a page twice.
@MainActor
@_spi(Host) public final class FeatureRegistry {
    public private(set) var features: [Feature] = []
    @exclusivity(unchecked) private var byPrefix: [Feature?] = []
    /// By name and by prefix string: a registration checks both against every feature, which
    /// with hundreds of plugins made registering quadratic.
    private var byName: [String: Feature] = [:]
    @exclusivity(unchecked) private var byPrefixString: [String: Feature] = [:]

    public init() {}

    /// The feature that owns `prefix`, found with one array index.
    @inline(__always)
    public func feature(for prefix: FeaturePrefix) -> Feature? {
        Int(prefix.id) < byPrefix.count ? byPrefix[Int(prefix.id)] : nil
    }

    public func feature(named name: String) -> Feature? { byName[name] }

    public func feature(prefix: String) -> Feature? { byPrefixString[prefix] }

    /// Registers every definition of one plugin, or none of them: a plugin that is half
    /// registered would leave routes that lead nowhere.
    public func register(_ definitions: [FeatureDefinition], origin: PluginOrigin?) throws(CoordError) {
        guard !definitions.isEmpty else { throw .registration("registered no feature") }
        var staged: [Feature] = []
        for definition in definitions {
            try validate(definition, staged: staged)
            staged.append(Feature(definition, origin: origin))
        }
        add(staged)
    }

    /// Registers one plugin's features from their manifests (the plugin registry cache)
    /// without loading the plugin: all or none, checked as `register` checks. `load` loads
    /// the plugin and calls `fulfil` with its live definitions; every feature of the plugin
    /// shares it.
    public func register(
        manifests: [FeatureManifest], origin: PluginOrigin?, load: @escaping @MainActor () throws(CoordError) -> Void
    ) throws(CoordError) {
        guard !manifests.isEmpty else { throw .registration("registered no feature") }
        var staged: [Feature] = []
        for manifest in manifests {
            try validate(
                name: manifest.name, prefix: manifest.prefix, pageFeature: manifest.name, pages: manifest.pages.map(\.name),
                verbs: manifest.messages.map(\.verb), staged: staged)
            staged.append(Feature(manifest: manifest, origin: origin, load: load))
        }
        add(staged)
    }

    /// Puts a loaded plugin's live definitions in place of the features registered from its
    /// manifests. They must be the same features (names and prefixes: the routing slots and
    /// every running coordinator depend on them); pages and messages may differ, and the live
    /// ones win.
    public func fulfil(_ definitions: [FeatureDefinition], origin: PluginOrigin?) throws(CoordError) {
        var targets: [(Feature, FeatureDefinition)] = []
        for definition in definitions {
            guard let feature = feature(named: definition.name), !feature.isLoaded else {
                throw .registration("registers feature '\(definition.name)', which it did not register when it was cached; restart coordsh")
            }
            guard feature.definition.prefix == definition.prefix else {
                throw .registration("feature '\(definition.name)' now has prefix '\(definition.prefix)', not '\(feature.definition.prefix)'; restart coordsh")
            }
            try validate(definition, staged: [], replacing: feature)
            targets.append((feature, definition))
        }
        let names = Set(definitions.map(\.name))
        if let missing = features.first(where: { !$0.isLoaded && $0.origin?.name == origin?.name && !names.contains($0.name) }) {
            throw .registration("no longer registers feature '\(missing.name)'; restart coordsh")
        }
        for (feature, definition) in targets { feature.fulfil(definition, origin: origin) }
        DispatchEpoch.advance()
    }

    private func add(_ staged: [Feature]) {
        for feature in staged {
            features.append(feature)
            byName[feature.name] = feature
            byPrefixString[feature.definition.prefix] = feature
            let slot = Int(feature.prefix.id)
            if byPrefix.count <= slot { byPrefix.append(contentsOf: repeatElement(nil, count: slot + 1 - byPrefix.count)) }
            byPrefix[slot] = feature
        }
        DispatchEpoch.advance()
    }

    private func validate(_ definition: FeatureDefinition, staged: [Feature], replacing: Feature? = nil) throws(CoordError) {
        try validate(
            name: definition.name, prefix: definition.prefix, pageFeature: definition.describedPages == nil ? definition.pageType.feature : definition.name,
            pages: definition.pageCases.map(\.name), verbs: definition.messages.map(\.verb), staged: staged, replacing: replacing)
    }

    /// Checks a feature about to be registered against the registered ones (but `replacing`)
    /// and the others of its plugin (`staged`).
    private func validate(
        name: String, prefix: String, pageFeature: String, pages: [String], verbs declared: [String], staged: [Feature],
        replacing: Feature? = nil
    ) throws(CoordError) {
        guard Self.isIdentifier(name) else {
            throw .registration("feature name '\(name)' must be lower-case letters and digits, starting with a letter")
        }
        guard Self.isIdentifier(prefix) else {
            throw .registration("prefix '\(prefix)' must be lower-case letters and digits, starting with a letter")
        }
        guard prefix != FeaturePrefix.global.string else {
            throw .registration("prefix 'global' is reserved for the app")
        }
        func taken(_ feature: Feature?) -> Feature? { feature === replacing ? nil : feature }
        if let other = taken(byName[name]) ?? staged.first(where: { $0.name == name }) {
            throw .registration("duplicate plugin name '\(name)': already registered by \(other.origin?.path ?? "the host")")
        }
        if let other = taken(byPrefixString[prefix]) ?? staged.first(where: { $0.definition.prefix == prefix }) {
            throw .registration("duplicate prefix '\(prefix)': already used by feature '\(other.name)'")
        }
        guard pageFeature == name else {
            throw .registration("its page type says its feature is '\(pageFeature)', not '\(name)'")
        }
        var seen = Repeats(expected: pages.count)
        for page in pages {
            guard seen.isNew(page) else {
                throw .registration("duplicate route '\(name)/\(page)'")
            }
        }
        var verbs = Repeats(expected: declared.count)
        for verb in declared {
            guard Self.isIdentifier(verb) else {
                throw .registration("message verb '\(verb)' of '\(name)' must be lower-case letters and digits")
            }
            guard verbs.isNew(verb) else {
                throw .registration("duplicate message '\(prefix) \(verb)'")
            }
        }
    }

    /// The names met so far in one list, to find a name given twice. A feature has a few pages
    /// and verbs: compared one by one they are found sooner than hashed into a `Set` (whose
    /// allocation and hashing were ≈ 1,300 instructions a list with 100 plugins); a long list
    /// is hashed.
    private struct Repeats {
        private var few: [String] = []
        private var many: Set<String>?

        init(expected count: Int) {
            if count > 16 { many = Set(minimumCapacity: count) } else { few.reserveCapacity(count) }
        }

        /// False when `name` was met before.
        mutating func isNew(_ name: String) -> Bool {
            if many != nil { return many?.insert(name).inserted ?? false }
            guard !few.contains(name) else { return false }
            few.append(name)
            return true
        }
    }

    /// A lower-case ASCII letter, then lower-case ASCII letters and digits. Read as bytes: as
    /// `Character`s (grapheme breaking, Unicode properties) this check was 8 % of registering
    /// 100 plugins at start-up; through a copy of the string and `withUTF8`'s closures still
    /// ≈ 2,500 instructions a name (three names a feature), where the UTF-8 view's own
    /// iterator reads a short name in place.
    static func isIdentifier(_ s: String) -> Bool {
        var bytes = s.utf8.makeIterator()
        guard let first = bytes.next(), first &- UInt8(ascii: "a") < 26 else { return false }
        while let byte = bytes.next() {
            guard byte &- UInt8(ascii: "a") < 26 || byte &- UInt8(ascii: "0") < 10 else { return false }
        }
        return true
    }

    // MARK: Routes

    /// Turns a route request into a typed page of the right feature, with a one-line error
    /// for an unknown feature or page and a missing, unknown or ill-typed parameter.
    public func page(for request: RouteRequest) throws(CoordError) -> any Page {
        guard let feature = feature(named: request.feature) else {
            throw .unknownFeature(request.feature, suggestion: Suggest.closest(to: request.feature, in: features.map(\.name)))
        }
        return try feature.page(for: request)
    }

    /// Every registered route, `feature/page`, in registration order.
    public var routes: [(feature: Feature, page: PageCase)] {
        features.flatMap { feature in feature.pageCases.map { (feature, $0) } }
    }
}
