import CoordLoading
@_spi(Host) import CoordSDK

/// The plugin contract: what every coordsh plugin must satisfy, checked against a real `.so`.
///
/// `coordsh plugin check` runs it in a child process, so that a plugin that crashes fails the
/// check it crashed in instead of taking the shell down. A plugin author can run the same
/// suite from their own `swift test`:
///
/// ```swift
/// let results = ContractSuite(pluginAt: path).runAll()
/// #expect(results.allSatisfy(\.passed), "\(results.filter { !$0.passed })")
/// ```
///
/// In process, a crash in the plugin ends the test run; use `coordsh plugin check` to have
/// it reported as a failed check.
@MainActor
public final class ContractSuite {
    /// One check: a stable id, what it holds the plugin to, and the checks it needs first.
    public struct Check: Sendable {
        /// A stable name (`registers`, `class-identity`): what `--json` and a CI script key on.
        public let id: String
        /// What the check holds the plugin to, in words.
        public let title: String
        let requires: [String]
    }

    struct Failure: Error {
        let detail: String
        let refusal: PluginRefusal.Kind?
        init(_ detail: String, refusal: PluginRefusal.Kind? = nil) {
            self.detail = detail
            self.refusal = refusal
        }
    }

    /// The checks the loader runs in a child process before it loads a new or changed plugin:
    /// load, handshake, register, open each page.
    nonisolated public static let vettingChecks = [
        "file", "entry", "magic", "abi-version", "sdk-version", "compiler", "identity", "type-identity",
        "registers", "pages-bare",
    ]

    /// Every check, in the order they run.
    nonisolated public static let checks: [Check] = [
        Check(id: "file", title: "the file is an ELF shared library for this machine", requires: []),
        Check(id: "entry", title: "it exports coordsh_plugin_entry, which returns 0", requires: ["file"]),
        Check(id: "magic", title: "descriptor magic number", requires: ["entry"]),
        Check(id: "abi-version", title: "descriptor ABI version matches the host", requires: ["magic"]),
        Check(id: "sdk-version", title: "descriptor SDK version matches the host", requires: ["abi-version"]),
        Check(id: "compiler", title: "descriptor Swift compiler matches the host", requires: ["abi-version"]),
        Check(id: "identity", title: "descriptor names the plugin and its version", requires: ["sdk-version", "compiler"]),
        Check(id: "type-identity", title: "its plugin object is the SDK's CoordPlugin across the boundary", requires: ["identity"]),
        Check(id: "registers", title: "it registers exactly one feature with a unique prefix", requires: ["type-identity"]),
        Check(id: "routes", title: "every page round-trips route ↔ page", requires: ["registers"]),
        Check(id: "pages-bare", title: "every page opens and renders without its dependencies", requires: ["registers"]),
        Check(id: "pages-full", title: "every page opens and renders with its dependencies", requires: ["registers"]),
        Check(id: "messages", title: "every message it declares is handled", requires: ["registers"]),
        Check(id: "unknown-message", title: "an unknown message bubbles up to the root", requires: ["registers"]),
        Check(id: "lifecycle", title: "start then stop leaves no children and no retained coordinator", requires: ["registers"]),
        Check(id: "dependencies", title: "AppDependency set at the root reaches its coordinator and children", requires: ["registers"]),
        Check(id: "class-identity", title: "its coordinator, page views and pages are the SDK's types", requires: ["registers"]),
        Check(id: "c-functions", title: "a C plugin's render functions and handlers are code of its own image", requires: ["registers"]),
    ]

    /// The plugin file under test.
    public let path: String
    let environment: ContractEnvironment
    private var outcomes: [String: Result<String, Failure>] = [:]

    // State built up by the loading checks.
    var file: PluginFile?
    var image: PluginImage?
    var pluginName = ""
    var definition: FeatureDefinition?
    private var bare: AppCoordinator?
    private var full: AppCoordinator?
    private var sceneNumber = 0

