/// A user action or a request between features, travelling up the responder chain.
///
/// This is the headless form of the iOS coordinatingResponder methods: instead of
/// `cartAdd(product:sender:)` as a UIResponder extension, a `Message` named `cartAdd` with typed
/// arguments starts at the page view the user is on and goes up through its coordinator, the
/// parents, the scene and the app, until a level handles it.
public struct Message: CustomStringConvertible {
    /// The interned name; comparing and indexing by it costs an integer operation.
    public let name: MessageName
    /// Typed arguments. A feature message is checked against the receiving feature's declaration
    /// when the root routes it (`Feature.check`), whoever sent it.
    public var arguments: Arguments
    /// Where the message entered the chain: the page the person was on for a command typed
    /// at the prompt, or the level that sent it in code. Weak: a queued message must not keep
    /// a page alive, so after a replay it may be nil (or another page) — read it before you
    /// wait, or not at all. "The product page this was sent from":
    ///
    ///     if let view = message.sender as? PageView, view.page.route.feature == "content",
    ///         view.page.name == "product", let id = view.page.arguments.int("id") { … }
    public weak var sender: Responder?

    /// A message named `name` with its arguments, sent from `sender` (nil when the host sends it
    /// from outside every chain).
    public init(_ name: MessageName, _ arguments: Arguments = Arguments(), from sender: Responder? = nil) {
        self.name = name
        self.arguments = arguments
        self.sender = sender
    }

    /// `cartAdd(productID: 7)`.
    public var description: String {
        let args = arguments.values.map { "\($0.name): \($0.value)" }.joined(separator: ", ")
        return "\(name)(\(args))"
    }
}

/// What a level of the chain did with a message.
///
/// Frozen: these three are the chain's meaning (the Coordinator pattern's), a promise that will
/// not grow, and every handler returns one — resilient, each return would go through the
/// type's metadata (dispatch at depth 5 took twice as long; BENCHMARKS.md, issue 39).
@frozen
public enum Disposition: Sendable, Equatable {
    /// Done; the message goes no further.
    case handled
    /// Not for this level; the message goes on to the parent.
    case passOn
    /// Acted on it (logged it, updated a badge, …) and let it go on up.
    case handledAndPassOn
}

/// How a dispatch ended when it did not throw.
///
/// Frozen, as `Disposition` is: a send either reached a handler or waits for one, and every
/// send returns it.
@frozen
public enum DispatchOutcome: Sendable, Equatable {
    /// Some level handled it.
    case handled
    /// A level that handles it lacks a dependency; the message waits in that level's queue and
    /// replays when the dependency arrives.
    case queued
}

/// A message handler: runs on the main actor, may throw a one-line error for the user.
public typealias MessageHandler = @MainActor (Message) throws -> Disposition

/// Called when a message is about to wait for missing services, and again whenever what it
/// waits for changes. It may act (show the login page), return a sentence telling the user
/// why the message waits, or throw to refuse the message instead of queueing it. `missing`
/// names the services still absent.
///
///     handle(WishlistMessage.self, everyVerbNeeds: [Services.user.key],
///            whileWaiting: { [unowned self] _, _ in
///                try display(route: "account/login")
///                return "log in to use your wishlist ('account login EMAIL')"
///            }) { … }
public typealias WaitingHandler = @MainActor (Message, _ missing: [DependencyKey]) throws -> String?

/// A registered handler and the services it cannot run without.
final class HandlerEntry {
    let needs: DependencySet
    let body: MessageHandler
    let waiting: WaitingHandler?
    /// Precomputed so that the common case (no needs) never touches the set on dispatch.
    let hasNeeds: Bool
    /// The feature whose code this is, while the host counts (`FeatureClock`): set where a
    /// send resolves its levels (a dispatch path is built, a walk or a delivery reaches the
    /// level), nil otherwise, so that a handler call reads one field to know. Unchecked: read
    /// on every call, only on the main actor, never held across one (a checked access cost
    /// depth-5 dispatch a third of its time).
    /// It is the feature's number (`Feature.number`), -1 for none: a plain integer, so that
    /// neither the check nor a counted call retains anything (a Feature is weakly referenced,
    /// so each retain and release of it takes the runtime's slow path).
    @exclusivity(unchecked) var feature: Int32 = -1

    /// `body` typed without its main-actor isolation (the same function, the same calling
    /// convention), for the dispatch fast path, which runs only on the main actor but is not
    /// isolated code — isolated closures there would each get a run-time executor check.
    nonisolated(unsafe) let unisolatedBody: (Message) throws -> Disposition

    init(needs: DependencySet, waiting: WaitingHandler? = nil, body: @escaping MessageHandler) {
        self.needs = needs
        self.body = body
        // Cast inside a struct: a function cast directly would pass through unsafeBitCast's
        // generic parameters and come out wrapped in two reabstraction thunks.
        struct Isolated { let body: MessageHandler }
        struct Unisolated { let body: (Message) throws -> Disposition }
        self.unisolatedBody = unsafeBitCast(Isolated(body: body), to: Unisolated.self).body
        self.waiting = waiting
        self.hasNeeds = !needs.isEmpty
    }
}

extension Message {
    /// The required `Int` argument `name`.
    ///
    /// A declared argument has been checked at the receiving feature's door, so for those this
    /// cannot fail; it throws instead of trapping so that a handler reading a name it never
    /// declared (or a message it handles undeclared) costs one command, not the host.
    public func int(_ name: String) throws(CoordError) -> Int {
        guard let value = arguments[name]?.intValue else { throw argumentError(name, .int) }
        return value
    }

    /// The required `String` argument `name`; see `int(_:)`.
    public func string(_ name: String) throws(CoordError) -> String {
        guard let value = arguments[name]?.stringValue else { throw argumentError(name, .string) }
        return value
    }

    /// The required `Bool` argument `name`; see `int(_:)`.
    public func bool(_ name: String) throws(CoordError) -> Bool {
        guard let value = arguments[name]?.boolValue else { throw argumentError(name, .bool) }
        return value
    }

    /// The required route argument `name`; see `int(_:)`.
    public func route(_ name: String) throws(CoordError) -> RouteRequest {
        guard let value = arguments[name]?.routeValue else { throw argumentError(name, .route) }
        return value
    }

    private func argumentError(_ argument: String, _ type: ValueType) -> CoordError {
        let reason = arguments[argument] == nil
            ? "missing \(argument)"
            : "\(argument) must be \(type == .int ? "an" : "a") \(type.rawValue)"
        return .malformedMessage(name.string, reason: reason, expected: "\(name.string) \(argument):\(type.rawValue)")
    }
}

extension Message {
    /// The arguments of the page this message was sent from, when that page is
    /// `feature/page`; nil when it was sent from anywhere else (or the page is gone: a
    /// replayed message's sender may be). "The product on the page the person typed the
    /// command at":
    ///
    ///     let id = productID ?? message.sentFromPage("content", "product")?.int("id")
    ///
    /// It reads the other feature's page by its route, so a plugin never imports another's types.
    @MainActor
    public func sentFromPage(_ feature: String, _ page: String) -> Arguments? {
        guard let view = sender as? PageView, view.page.route.feature == feature, view.page.name == page else { return nil }
        return view.page.arguments
    }
}
