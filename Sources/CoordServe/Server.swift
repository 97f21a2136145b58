import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation
import Logging
import NIOCore

/// The app side of `coordsh serve` (and of a worker), on the main actor: one scene per
/// attached client, each request run in its client's scene, replies and pushes sent back.
@MainActor
final class Server: ClientServing {
    struct Client {
        let link: ClientLink
        let session: Session
        let secrets: RemoteSecrets
    }

    let host: AppHost
    let logger: Logger
    let settings: Config.ServeSettings
    /// Keys this server's guest carts apart from another server's on the same database. A
    /// worker is given its front's, so that a scene restored in the next worker has its cart.
    var guestTag: String
    private(set) var clients: [Int: Client] = [:]
    /// Set by SIGTERM: requests still arriving are refused, in-flight ones finish.
    private(set) var draining = false
    /// Requests run since start.
    private(set) var handled = 0
    /// The plugin folders' watch, kept for the server's life.
    var pluginWatch: PluginWatch?
    /// What this server is to its clients: `coordsh serve --single-process`, or a worker
    /// serving a front's scenes.
    enum Role {
        /// Names its clients' scenes itself; a new version of a loaded plugin is refused
        /// until a restart.
        case server
        /// A worker (`coordsh worker`): takes the scene names and client pids its front gives
        /// in `hello` (see `ClientRequest.hello`) and puts its start-up notices inside the
        /// hello, offers a new version of a loaded plugin to the front (which can start a new
        /// worker with it, see `ServerReply.upgrade`), and notes the command it is about to
        /// run in `marker` for the front's crash report. `terminal`: its front is the
        /// supervised shell, whose one scene has the shared guest cart kept for the next shell.
        case worker(terminal: Bool, marker: RunningMarker?)
    }

    let role: Role
    /// Told to each client right after its hello (a worker's start-up warnings and refusals).
    var startNotices: [Notice] = []
    /// The worker's front runs a script (`coordsh worker --script`): a scene's home page is
    /// opened when a command first needs the scene, as a script's is in one process
    /// (`Session.startRoute`), so that a script of builtins loads no plugin's image.
    var homePageWaits = false

    init(host: AppHost, logger: Logger, settings: Config.ServeSettings, role: Role = .server) {
        self.host = host
        self.role = role
        self.logger = logger
        self.settings = settings
        self.guestTag = "\(getpid())-\(Int(Date().timeIntervalSince1970))"
        host.onAppEvent = { [unowned self] event in broadcast(Notice(event)) }
    }

    private var isWorker: Bool {
        if case .worker = role { true } else { false }
    }
    private var servesTerminal: Bool {
        if case .worker(terminal: true, _) = role { true } else { false }
    }
    private var marker: RunningMarker? {
        if case .worker(_, let marker) = role { marker } else { nil }
    }

    /// Commands run on the loop here, each finished before the next request is read.
    var busy: Bool { false }

    /// Nothing waits here: a request runs as it is read.
    var metricsNow: ServeMetrics.Now {
        ServeMetrics.Now(clients: clients.count, waiting: 0, appUp: true, quarantined: host.loader.quarantine?.entries().count ?? 0)
    }

    // MARK: Connections

    /// A client said hello: give it a scene, or refuse it when the server is full or closing.
    func open(_ link: ClientLink, resume: String?, scene name: String?, peer: Int?) {
        guard link.admitted(draining: draining, attached: clients.count, settings: settings, logger: logger) else { return }
        let secrets = RemoteSecrets()
        let identifier = isWorker ? name ?? "c\(link.id)" : "c\(link.id)"
        let session = host.openSession(
            identifier: identifier,
            visitor: servesTerminal ? .terminal : SceneVisitor(key: "guest:\(guestTag):\(identifier)", endsWithScene: true),
            secrets: secrets, peer: Session.Peer(pid: isWorker ? peer.flatMap { Int32(exactly: $0) } ?? link.pid : link.pid, uid: link.uid))
        clients[link.id] = Client(link: link, session: session, secrets: secrets)
        var page: [String] = []
        if let home = host.config.home, let request = try? RouteRequest.parse(home),
            host.app.features.feature(named: request.feature) != nil {
            if homePageWaits {
                session.startRoute = request
            } else {
                page = session.run("open \(Words.quote(home))").result.lines
            }
        }
        logger.info("client \(link.id) connected: pid \(link.pid), scene \(session.scene.identifier), \(clients.count) attached")
        var notices = startNotices
        if let resume {
            let notice = session.resume(token: resume)
            notices.append(notice)
        }
        // A worker's front gets them inside the hello, before its first prompt (see `Hello`).
        link.send(.hello(.init(
            version: WireProtocol.version, server: "coordsh", scene: session.scene.identifier, pid: Int(getpid()),
            route: session.currentRoute, page: page,
            plugins: host.loader.loaded.map { PluginIdentity(name: $0.origin.name, version: $0.origin.version) }, notices: isWorker ? notices : [])))
        if !isWorker {
            for notice in notices { link.send(.event(notice)) }
        }
    }

