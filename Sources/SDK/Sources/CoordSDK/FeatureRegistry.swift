/// The root's table of registered features — the seeds' `enum Section`, open at run time.
///
/// It is the single place that knows which prefix belongs to which feature and which routes
/// exist, so it refuses anything that would make a name ambiguous: a second feature with the
/// same name or prefix, or a feature that lists a page twice.
@MainActor
public final class FeatureRegistry {
    public private(set) var features: [Feature] = []
    private var byPrefix: [Feature?] = []

    public init() {}

    /// The feature that owns `prefix`, found with one array index.
    @inline(__always)
    public func feature(for prefix: FeaturePrefix) -> Feature? {
        Int(prefix.id) < byPrefix.count ? byPrefix[Int(prefix.id)] : nil
    }

    public func feature(named name: String) -> Feature? { features.first { $0.name == name } }

    public func feature(prefix: String) -> Feature? {
        features.first { $0.definition.prefix == prefix }
    }

    /// Registers every definition of one plugin, or none of them: a plugin that is half
    /// registered would leave routes that lead nowhere.
    public func register(_ definitions: [FeatureDefinition], origin: PluginOrigin?) throws(CoordError) {
        guard !definitions.isEmpty else { throw .registration("registered no feature") }
        var staged: [Feature] = []
        for definition in definitions {
            try validate(definition, against: features + staged)
            staged.append(Feature(definition, origin: origin))
        }
        for feature in staged {
            features.append(feature)
            let slot = Int(feature.prefix.id)
            if byPrefix.count <= slot { byPrefix.append(contentsOf: repeatElement(nil, count: slot + 1 - byPrefix.count)) }
            byPrefix[slot] = feature
        }
        DispatchEpoch.advance()
    }

    private func validate(_ definition: FeatureDefinition, against existing: [Feature]) throws(CoordError) {
        let name = definition.name, prefix = definition.prefix
        guard Self.isIdentifier(name) else {
            throw .registration("feature name '\(name)' must be lower-case letters and digits, starting with a letter")
        }
        guard Self.isIdentifier(prefix) else {
            throw .registration("prefix '\(prefix)' must be lower-case letters and digits, starting with a letter")
        }
        guard prefix != FeaturePrefix.global.string else {
            throw .registration("prefix 'global' is reserved for the app")
        }
        if let other = existing.first(where: { $0.name == name }) {
            throw .registration("duplicate plugin name '\(name)': already registered by \(other.origin?.path ?? "the host")")
        }
        if let other = existing.first(where: { $0.definition.prefix == prefix }) {
            throw .registration("duplicate prefix '\(prefix)': already used by feature '\(other.name)'")
        }
        guard definition.pageType.feature == name else {
            throw .registration("page type \(definition.pageType) says its feature is '\(definition.pageType.feature)', not '\(name)'")
        }
        var seen = Set<String>()
        for pageCase in definition.pageType.cases {
            guard seen.insert(pageCase.name).inserted else {
                throw .registration("duplicate route '\(name)/\(pageCase.name)'")
            }
        }
        var verbs = Set<String>()
        for spec in definition.messages {
            guard Self.isIdentifier(spec.verb) else {
                throw .registration("message verb '\(spec.verb)' of '\(name)' must be lower-case letters and digits")
            }
            guard verbs.insert(spec.verb).inserted else {
                throw .registration("duplicate message '\(prefix) \(spec.verb)'")
            }
        }
    }

    static func isIdentifier(_ s: String) -> Bool {
        guard let first = s.first, first.isASCII, first.isLowercase else { return false }
        return s.allSatisfy { $0.isASCII && ($0.isLowercase || $0.isNumber) }
    }

    // MARK: Routes

    /// Turns a route request into a typed page of the right feature, with a one-line error
    /// for an unknown feature or page and a missing, unknown or ill-typed parameter.
    public func page(for request: RouteRequest) throws(CoordError) -> any Page {
        guard let feature = feature(named: request.feature) else {
            throw .unknownFeature(request.feature, suggestion: Suggest.closest(to: request.feature, in: features.map(\.name)))
        }
        return try feature.definition.pageType.make(from: request)
    }

    /// Every registered route, `feature/page`, in registration order.
    public var routes: [(feature: Feature, page: PageCase)] {
        features.flatMap { feature in feature.pageCases.map { (feature, $0) } }
    }
}