    /// - Parameters:
    ///   - path: the plugin `.so` to check.
    ///   - environment: services and companion plugins for the checks that run with
    ///     dependencies; by default there are none, so those run like the bare ones.
    public init(pluginAt path: String, environment: ContractEnvironment = ContractEnvironment()) {
        self.path = path
        self.environment = environment
    }

    /// Checks a file that is already open (the loader's vetting child checks the very
    /// descriptor the host will load).
    public init(file: PluginFile, environment: ContractEnvironment = ContractEnvironment()) {
        self.path = file.path
        self.file = file
        self.environment = environment
    }

    /// The plugin's name and version once the descriptor has been read.
    public var identity: (name: String, version: String)? { try? image?.identity() }

    /// Runs every check in order and returns the results.
    public func runAll(onResult: (ContractResult) -> Void = { _ in }) -> [ContractResult] {
        Self.checks.indices.map { index in
            let result = run(index)
            onResult(result)
            return result
        }
    }

    /// Runs one check (and, silently, the checks it needs). A check whose prerequisite
    /// failed fails with "not run".
    public func run(_ index: Int) -> ContractResult {
        let check = Self.checks[index]
        if let missing = firstFailedPrerequisite(of: check) {
            let title = Self.checks.first { $0.id == missing }?.title ?? missing
            return ContractResult(id: check.id, title: check.title, passed: false, detail: "not run: needs “\(title)”")
        }
        switch outcome(check.id) {
        case .success(let detail): return ContractResult(id: check.id, title: check.title, passed: true, detail: detail)
        case .failure(let failure):
            return ContractResult(
                id: check.id, title: check.title, passed: false, detail: failure.detail, refusal: failure.refusal?.rawValue)
        }
    }

    private func firstFailedPrerequisite(of check: Check) -> String? {
        for id in check.requires {
            guard let prerequisite = Self.checks.first(where: { $0.id == id }) else { continue }
            if let deeper = firstFailedPrerequisite(of: prerequisite) { return deeper }
            if case .failure = outcome(id) { return id }
        }
        return nil
    }

    private func outcome(_ id: String) -> Result<String, Failure> {
        if let known = outcomes[id] { return known }
        let result: Result<String, Failure>
        do {
            result = .success(try body(of: id)())
        } catch let failure as Failure {
            result = .failure(failure)
        } catch let refusal as PluginRefusal {
            result = .failure(Failure(refusal.reason, refusal: refusal.kind))
        } catch {
            result = .failure(Failure("\(error)"))
        }
        outcomes[id] = result
        return result
    }

    // MARK: Apps

    /// An app with nothing but the plugin under test (and the suite's probe feature).
    func bareApp() throws -> AppCoordinator {
        if let bare { return bare }
        let app = AppCoordinator()
        try register(into: app)
        bare = app
        return app
    }

    /// An app with the environment's services and companions, then the plugin under test.
    func fullApp() throws -> AppCoordinator {
        if let full { return full }
        let app = AppCoordinator()
        do {
            try environment.prepare(app, pluginName)
        } catch {
            throw Failure("could not prepare the dependencies: \(error)")
        }
        try register(into: app)
        full = app
        return app
    }

    private func register(into app: AppCoordinator) throws {
        guard let definition else { throw Failure("the plugin did not register") }
        try app.register([ProbePage.definition], origin: nil)
        do {
            try app.register([definition], origin: PluginOrigin(name: pluginName, version: "", path: path))
        } catch {
            let kind: PluginRefusal.Kind = error.message.hasPrefix("duplicate") ? .duplicate : .registration
            throw Failure(error.message, refusal: kind)
        }
    }

    /// A new scene in `app` for one check, so checks do not see each other's pages.
    func scene(in app: AppCoordinator) -> SceneCoordinator {
        sceneNumber += 1
        return app.makeScene(identifier: "contract\(sceneNumber)")
    }

    func feature(in app: AppCoordinator) throws -> Feature {
        guard let definition, let feature = app.features.feature(named: definition.name) else {
            throw Failure("the feature is not registered")
        }
        return feature
    }
}
