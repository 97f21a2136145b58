@_spi(Host) import CoordSDK

/// A C plugin's feature in the app: the host makes for it what a Swift plugin writes itself —
/// the plugin object, the feature definition, a coordinator whose handlers call the plugin's
/// C functions through libffi, and page views whose rendering calls its render functions.
/// From there on, it is a feature like any other: routed, checked at its door, queued while
/// a need is missing, listed, completed, traced, cached for lazy loading.
@MainActor
final class CFeature {
    let description: CFeatureDescription
    var name: String { description.name }
    var prefix: String { description.prefix }
    /// The feature's tables: its migrations (`c1`, `c2`, … in order) run once the data arrives.
    private let store: FeatureStore
    /// The context of the last call that ended, for the next: a call allocates nothing.
    private var idle: CCallContext?

    init(_ description: CFeatureDescription) {
        self.description = description
        store = FeatureStore(
            feature: description.name,
            migrations: description.migrations.enumerated().map { Migration("c\($0.offset + 1)", sql: [$0.element]) })
    }

    /// The feature's data handle (its own tables and what it was granted), migrated.
    func data(_ dependencies: AppDependency?) throws -> any DataManaging {
        if let dependencies { store.attach(dependencies) }
        return try store.data()
    }

    var definition: FeatureDefinition {
        let feature = self
        let pages = description.pages.map { page in
            PageCase(page.name, page.params.map(\.parameter), summary: page.summary) { [name] arguments in
                DescribedPage(feature: name, name: page.name, arguments: arguments)
            }
        }
        let messages = description.messages.map { MessageSpec($0.verb, $0.params.map(\.parameter), summary: $0.summary) }
        let completions = description.complete.map { _ in
            { @MainActor @Sendable (parameter: String, services: AppDependency?) -> [String] in feature.complete(parameter, services: services) }
        }
        return FeatureDefinition(
            name: name, prefix: prefix, summary: description.summary, describedPages: pages, messages: messages,
            needs: [], provides: [], uses: description.uses, completions: completions, coordinator: { CCoordinator(feature) })
    }

    /// The values the plugin's completion function offers for `parameter` (the lines it
    /// added), none when it fails: a completion that cannot be made offers nothing.
    func complete(_ parameter: String, services: AppDependency?) -> [String] {
        guard let complete = description.complete else { return [] }
        let (status, said) = run(level: nil, arguments: Arguments(), services: services) { ctx in
            parameter.withCString { complete(ctx, $0) }
        }
        guard status == 0, said.error == nil else { return [] }
        return said.lines
    }

    /// Runs one call of the plugin's code, `body(ctx)`, at `level` with `arguments` (a
    /// completion: at no level, with `services`), in the idle context when there is one (a
    /// call made during another gets a new one), kept idle again after. Returns the call's
    /// status and what the plugin said.
    func run(
        level: Responder?, arguments: Arguments, services: AppDependency? = nil, _ body: (UnsafeMutablePointer<coordsh_ctx>) -> Int32
    ) -> (status: Int32, said: CCallContext.Said) {
        let context = idle ?? CCallContext(feature: self)
        idle = nil
        context.begin(level: level, arguments: arguments, services: services)
        let status = body(context.ctx)
        let said = context.end()
        idle = context
        return (status, said)
    }

    /// Calls `function(ctx, values…)` at `level`: what the plugin said, and the error it set
    /// (or one that says it set none) when it returned non-zero. Its notes are reported at
    /// `level` either way.
    func call(
        _ interface: CCallInterface?, _ function: coordsh_handler_fn, names: [String], level: Responder, arguments: Arguments, what: String
    ) -> (said: CCallContext.Said, failure: CoordError?) {
        guard let interface else {
            return (CCallContext.Said(), .failed("\(prefix) \(what): libffi could not prepare its signature"))
        }
        let (status, said) = run(level: level, arguments: arguments) { ctx in
            interface.call(function, context: ctx) { index in arguments.cArgument(at: index, named: names[index]) }
        }
        for note in said.notes { level.report(.note(note)) }
        guard status != 0 || said.error != nil else { return (said, nil) }
        return (said, .failed(said.error ?? "\(prefix) \(what): the plugin returned \(status) without saying why"))
    }
}

/// The plugin object the host makes for a C plugin: it registers the described feature.
final class CPlugin: CoordPlugin {
    private let feature: CFeature

    init(_ feature: CFeature) { self.feature = feature }

    @MainActor func register(with registrar: any PluginRegistrar) throws {
        try registrar.register(feature.definition)
    }
}

/// A C feature's coordinator: each declared message is handled by calling its C handler with
/// the message's typed arguments. What the person sees next is the handler's to say, as in
/// Swift: a page it displays, the notes it leaves.
final class CCoordinator: Coordinator {
    private let feature: CFeature

    init(_ feature: CFeature) {
        self.feature = feature
        super.init(identifier: feature.name)
        for message in feature.description.messages {
            // Prepared once per signature, looked up once per message, here.
            let interface = CCallInterface.interface(for: message.params.map { CCallInterface.Slot(kind: $0.kind, optional: $0.optional) })
            let names = message.params.map(\.name)
            // What the handler's closure needs, captured alone: not the whole description,
            // which would be copied on every call.
            let handler = message.handler, verb = message.verb
            let waiting: WaitingHandler? = message.waiting.map { line -> WaitingHandler in { _, _ in line } }
            handle(
                MessageName(prefix: feature.prefix, verb: message.verb), needs: message.needs.map(DependencyKey.init),
                whileWaiting: waiting
            ) { [unowned self] received in
                let (_, failure) = feature.call(interface, handler, names: names, level: self, arguments: received.arguments, what: verb)
                if let failure { throw failure }
                return .handled
            }
        }
    }

    override func makeView(for page: any Page) throws -> PageView {
        guard let described = feature.description.pages.first(where: { $0.name == page.name }) else { return try super.makeView(for: page) }
        return CPageView(page: page, feature: feature, render: described.render)
    }
}

/// A C feature's page: rendered by its render function, which reads the page's arguments and
/// writes a title and lines through the host table.
final class CPageView: PageView {
    private let feature: CFeature
    private let renderFunction: coordsh_render_fn

    init(page: any Page, feature: CFeature, render: coordsh_render_fn) {
        self.feature = feature
        self.renderFunction = render
        super.init(page: page)
    }

    override func render() -> Rendering {
        let function = unsafeBitCast(renderFunction, to: coordsh_handler_fn.self)
        let (said, failure) = feature.call(
            CCallInterface.interface(for: []), function, names: [], level: self, arguments: page.arguments, what: "page \(page.name)")
        if let failure { return Rendering(title: said.title ?? page.name, lines: ["(\(failure))"]) }
        let lines = said.cut ? said.lines + ["(more than \(CCallContext.maxLines) lines: the rest was cut)"] : said.lines
        return Rendering(title: said.title ?? page.name, lines: lines)
    }
}