    /// The connection ended (the client left, was killed, or was dropped): close its scene.
    func close(_ link: ClientLink) {
        guard let client = clients.removeValue(forKey: link.id) else { return }
        let events = host.closeSession(client.session)
        let dropped = events.filter(\.isFailure)
        for event in dropped { logger.notice("client \(link.id): \(event)") }
        logger.info("client \(link.id) disconnected: scene \(client.session.scene.identifier) closed\(dropped.isEmpty ? "" : ", \(dropped.count) queued message\(dropped.count == 1 ? "" : "s") dropped"), \(clients.count) attached")
    }

    // MARK: Requests

    func handle(_ request: ClientRequest, from link: ClientLink) {
        guard let client = clients[link.id] else { return }
        switch request {
        case .run(let id, let line, let answers, let document):
            if draining {
                link.send(.error(id: id, code: "shutting_down", message: "the server is shutting down; the command was not run"))
                return
            }
            handled += 1
            client.secrets.begin(with: answers)
            let secret = client.session.isSecret(line)
            if let runningMarker = marker {
                // A secret (a card number) is not written to the marker file: its words after
                // the verb are masked.
                let shown = secret ? line.split(separator: " ").prefix(2).joined(separator: " ") + " ****" : line
                runningMarker.record(line: shown, plugin: client.session.plugin(of: line), scene: client.session.scene.identifier)
            }
            let reply = client.session.run(line)
            marker?.clear()
            if let needed = client.secrets.pending, answers.count < 8 {
                link.send(.secret(id: id, prompt: needed.prompt, confirm: needed.confirm))
            } else {
                link.send(.result(Self.result(id: id, reply, secret: secret, session: client.session, document: document)))
            }
            client.secrets.begin(with: [])
            pushPending(except: link.id)
        case .complete(let id, let line, let word):
            link.send(.completions(id: id, candidates: client.session.completions(line: line, word: word)))
            return
        case .ping(let id):
            link.send(.pong(id: id))
        case .bye:
            link.close()
        case .hello:
            break  // the handler answers a second hello itself
        }
    }

    static func result(id: Int, _ reply: Reply, secret: Bool, session: Session, document: Bool = true) -> ServerReply.RunResult {
        ServerReply.RunResult(
            id: id, status: Int(reply.status), lines: reply.error == nil ? reply.result.lines : [],
            document: document ? reply.document : nil,
            notices: reply.notices,
            error: reply.error.map { ($0.code, $0.message) }, route: session.currentRoute, quit: reply.result.quit,
            secret: secret, resume: session.resumeToken,
            queued: session.queuedCommands(), trail: session.pageTrail())
    }

    // MARK: Pushes

    /// Sends every client a notice (a plugin loaded, an app-wide event).
    func broadcast(_ notice: ServerReply.Notice) {
        for client in clients.values { client.link.send(.event(notice)) }
    }

    /// Events that happened in other scenes because of this command (a plugin it loaded
    /// replayed their waiting messages) are told to their clients now, not at their next command.
    func pushPending(except id: Int?) {
        for (key, client) in clients where key != id {
            for event in client.session.drainEvents() {
                client.link.send(.event(Notice(event)))
            }
        }
    }

    /// A plugin folder changed: load what arrived, tell every client, and what it replayed.
    func pickUpDroppedPlugins() {
        let (loaded, refused) = host.loader.rescan()
        for plugin in loaded {
            logger.notice("loaded plugin \(plugin.origin.name) \(plugin.origin.version) from \(plugin.origin.path)")
            broadcast(.init(text: "loaded plugin \(plugin.origin.name) \(plugin.origin.version) from \(plugin.origin.path)", isWarning: false, kind: .pluginLoaded))
        }
        for refusal in refused {
            if isWorker, refusal.kind == .needsRestart {
                let offer = "a new version of a loaded plugin arrived: \(refusal.path)"
                for client in clients.values { client.link.send(.upgrade(text: offer)) }
                continue
            }
            logger.warning("\(refusal.description)")
            broadcast(.init(text: refusal.description, isWarning: true, kind: .pluginRefused))
        }
        pushPending(except: nil)
    }

    func listening(loop: any EventLoop) -> String {
        Serve.watchPlugins(server: self, loop: ChannelLoop(loop: loop))
        return ", \(host.app.features.features.count) features, in this process"
    }

    // MARK: Shutdown

    func beginDrain() {
        draining = true
    }

    /// Says goodbye to every client (their connections close once it is written) and closes
    /// the app's data store: the process ends next, and what its clients changed goes into the
    /// database's file.
    func goodbyeAll(_ reason: String) {
        for client in clients.values { client.link.sendAndClose(.goodbye(reason: reason)) }
        host.close()
    }
}
