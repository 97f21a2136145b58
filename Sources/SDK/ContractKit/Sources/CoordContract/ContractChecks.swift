import CoordLoading
@_spi(Host) import CoordSDK

/// The checks themselves. Each returns what it saw, or throws `Failure` with the reason.
extension ContractSuite {
    func body(of id: String) -> () throws -> String {
        switch id {
        case "file": return checkFile
        case "entry": return checkEntry
        case "magic": return { try self.loaded().checkMagic(); return "0x434F4F52" }
        case "abi-version": return { try self.loaded().checkABIVersion(); return try self.loaded().isC ? "version \(PluginABI.versionC) (C)" : "version \(PluginABI.version)" }
        case "sdk-version": return { try self.loaded().checkSDKVersion(); return try self.loaded().isC ? "a C plugin: no Swift type crosses, not compared" : "built against CoordSDK \(try self.loaded().sdkVersion), loaded with \(CoordSDKVersion.library)" }
        case "compiler": return { try self.loaded().checkCompiler(); return try self.loaded().isC ? "a C plugin: any compiler" : "Swift \(CoordSDKVersion.compiler)" }
        case "identity": return checkIdentity
        case "type-identity": return checkTypeIdentity
        case "registers": return checkRegisters
        case "routes": return checkRoutes
        case "pages-bare": return { try self.checkPages(in: self.bareApp()) }
        case "pages-full": return { try self.checkPages(in: self.fullApp()) }
        case "messages": return checkMessages
        case "unknown-message": return checkUnknownMessage
        case "lifecycle": return checkLifecycle
        case "dependencies": return checkDependencies
        case "class-identity": return checkClassIdentity
        case "c-functions": return { try self.loaded().checkCFunctions() }
        default: return { throw Failure("no such check '\(id)'") }
        }
    }

    /// Under the contract the plugin is granted exactly what it declares: a refusal is
    /// something it uses and did not declare, which a person could never grant it.
    static func undeclared(_ capability: Capability, _ what: String, _ error: CoordError) -> Failure {
        Failure("\(what) uses '\(capability)', which the plugin does not declare (FeatureDefinition uses: [\(capability.swiftSpelling)]): \(error.message)")
    }

    func loaded() throws -> PluginImage {
        guard let image else { throw Failure("the plugin is not loaded") }
        return image
    }

    private func checkFile() throws -> String {
        let opened = try file ?? PluginFile(path: path)
        file = opened
        return "\(opened.size) bytes"
    }

    private func checkEntry() throws -> String {
        guard let file else { throw Failure("the file is not open") }
        image = try PluginImage.open(file)
        return "returned 0"
    }

    private func checkIdentity() throws -> String {
        let (name, version) = try loaded().identity()
        pluginName = name
        return "\(name) \(version)"
    }

    private func checkTypeIdentity() throws -> String {
        let plugin = try loaded().plugin()
        return "\(type(of: plugin)) is a CoordSDK.CoordPlugin"
    }

    private func checkRegisters() throws -> String {
        let definitions = try loaded().register()
        guard definitions.count == 1, let only = definitions.first else {
            throw Failure("registers \(definitions.count) features (\(definitions.map(\.name).joined(separator: ", "))); a plugin registers exactly one", refusal: .registration)
        }
        guard only.name == pluginName else {
            throw Failure("its feature is named '\(only.name)' but its descriptor says '\(pluginName)'", refusal: .registration)
        }
        definition = only
        // Validation (identifiers, reserved `global`, duplicate routes and verbs) is the
        // registry's; the full app also holds every companion's prefix.
        _ = try bareApp()
        _ = try fullApp()
        return "feature '\(only.name)', prefix '\(only.prefix)', \(only.pageCases.count) pages, \(only.messages.count) messages"
    }

    private func checkRoutes() throws -> String {
        let app = try bareApp()
        let feature = try feature(in: app)
        for pageCase in feature.pageCases {
            let request = sampleRequest(feature, pageCase, dependencies: app.dependencies)
            let page: any Page
            do {
                page = try app.features.page(for: request)
            } catch {
                throw Failure("\(request): \(error.message)")
            }
            guard page.name == pageCase.name, page.pageFeature == feature.name else {
                throw Failure("\(request) made a page that calls itself \(page.pageFeature)/\(page.name)")
            }
            let text = page.route.description
            let again: any Page
            do {
                again = try app.features.page(for: RouteRequest.parse(text))
            } catch {
                throw Failure("the route it printed, '\(text)', does not parse back: \(error)")
            }
            guard again.route == page.route else {
                throw Failure("'\(text)' came back as '\(again.route)'")
            }
        }
        return "\(feature.pageCases.count) pages"
    }

