/// The declaration of one message a feature handles, e.g. `add` of `cart`:
/// `cart add PRODUCT_ID [QTY]` at the prompt, `cartAdd` on the chain.
///
/// Declared as data so that help, completion and argument parsing come from what the plugin
/// registered, never from the host knowing the plugin.
public struct MessageSpec: Sendable, Equatable, Codable {
    /// The word after the prefix (`add` in `cart add`); with the prefix it names the message
    /// (`cartAdd`).
    public let verb: String
    /// What the command takes, in positional order: the shell parses, checks and completes them
    /// from this before the handler runs, so a handler reads values that have their types.
    public let arguments: [Parameter]
    /// One line for `help cart` and `help cart add`.
    public let summary: String

    /// Usually written for you by `@Messages`; by hand, keep it equal to what the handler reads.
    public init(_ verb: String, _ arguments: [Parameter] = [], summary: String = "") {
        self.verb = verb
        self.arguments = arguments
        self.summary = summary
    }

    /// `add productID:int? quantity:int?`.
    public var signature: String { ([verb] + arguments.map(\.signature)).joined(separator: " ") }
}

/// A service a feature provides to everyone through `AppDependency` (say, Account provides the
/// accounts service and, while someone is logged in, the current user). The app calls `make`
/// whenever it rebuilds the dependencies (twice: the second time with every slot filled);
/// returning nil leaves the slot empty, so handlers that need it wait.
public struct ServiceProvision: Sendable {
    /// The slot the service fills (`Services.carts.key`).
    public let key: DependencyKey
    /// A guarded service touches a person or a secret (accounts, payments): only features
    /// that declare `.service(name)` and were granted it find it in their `AppDependency`.
    public let guarded: Bool
    let make: @MainActor @Sendable (AppDependency) -> Any?

    /// `make` gets the app's dependencies as this feature sees them (its own data handle, what
    /// it was granted) and returns the service, or nil while something it needs is missing.
    /// It runs at every dependency rebuild (a plugin loaded, a login), so make the service
    /// once, outside it, and hand it over:
    ///
    ///     let store = WishlistStore()
    ///     … provides: [ServiceProvision(Services.wishlist) { dependencies in store.attach(dependencies) }]
    public init<Service>(_ key: ServiceKey<Service>, guarded: Bool = false, make: @escaping @MainActor @Sendable (AppDependency) -> Service?) {
        self.key = key.key
        self.guarded = guarded
        self.make = { make($0).map { $0 as Any } }
    }

    init(untyped key: DependencyKey, guarded: Bool = false, make: @escaping @MainActor @Sendable (AppDependency) -> Any?) {
        self.key = key
        self.guarded = guarded
        self.make = make
    }
}

/// Everything a plugin tells the app about one feature: its name and message prefix, its
/// pages, its messages, the services it needs and provides, and how to make its coordinator.
public struct FeatureDefinition: Sendable {
    /// The feature's name, as routes spell it (`cart` in `cart/cart`): unique in the app.
    public let name: String
    /// The first word of its commands and of its message names (`cart` → `cartAdd`); unique in
    /// the app, like the name.
    public let prefix: String
    /// One line for `help` and `plugins`.
    public let summary: String
    /// The feature's `Page` enum: its routes, their parameters and how each is built.
    public let pageType: any Page.Type
    /// The pages of a feature described at run time (a C plugin's), in place of `pageType`'s.
    @_spi(Host) public let describedPages: [PageCase]?
    /// Its pages: the enum's cases, or those described at run time.
    @_spi(Host) public var pageCases: [PageCase] { describedPages ?? pageType.cases }
    /// Every message the feature handles, declared so that the shell can parse, complete and
    /// explain them without loading the plugin (`@Messages` writes this list).
    public let messages: [MessageSpec]
    /// Services without which the feature cannot work at all; a feature whose needs nobody
    /// provides is refused at load time.
    public let needs: [DependencyKey]
    /// The services the feature offers the app, each made again whenever the dependencies are
    /// rebuilt.
    public let provides: [ServiceProvision]
    /// What the feature reaches beyond its own tables and the ordinary services: other
    /// features' tables, guarded services, paths, addresses, programs. Declared so that the
    /// person can grant it; what is not declared and granted is refused.
    public let uses: [Capability]
    /// Makes the feature's coordinator; the app calls it lazily, the first time a message or a
    /// page of the feature is wanted in a scene (like the seeds' `showCart`).
    public let makeCoordinator: @MainActor @Sendable () -> Coordinator
    /// Values the shell may offer on Tab for a parameter or argument of this feature (product
    /// ids, promo codes), given its name and the current services; nil or empty for none.
    public let completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])?

    /// One feature, as a plugin's `register` hands it to the registrar.
    public init(
        name: String, prefix: String, summary: String = "", pages: any Page.Type,
        messages: [MessageSpec] = [], needs: [DependencyKey] = [], provides: [ServiceProvision] = [],
        uses: [Capability] = [],
        completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])? = nil,
        coordinator: @escaping @MainActor @Sendable () -> Coordinator
    ) {
        self.init(
            name: name, prefix: prefix, summary: summary, pageType: pages, describedPages: nil, messages: messages, needs: needs,
            provides: provides, uses: uses, completions: completions, coordinator: coordinator)
    }

    /// A feature described at run time rather than by Swift types (a C plugin's): its pages
    /// are `describedPages`, whose values are `DescribedPage`s.
    @_spi(Host) public init(
        name: String, prefix: String, summary: String, describedPages: [PageCase], messages: [MessageSpec], needs: [DependencyKey],
        provides: [ServiceProvision], uses: [Capability],
        completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])? = nil,
        coordinator: @escaping @MainActor @Sendable () -> Coordinator
    ) {
        self.init(
            name: name, prefix: prefix, summary: summary, pageType: DescribedPage.self, describedPages: describedPages, messages: messages,
            needs: needs, provides: provides, uses: uses, completions: completions, coordinator: coordinator)
    }

    /// Every field, for the two ways in.
    private init(
        name: String, prefix: String, summary: String, pageType: any Page.Type, describedPages: [PageCase]?, messages: [MessageSpec],
        needs: [DependencyKey], provides: [ServiceProvision], uses: [Capability],
        completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])?,
        coordinator: @escaping @MainActor @Sendable () -> Coordinator
    ) {
        self.completions = completions
        self.uses = uses
        self.name = name
        self.prefix = prefix
        self.summary = summary
        self.pageType = pageType
        self.describedPages = describedPages
        self.messages = messages
        self.needs = needs
        self.provides = provides
        self.makeCoordinator = coordinator
    }

    /// The message name of a verb of this feature: `cartAdd` for `add`.
    public func messageName(_ verb: String) -> MessageName { MessageName(prefix: prefix, verb: verb) }
}

