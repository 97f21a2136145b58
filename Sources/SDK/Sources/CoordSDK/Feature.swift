/// The declaration of one message a feature handles, e.g. `add` of `cart`:
/// `cart add PRODUCT_ID [QTY]` at the prompt, `cartAdd` on the chain.
///
/// Declared as data so that help, completion and argument parsing come from what the plugin
/// registered, never from the host knowing the plugin.
public struct MessageSpec: Sendable {
    public let verb: String
    public let arguments: [Parameter]
    public let summary: String

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
    public let key: DependencyKey
    let make: @MainActor @Sendable (AppDependency) -> Any?

    public init<Service>(_ key: ServiceKey<Service>, make: @escaping @MainActor @Sendable (AppDependency) -> Service?) {
        self.key = key.key
        self.make = { make($0).map { $0 as Any } }
    }
}

/// Everything a plugin tells the app about one feature: its name and message prefix, its
/// pages, its messages, the services it needs and provides, and how to make its coordinator.
public struct FeatureDefinition: Sendable {
    public let name: String
    public let prefix: String
    public let summary: String
    public let pageType: any Page.Type
    public let messages: [MessageSpec]
    /// Services without which the feature cannot work at all; a feature whose needs nobody
    /// provides is refused at load time.
    public let needs: [DependencyKey]
    public let provides: [ServiceProvision]
    /// Makes the feature's coordinator; the app calls it lazily, the first time a message or a
    /// page of the feature is wanted in a scene (like the seeds' `showCart`).
    public let makeCoordinator: @MainActor @Sendable () -> Coordinator
    /// Values the shell may offer on Tab for a parameter or argument of this feature (product
    /// ids, promo codes), given its name and the current services; nil or empty for none.
    public let completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])?

    public init(
        name: String, prefix: String, summary: String = "", pages: any Page.Type,
        messages: [MessageSpec] = [], needs: [DependencyKey] = [], provides: [ServiceProvision] = [],
        completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])? = nil,
        coordinator: @escaping @MainActor @Sendable () -> Coordinator
    ) {
        self.completions = completions
        self.name = name
        self.prefix = prefix
        self.summary = summary
        self.pageType = pages
        self.messages = messages
        self.needs = needs
        self.provides = provides
        self.makeCoordinator = coordinator
    }

    /// The message name of a verb of this feature: `cartAdd` for `add`.
    public func messageName(_ verb: String) -> MessageName { MessageName(prefix: prefix, verb: verb) }
}

/// A registered feature: the definition plus where it came from and its routing slot.
@MainActor
public final class Feature {
    public let definition: FeatureDefinition
    public let prefix: FeaturePrefix
    /// The plugin that registered it (name, version, file), or nil for one registered in code.
    public let origin: PluginOrigin?

    /// The declared messages by interned name, for the check at the feature's door.
    private let specs: [Int32: MessageSpec]

    init(_ definition: FeatureDefinition, origin: PluginOrigin?) {
        self.definition = definition
        self.prefix = FeaturePrefix(definition.prefix)
        self.origin = origin
        var specs: [Int32: MessageSpec] = [:]
        for spec in definition.messages { specs[definition.messageName(spec.verb).id] = spec }
        self.specs = specs
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
        guard let spec = specs[message.name.id] else { return }
        if let reason = message.arguments.mismatch(with: spec.arguments) {
            throw .malformedMessage(
                message.name.string, reason: reason,
                expected: ([message.name.string] + spec.arguments.map(\.signature)).joined(separator: " "))
        }
    }

    public var name: String { definition.name }
    public var pageCases: [PageCase] { definition.pageType.cases }

    public func message(verb: String) -> MessageSpec? { definition.messages.first { $0.verb == verb } }
}

/// Where a feature came from, for `plugins` and refusal messages.
public struct PluginOrigin: Sendable, Equatable {
    public let name: String
    public let version: String
    public let path: String

    public init(name: String, version: String, path: String) {
        self.name = name
        self.version = version
        self.path = path
    }
}