    private func checkPages(in app: AppCoordinator) throws -> String {
        let feature = try feature(in: app)
        var rendered = 0
        var refusals: [String] = []
        for pageCase in feature.pageCases {
            let scene = scene(in: app)
            let request = sampleRequest(feature, pageCase, dependencies: app.dependencies)
            do {
                try scene.display(app.features.page(for: request))
                guard let view = scene.currentView else { throw Failure("\(request) opened, but no page is showing") }
                let rendering = view.render()
                guard !rendering.title.isEmpty else { throw Failure("\(request) renders an empty title") }
                rendered += 1
            } catch let failure as Failure {
                throw failure
            } catch let error as CoordError {
                if case .notGranted(let capability, _, _) = error { throw Self.undeclared(capability, "\(request)", error) }
                // Saying why not is allowed (a missing dependency, a record that is not there).
                refusals.append("\(request): \(error)")
            } catch {
                refusals.append("\(request): \(error)")
            }
            app.stopChild(scene)
        }
        let services = app.dependencies?.entries.map(\.key).filter { $0 != probeKey.key.name } ?? []
        var detail = "\(rendered) of \(feature.pageCases.count) rendered"
        if !refusals.isEmpty { detail += "; said why not: " + refusals.joined(separator: "; ") }
        detail += services.isEmpty ? " (no services)" : " (services: \(services.joined(separator: ", ")))"
        return detail
    }

    private func checkMessages() throws -> String {
        let app = try fullApp()
        let feature = try feature(in: app)
        let scene = scene(in: app)
        defer { app.stopChild(scene) }
        let probe = try scene.display(ProbePage.home)
        var outcomes: [String] = []
        for spec in feature.definition.messages {
            let name = feature.definition.messageName(spec.verb)
            var arguments = Arguments()
            for parameter in spec.arguments where !parameter.isOptional {
                arguments.set(parameter.name, sampleValue(parameter, feature: feature, dependencies: app.dependencies))
            }
            let trace = DispatchTrace(message: name.string)
            do {
                let outcome = try probe.send(Message(name, arguments, from: probe), trace: trace)
                guard outcome == .queued else {
                    outcomes.append("\(spec.verb): handled")
                    continue
                }
                // Why it waits, in the plugin's own terms: the services it lacked here (the
                // check's scene has nobody logged in), which are the `needs` it declared.
                let waiting = trace.hops.lazy.compactMap { hop -> [String]? in
                    if case .queued(let keys) = hop.action { keys } else { nil }
                }.first ?? []
                let what = waiting.isEmpty ? "a service" : waiting.map { "'\($0)'" }.joined(separator: ", ")
                outcomes.append("\(spec.verb): queued, waiting for \(what) (its declared needs; it replays once provided)")
            } catch let error as CoordError {
                switch error {
                case .unknownVerb, .unknownMessage, .unhandledMessage:
                    throw Failure("'\(feature.definition.prefix) \(spec.verb)' is declared but nobody handles \(name): \(error.message)")
                case .notGranted(let capability, _, _):
                    throw Self.undeclared(capability, "'\(feature.definition.prefix) \(spec.verb)'", error)
                default:
                    outcomes.append("\(spec.verb): refused (\(error.message))")
                }
            } catch {
                outcomes.append("\(spec.verb): refused (\(error))")
            }
        }
        return outcomes.isEmpty ? "declares no messages" : outcomes.joined(separator: "; ")
    }

    private func checkUnknownMessage() throws -> String {
        let app = try bareApp()
        let feature = try feature(in: app)
        let scene = scene(in: app)
        defer { app.stopChild(scene) }
        let coordinator = scene.coordinator(for: feature)
        let start: Responder = (try? openFirstPage(feature, in: scene, app: app)) ?? coordinator
        let name = feature.definition.messageName("contractprobeunknown")
        let trace = DispatchTrace(message: name.string)
        do {
            let outcome = try start.send(Message(name, from: start), trace: trace)
            throw Failure("\(name) was \(outcome == .queued ? "queued" : "handled") at \(trace.hops.last?.level ?? "?"); an unknown message must reach the root and be reported")
        } catch let error as CoordError {
            guard trace.hops.contains(where: { $0.level == "app" }) else {
                throw Failure("\(name) stopped at \(trace.hops.last?.level ?? "the start") (\(error.message)) instead of reaching the root")
            }
            return trace.hops.map(\.level).joined(separator: " → ")
        }
    }

    private func checkLifecycle() throws -> String {
        let app = try fullApp()
        let feature = try feature(in: app)
        let scene = scene(in: app)
        defer { app.stopChild(scene) }
        let (watched, leftover) = startAndStop(feature, in: scene, app: app)
        if let leftover { throw Failure(leftover) }
        let alive = watched.filter { $0.object.value != nil }.map(\.name)
        guard alive.isEmpty else {
            throw Failure("still alive after stop: \(alive.joined(separator: ", ")) — a retain cycle (a handler capturing self strongly?)")
        }
        return "\(watched.count) coordinators and page views released"
    }