/// A page of a feature described at run time (a C plugin's): its feature, route name and
/// arguments are values, where a Page enum has them as types.
@_spi(Host) public struct DescribedPage: Page {
    public static let feature = ""
    public static let cases: [PageCase] = []
    public let pageFeature: String
    public let name: String
    public let arguments: Arguments

    public init(feature: String, name: String, arguments: Arguments) {
        self.pageFeature = feature
        self.name = name
        self.arguments = arguments
    }
}

/// A registered feature: the definition plus where it came from and its routing slot.
///
/// A feature registered from its manifest (`FeatureRegistry.register(manifests:…)`) is
/// listed, completed and checked like any other, but its plugin is not loaded yet: its
/// definition holds the manifest's pages and messages and placeholder services. `load()`
/// loads the plugin — the first time a coordinator, a page or a service of the feature is
/// needed — and the registry puts the live definition in its place.
@MainActor
@_spi(Host) public final class Feature {
    public private(set) var definition: FeatureDefinition
    public let prefix: FeaturePrefix
    /// The plugin that registered it (name, version, file), or nil for one registered in code.
    public private(set) var origin: PluginOrigin?

    /// The declared messages by interned name, for the check at the feature's door.
    @exclusivity(unchecked) private var specs: [Int32: MessageSpec]
    /// The declared messages by verb with their names, for the shell's reading of a command.
    @exclusivity(unchecked) private var verbs: [String: (spec: MessageSpec, name: MessageName)]
    /// True while `specs` and `verbs` are not built yet: a feature registered from its
    /// manifest builds them the first time a message is checked or a verb read. Most plugins
    /// registered at a start receive no message before it ends, and naming and interning each
    /// message of each was a fourteenth of registering it from the cache.
    @exclusivity(unchecked) private var tablesPending = false
    /// While only registered: its pages from the manifest, and what loads its plugin.
    private var manifestPages: [PageCase]?
    private var loader: (@MainActor () throws(CoordError) -> Void)?
    /// Set while `load()` runs, so that a plugin that reads its own service while registering
    /// does not load itself again.
    private var loading = false

    /// Its number in this process, for counting its code's cost without a reference
    /// (`FeatureClock`).
    public private(set) var number: Int32 = -1

    init(_ definition: FeatureDefinition, origin: PluginOrigin?) {
        self.definition = definition
        self.prefix = FeaturePrefix(definition.prefix)
        self.origin = origin
        (self.specs, self.verbs) = Self.tables(definition)
        self.providedKeys = definition.provides.map(\.key)
        self.guardedKeys = definition.provides.filter(\.guarded).map(\.key)
        number = FeatureClock.enroll(self)
    }

    /// A feature registered from `manifest`; `load` loads its plugin (and, through the
    /// registry, replaces this definition with the live one).
    init(manifest: FeatureManifest, origin: PluginOrigin?, load: @escaping @MainActor () throws(CoordError) -> Void) {
        let definition = FeatureDefinition(
            name: manifest.name, prefix: manifest.prefix, summary: manifest.summary, pages: UnloadedPage.self,
            messages: manifest.messageSpecs, needs: manifest.needs.map(DependencyKey.init), provides: [],
            uses: manifest.capabilities,
            coordinator: { Coordinator(identifier: manifest.name) })
        self.definition = definition
        self.prefix = FeaturePrefix(manifest.prefix)
        self.origin = origin
        (self.specs, self.verbs) = ([:], [:])
        self.tablesPending = true
        self.providedKeys = manifest.provides.map(DependencyKey.init)
        self.guardedKeys = manifest.guarded.map(DependencyKey.init)
        self.manifestPages = manifest.pageCases
        self.loader = load
        number = FeatureClock.enroll(self)
    }

