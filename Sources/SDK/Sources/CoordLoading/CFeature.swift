import CCoordABI
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
        let context = CCallContext(feature: self, level: nil, arguments: Arguments(), services: services)
        let status = context.with { ctx in parameter.withCString { complete(ctx, $0) } }
        guard status == 0, context.error == nil else { return [] }
        return context.lines
    }

    /// Runs `body` with a call context for `level` and `arguments`: the idle one when there is
    /// one (a call made during another gets a new one), kept idle again after.
    func withCall<T>(level: Responder, arguments: Arguments, _ body: (CCallContext) throws -> T) rethrows -> T {
        let context: CCallContext
        if let spare = idle {
            idle = nil
            spare.reuse(level: level, arguments: arguments)
            context = spare
        } else {
            context = CCallContext(feature: self, level: level, arguments: arguments)
        }
        // Kept as it ended (its level unowned, its `inCall` false) until the next call readies it.
        defer { idle = context }
        return try body(context)
    }

    /// Calls `function(ctx, values…)` in `context`; the error the plugin set (or one that
    /// says it set none) when it returns non-zero.
    func call(
        _ interface: CCallInterface?, _ function: coordsh_handler_fn, names: [String], context: CCallContext, what: String
    ) throws -> Int32 {
        guard let interface else {
            throw CoordError.failed("\(prefix) \(what): libffi could not prepare its signature")
        }
        // The arguments were checked at the feature's door in the declared order: each is
        // found at its own place unless an optional one before it was left out.
        let given = context.arguments.values
        let status = context.with { ctx in
            interface.call(function, context: ctx) { index in
                index < given.count && given[index].name == names[index] ? given[index].value : context.arguments[names[index]]
            }
        }
        if !context.notes.isEmpty { for note in context.notes { context.level?.report(.note(note)) } }
        if status != 0 || context.error != nil {
            throw CoordError.failed(context.error ?? "\(prefix) \(what): the plugin returned \(status) without saying why")
        }
        return status
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
            let waiting: WaitingHandler? = message.waiting.map { line -> WaitingHandler in { _, _ in line } }
            handle(
                MessageName(prefix: feature.prefix, verb: message.verb), needs: message.needs.map(DependencyKey.init),
                whileWaiting: waiting
            ) { [unowned self] received in
                try feature.withCall(level: self, arguments: received.arguments) { context in
                    _ = try feature.call(interface, message.handler, names: names, context: context, what: message.verb)
                }
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
        return feature.withCall(level: self, arguments: page.arguments) { context in
            do {
                _ = try feature.call(CCallInterface.interface(for: []), function, names: [], context: context, what: "page \(page.name)")
            } catch {
                return Rendering(title: context.title ?? page.name, lines: ["(\(error))"])
            }
            let lines = context.cut ? context.lines + ["(more than \(CCallContext.maxLines) lines: the rest was cut)"] : context.lines
            return Rendering(title: context.title ?? page.name, lines: lines)
        }
    }
}
