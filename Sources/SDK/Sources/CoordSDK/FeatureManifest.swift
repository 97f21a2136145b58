/// A feature's registration as data: its name, prefix, pages, messages and the services it
/// needs and provides — everything `help`, `pages`, completion, did-you-mean and the check at
/// the feature's door read, and nothing of its code.
///
/// The host keeps one per feature in its plugin registry cache, beside the verdict, so that
/// the next start registers the feature from it without loading the plugin (GStreamer's
/// registry); the plugin is loaded the first time its coordinator, one of its pages or a
/// service it provides is needed (`Feature.load()`). Plain values only, so that it can be
/// stored and compared: a live registration that differs from the cached one is how a stale
/// cache is found.
@_spi(Host) public struct FeatureManifest: Codable, Sendable, Equatable {
    /// A page as a manifest keeps it: its declaration (name, parameters, summary) without
    /// the code that makes it (`PageCase`'s constructor), which only a loaded plugin has.
    public struct PageEntry: Codable, Sendable, Equatable {
        public var name: String
        public var summary: String
        public var parameters: [Parameter]

        public init(name: String, summary: String, parameters: [Parameter]) {
            self.name = name
            self.summary = summary
            self.parameters = parameters
        }
    }

    public var name: String
    public var prefix: String
    public var summary: String
    public var pages: [PageEntry]
    /// The messages as the plugin declared them: the SDK's own `MessageSpec`.
    public var messages: [MessageSpec]
    public var needs: [String]
    public var provides: [String]
    /// The provided services that are guarded (a subset of `provides`).
    public var guarded: [String]
    /// What the feature declared it uses, in `Capability`'s text form.
    public var uses: [String]

    public init(
        name: String, prefix: String, summary: String, pages: [PageEntry], messages: [MessageSpec], needs: [String], provides: [String],
        guarded: [String] = [], uses: [String] = []
    ) {
        self.guarded = guarded
        self.uses = uses
        self.name = name
        self.prefix = prefix
        self.summary = summary
        self.pages = pages
        self.messages = messages
        self.needs = needs
        self.provides = provides
    }

    /// What `definition` registers.
    public init(_ definition: FeatureDefinition) {
        name = definition.name
        prefix = definition.prefix
        summary = definition.summary
        pages = definition.pageCases.map {
            PageEntry(name: $0.name, summary: $0.summary, parameters: $0.parameters)
        }
        messages = definition.messages
        needs = definition.needs.map(\.name)
        provides = definition.provides.map(\.key.name)
        guarded = definition.provides.filter(\.guarded).map(\.key.name)
        uses = definition.uses.map(\.description)
    }

    private enum CodingKeys: String, CodingKey { case name, prefix, summary, pages, messages, needs, provides, guarded, uses }

    /// Reads a manifest; one written before capabilities existed declares none.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        name = try c.decode(String.self, forKey: .name)
        prefix = try c.decode(String.self, forKey: .prefix)
        summary = try c.decode(String.self, forKey: .summary)
        pages = try c.decode([PageEntry].self, forKey: .pages)
        messages = try c.decode([MessageSpec].self, forKey: .messages)
        needs = try c.decode([String].self, forKey: .needs)
        provides = try c.decode([String].self, forKey: .provides)
        guarded = try c.decodeIfPresent([String].self, forKey: .guarded) ?? []
        uses = try c.decodeIfPresent([String].self, forKey: .uses) ?? []
    }

    /// The declared capabilities; text that is no capability is dropped (it grants nothing).
    public var capabilities: [Capability] { uses.compactMap(Capability.init) }

    /// The page cases as the registry lists and checks them. Their constructors are never
    /// called: a page of a feature that is not loaded is made after loading it.
    var pageCases: [PageCase] {
        pages.map { entry in
            let feature = name
            return PageCase(entry.name, entry.parameters, summary: entry.summary) { _ in
                throw CoordError.failed("\(feature)/\(entry.name): the plugin is not loaded")
            }
        }
    }

    var messageSpecs: [MessageSpec] { messages }
}

/// The pages of a feature registered from its manifest, until its plugin is loaded: the
/// feature's `pageCases` come from the manifest, and a page is only ever made after loading.
enum UnloadedPage: Page {
    static let feature = ""
    static let cases: [PageCase] = []
    var name: String { "" }
    var arguments: Arguments { Arguments() }
}

/// A service slot filled by a feature that is only registered: reading the slot loads the
/// feature's plugin and returns the service it provides (`AppDependency`'s subscript).
final class DeferredService: @unchecked Sendable {
    private let resolve: @MainActor () -> Any?

    init(_ resolve: @escaping @MainActor () -> Any?) { self.resolve = resolve }

    /// Called on the main actor only: every `AppDependency` is read there (coordinators,
    /// views and services are main-actor bound).
    func service() -> Any? {
        nonisolated(unsafe) var service: Any?
        MainActor.assumeIsolated { service = resolve() }
        return service
    }
}