    /// Builds the tables of a feature registered from its manifest, once.
    private func buildTables() {
        (specs, verbs) = Self.tables(definition)
        tablesPending = false
    }

    private static func tables(_ definition: FeatureDefinition) -> ([Int32: MessageSpec], [String: (spec: MessageSpec, name: MessageName)]) {
        var specs: [Int32: MessageSpec] = [:]
        var verbs: [String: (spec: MessageSpec, name: MessageName)] = [:]
        for spec in definition.messages {
            let name = definition.messageName(spec.verb)
            specs[name.id] = spec
            verbs[spec.verb] = (spec, name)  // a verb declared twice was refused at registration
        }
        return (specs, verbs)
    }

    /// False while the feature is only registered (from the plugin registry cache) and its
    /// plugin not loaded.
    public var isLoaded: Bool { loader == nil }

    /// Loads the feature's plugin if it is only registered; a no-op once it is loaded. Throws
    /// the one-line reason when the plugin cannot be loaded now (its file gone or changed
    /// into something refused): the command that needed it fails, the app goes on.
    public func load() throws(CoordError) {
        guard let loader, !loading else { return }
        loading = true
        defer { loading = false }
        try loader()
    }

    /// Puts the live definition in place of the manifest's (called by the registry).
    func fulfil(_ live: FeatureDefinition, origin: PluginOrigin?) {
        definition = live
        self.origin = origin
        (specs, verbs) = Self.tables(live)
        tablesPending = false
        providedKeys = live.provides.map(\.key)
        guardedKeys = live.provides.filter(\.guarded).map(\.key)
        manifestPages = nil
        loader = nil
    }

    /// Checks a message routed to this feature against the feature's declaration: every
    /// required argument present, none unknown or given twice, each of its declared type.
    ///
    /// The root calls this before any handler of the feature runs, whoever sent the message,
    /// so a handler may rely on its declared arguments (and a plugin that sends another
    /// feature a malformed message gets a one-line error instead of crashing the host).
    /// Messages the feature does not declare are not checked: a coordinator may handle
    /// undeclared names for its own children.
    public func check(_ message: Message) throws(CoordError) {
        if tablesPending { buildTables() }
        guard let spec = specs[message.name.id] else { return }
        if let reason = message.arguments.mismatch(with: spec.arguments) {
            throw .malformedMessage(
                message.name.string, reason: reason,
                expected: ([message.name.string] + spec.arguments.map(\.signature)).joined(separator: " "))
        }
    }

    public var name: String { definition.name }
    public var pageCases: [PageCase] { manifestPages ?? definition.pageCases }

    /// The keys of the services it provides (from the manifest while only registered).
    public private(set) var providedKeys: [DependencyKey]
    /// The keys of those that are guarded (`ServiceProvision(guarded: true)`).
    public private(set) var guardedKeys: [DependencyKey]
    /// What it declared it uses (from the manifest while only registered).
    public var uses: [Capability] { definition.uses }

    public func message(verb: String) -> MessageSpec? { declaredMessage(verb: verb)?.spec }

    /// The declared message `verb` and its name (`cartAdd` for `add`): what a command line
    /// becomes. Every command of a script asks, so the name is made once — at registration, or
    /// for a feature registered from its manifest at the first ask — not interned again from
    /// prefix and verb at each line.
    public func declaredMessage(verb: String) -> (spec: MessageSpec, name: MessageName)? {
        if tablesPending { buildTables() }
        return verbs[verb]
    }

    /// Builds a page of this feature from a route: the page name and its parameters are
    /// checked against what the feature registered first, so that a wrong route never loads
    /// a plugin; then the plugin is loaded if need be and makes the page.
    func page(for request: RouteRequest) throws(CoordError) -> any Page {
        if let manifestPages {
            guard let pageCase = manifestPages.first(where: { $0.name == request.page }) else {
                throw .unknownPage(
                    feature: request.feature, page: request.page,
                    suggestion: Suggest.closest(to: request.page, in: manifestPages.map(\.name)))
            }
            _ = try Arguments.validate(
                request.arguments.map { ($0.name, $0.text) }, against: pageCase.parameters, context: "\(request.feature)/\(pageCase.name)")
            try load()
        }
        guard let described = definition.describedPages else { return try definition.pageType.make(from: request) }
        guard let pageCase = described.first(where: { $0.name == request.page }) else {
            throw .unknownPage(feature: request.feature, page: request.page, suggestion: Suggest.closest(to: request.page, in: described.map(\.name)))
        }
        return try pageCase.make(request)
    }
}

/// Where a feature came from, for `plugins` and refusal messages.
@_spi(Host) public struct PluginOrigin: Sendable, Equatable {
    public let name: String
    public let version: String
    public let path: String

    public init(name: String, version: String, path: String) {
        self.name = name
        self.version = version
        self.path = path
    }
}