    /// Starts the feature in `scene`, opens every page, stops it, and returns weak references
    /// to everything that was running — in a function of its own, so that no strong reference
    /// outlives it — and what stop left behind, if anything.
    private func startAndStop(_ feature: Feature, in scene: SceneCoordinator, app: AppCoordinator) -> (watched: [(name: String, object: Weak)], leftover: String?) {
        let coordinator = scene.coordinator(for: feature)
        for pageCase in feature.pageCases {
            _ = try? scene.display(app.features.page(for: sampleRequest(feature, pageCase, dependencies: app.dependencies)))
        }
        var watched: [(name: String, object: Weak)] = []
        for node in Self.subtree(coordinator) {
            watched.append(("\(type(of: node)) '\(node.identifier)'", Weak(node)))
            for view in node.viewStack { watched.append(("page view \(view.page.route)", Weak(view))) }
        }
        scene.stopChild(coordinator)
        if !coordinator.children.isEmpty {
            return (watched, "after stop it still has children: \(coordinator.children.map(\.identifier).joined(separator: ", "))")
        }
        if !coordinator.viewStack.isEmpty {
            return (watched, "after stop it still has \(coordinator.viewStack.count) page views")
        }
        return (watched, nil)
    }

    /// A coordinator and all its descendants, depth first.
    static func subtree(_ coordinator: Coordinator) -> [Coordinator] {
        [coordinator] + coordinator.children.flatMap(subtree)
    }

    private func checkDependencies() throws -> String {
        let app = try fullApp()
        let feature = try feature(in: app)
        let scene = scene(in: app)
        defer { app.stopChild(scene) }
        app.provide(probeKey, "first")
        let coordinator = scene.coordinator(for: feature)
        for pageCase in feature.pageCases {
            _ = try? scene.display(app.features.page(for: sampleRequest(feature, pageCase, dependencies: app.dependencies)))
        }
        let responders = Self.subtree(coordinator).flatMap { [$0 as Responder] + $0.viewStack }
        for expected in ["first", "second"] {
            if expected == "second" { app.provide(probeKey, "second") }
            let missing = responders.filter { $0.dependencies?[probeKey] != expected }.map(\.chainDescription)
            guard missing.isEmpty else {
                throw Failure("AppDependency '\(expected)' did not reach \(missing.joined(separator: ", "))")
            }
        }
        let reached = responders.count
        return "reached \(reached) coordinators and page views, and an update reached them too"
    }

    private func checkClassIdentity() throws -> String {
        let app = try fullApp()
        let feature = try feature(in: app)
        let scene = scene(in: app)
        defer { app.stopChild(scene) }
        let coordinator: AnyObject = scene.coordinator(for: feature)
        guard Self.inherits(coordinator, from: Coordinator.self) else {
            throw Failure("its coordinator (\(type(of: coordinator))) does not inherit from this host's CoordSDK.Coordinator")
        }
        var views = 0
        for pageCase in feature.pageCases {
            let page = try app.features.page(for: sampleRequest(feature, pageCase, dependencies: app.dependencies))
            guard (page as Any) is any Page else { throw Failure("\(pageCase.name) is not a CoordSDK.Page") }
            if let view = try? scene.display(page) {
                guard Self.inherits(view, from: PageView.self) else {
                    throw Failure("the view of \(page.route) (\(type(of: view))) is not a CoordSDK.PageView")
                }
                views += 1
            }
        }
        return "\(type(of: coordinator)) is a Coordinator; \(feature.pageCases.count) pages are Pages; \(views) views are PageViews"
    }

    // MARK: Helpers

    static func inherits(_ object: AnyObject, from base: AnyClass) -> Bool {
        var mirror: Mirror? = Mirror(reflecting: object)
        while let current = mirror {
            if current.subjectType == base { return true }
            mirror = current.superclassMirror
        }
        return false
    }

    private func openFirstPage(_ feature: Feature, in scene: SceneCoordinator, app: AppCoordinator) throws -> PageView? {
        for pageCase in feature.pageCases {
            if let view = try? scene.display(app.features.page(for: sampleRequest(feature, pageCase, dependencies: app.dependencies))) {
                return view
            }
        }
        return nil
    }

    /// A route to `pageCase` with a value for every required parameter: one the feature
    /// offers for completion if it has any, else a plain value of the right type.
    func sampleRequest(_ feature: Feature, _ pageCase: PageCase, dependencies: AppDependency?) -> RouteRequest {
        RouteRequest(feature: feature.name, page: pageCase.name, arguments: pageCase.parameters.filter { !$0.isOptional }.map {
            RouteRequest.Pair($0.name, sampleValue($0, feature: feature, dependencies: dependencies).description)
        })
    }

    func sampleValue(_ parameter: Parameter, feature: Feature, dependencies: AppDependency?) -> Value {
        let offered = feature.definition.completions?(parameter.name, dependencies) ?? []
        if let value = offered.lazy.compactMap({ parameter.type.parse($0) }).first { return value }
        switch parameter.type {
        case .int: return .int(1)
        case .string: return .string("contract")
        case .bool: return .bool(true)
        case .double: return .double(1.5)
        case .route: return .route(RouteRequest(feature: ProbePage.feature, page: "home"))
        // A type of a later SDK than the one this kit was built with: whichever plain value
        // its own parser takes.
        @unknown default:
            return ["1", "contract", "true", "1.5"].lazy.compactMap { parameter.type.parse($0) }.first ?? .string("contract")
        }
    }
}

/// A weak reference, to see whether something was released.
final class Weak {
    weak var value: AnyObject?
    init(_ value: AnyObject) { self.value = value }
}
