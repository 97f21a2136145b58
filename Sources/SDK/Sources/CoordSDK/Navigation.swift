/// The seeds' one-call forms for what travels up the chain: showing a page of any feature
/// (`globalDisplay(page:)`) and sending a message of another feature by name.
///
/// Each builds the same `Message` a plugin would build by hand and sends it from this level,
/// so it goes up through the parents to the root exactly as before (a scene shows the page; a
/// feature's door checks the arguments).
extension Responder {
    /// Shows `page` in this level's scene: `display(CartPage.cart)`.
    @discardableResult
    public func display(_ page: some Page) throws -> DispatchOutcome {
        try send(Message(AppCoordinator.globalDisplay, Arguments([("page", .route(page.route))]), from: self))
    }

    /// Shows another feature's page by its route, as typed at the prompt:
    /// `display(route: "account/login")`, `display(route: "content/product id=7")`.
    /// A malformed route throws its one-line error before anything is sent.
    @discardableResult
    public func display(route: String) throws -> DispatchOutcome {
        try display(route: RouteRequest.parse(route))
    }

    /// Shows the page `route` names.
    @discardableResult
    public func display(route: RouteRequest) throws -> DispatchOutcome {
        try send(Message(AppCoordinator.globalDisplay, Arguments([("page", .route(route))]), from: self))
    }

    /// Sends another feature's message by name, with typed arguments:
    /// `send("cartAdd", ["productID": 7, "quantity": 2])`. The receiving feature checks them
    /// against its declaration, so a wrong name or type is a one-line error, not a crash.
    @discardableResult
    public func send(_ name: String, _ arguments: KeyValuePairs<String, any ArgumentValue> = [:]) throws -> DispatchOutcome {
        try send(Message(MessageName(name), Arguments(arguments.map { ($0.key, $0.value.argumentValue) }), from: self))
    }

    /// Sends one of a feature's declared messages: `send(CartMessage.add(productID: 7))`.
    @discardableResult
    public func send(_ message: some FeatureMessage) throws -> DispatchOutcome {
        try send(message.message(from: self))
    }

    /// Handles every message of `messages` with one `body`, when every verb needs the same
    /// services (a feature whose every command is a logged-in person's): each waits in this
    /// level's queue while one of `needs` is missing, `whileWaiting` runs when it starts
    /// waiting (show the login page, say why), and it replays by itself once they are there.
    public func handle<Messages: FeatureMessage>(
        _ messages: Messages.Type,
        everyVerbNeeds needs: [DependencyKey],
        whileWaiting: WaitingHandler? = nil,
        _ body: @escaping @MainActor (_ decoded: Messages, _ message: Message) throws -> Disposition
    ) {
        let verbs = Messages.Verb.allCases
        handle(
            messages, needs: Dictionary(uniqueKeysWithValues: verbs.map { ($0, needs) }),
            whileWaiting: whileWaiting.map { waiting in Dictionary(uniqueKeysWithValues: verbs.map { ($0, waiting) }) } ?? [:], body)
    }

    /// Handles every message of `messages` with one `body` that switches over the decoded case.
    /// `needs` and `whileWaiting` are per verb (`[.checkout: [Services.user.key]]`) and mean
    /// what they mean for `handle(_:needs:whileWaiting:_:)`. The undecoded message is passed
    /// too, for its sender. Capture `self` unowned in `body`.
    ///
    /// Inlinable: compiled into the plugin for its own `Messages`, so that what decodes each
    /// message is the plugin's concrete code. Compiled once in the SDK for every `Messages`, the
    /// decoding asked the runtime for the metadata of `Messages?` at each message (≈ 600
    /// instructions, more than the decoding). The body uses only public API, so a plugin built
    /// against any release of this major keeps a correct copy.
    @inlinable
    public func handle<Messages: FeatureMessage>(
        _ messages: Messages.Type,
        needs: [Messages.Verb: [DependencyKey]] = [:],
        whileWaiting: [Messages.Verb: WaitingHandler] = [:],
        _ body: @escaping @MainActor (_ decoded: Messages, _ message: Message) throws -> Disposition
    ) {
        for verb in Messages.Verb.allCases {
            let name = MessageName(prefix: Messages.prefix, verb: verb.rawValue)
            handle(name, needs: needs[verb] ?? [], whileWaiting: whileWaiting[verb]) { message in
                guard let decoded = try Messages(message) else {
                    throw CoordError.unknownVerb(prefix: Messages.prefix, verb: message.name.verb, suggestion: nil)
                }
                return try body(decoded, message)
            }
        }
    }
}
