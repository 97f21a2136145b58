/// A feature's messages as one Swift enum: each case a verb, its associated values the typed
/// arguments. `@Messages(prefix:)` generates the conformance.
///
/// Declared once, a message cannot drift from its handler: the specs the shell parses and
/// completes against come from the cases, and `Responder.handle(_:)` hands the handler a
/// decoded case to `switch` over — a case not handled, or handled and not declared, does not
/// compile.
public protocol FeatureMessage: Sendable {
    /// The verbs, one per case, for per-verb needs and waiting handlers.
    associatedtype Verb: RawRepresentable, CaseIterable, Hashable, Sendable where Verb.RawValue == String

    /// The feature's message prefix: `cart` makes `cartAdd` of the verb `add`.
    static var prefix: String { get }
    /// The declarations the shell parses, completes and checks messages against.
    static var specs: [MessageSpec] { get }
    /// The case of a message routed to this feature; nil when its name is none of these.
    /// Throws when a declared argument is missing or ill-typed (a message the feature's door
    /// has already checked never does).
    init?(_ message: Message) throws(CoordError)
    /// This value's verb.
    var verb: Verb { get }
    /// The associated values as named, typed arguments.
    var arguments: Arguments { get }
}

extension FeatureMessage {
    /// `cartAdd` for `CartMessage.add(…)`.
    public var name: MessageName { MessageName(prefix: Self.prefix, verb: verb.rawValue) }

    /// The message to send: this value's name and arguments, entering the chain at `sender`.
    public func message(from sender: Responder?) -> Message {
        Message(name, arguments, from: sender)
    }
}

extension FeatureDefinition {
    /// A feature whose messages are the cases of `messages`: the prefix and the message
    /// declarations come from the enum, so they cannot disagree with the handlers.
    public init<Messages: FeatureMessage>(
        name: String, summary: String = "", pages: any Page.Type, messages: Messages.Type,
        needs: [DependencyKey] = [], provides: [ServiceProvision] = [], uses: [Capability] = [],
        completions: (@MainActor @Sendable (_ parameter: String, _ dependencies: AppDependency?) -> [String])? = nil,
        coordinator: @escaping @MainActor @Sendable () -> Coordinator
    ) {
        self.init(
            name: name, prefix: Messages.prefix, summary: summary, pages: pages, messages: Messages.specs,
            needs: needs, provides: provides, uses: uses, completions: completions, coordinator: coordinator)
    }
}
