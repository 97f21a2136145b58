import CWatchSet
import CoordProtocol
import CoordRuntime
import CoordSession
import CoordClient
import CoordSupervision
import Foundation
import Logging
import NIOCore

/// A supervised `coordsh serve` (the default): this process owns the socket, the clients and
/// each scene's place, and loads no plugin; the app runs in a `coordsh-server worker` child. Each
/// client's requests are relayed to its scene there, and the worker's answers and pushes back.
/// When a command crashes the worker, its client gets the crash line, every other client a
/// note, and the next worker gets every scene back (see `Supervisor`) — PostgreSQL's
/// postmaster, with the connections kept.
@MainActor
final class FrontServer: ClientServing {
    struct Client {
        let link: ClientLink
        let scene: SceneLink
    }

    let supervisor: Supervisor
    let logger: Logger
    let settings: Config.ServeSettings
    private var clients: [Int: Client] = [:]
    private var draining = false
    /// Watches the worker's connections (its control channel and every scene's) for what
    /// arrives between requests: pushes, an upgrade offer, the worker's end.
    private var watch: (any DispatchSourceRead)?
    /// A secret prompt is never answered here (the client answers its own), but a scene's
    /// connection needs one.
    private let noPrompt = NoTerminalSecrets()

    init(supervisor: Supervisor, logger: Logger, settings: Config.ServeSettings) {
        self.supervisor = supervisor
        self.logger = logger
        self.settings = settings
    }

    /// Starts the first worker and watches it from the loop.
    func start(loop: any EventLoop) throws {
        try supervisor.start([])
        // As with the plugin folders' watch: the source is paused until the loop has looked.
        let source = DispatchSource.makeReadSource(fileDescriptor: supervisor.watchSet, queue: DispatchQueue(label: "coordsh.front-watch"))
        let paused = PausedSource(source: source)
        source.setEventHandler { [weak self] in
            paused.source.suspend()
            loop.execute {
                MainActor.assumeIsolated { self?.pump() }
                paused.source.resume()
            }
        }
        source.resume()
        watch = source
    }

    private var scenes: [SceneLink] { clients.keys.sorted().compactMap { clients[$0]?.scene } }

    // MARK: Connections

    func open(_ link: ClientLink, resume: String?, scene _: String?, peer _: Int?) {
        guard link.admitted(draining: draining, attached: clients.count, settings: settings, logger: logger) else { return }
        let scene = SceneLink(name: "c\(link.id)", secrets: noPrompt, resume: resume, peer: link.pid)
        if supervisor.worker != nil {
            do {
                try supervisor.attach(scene)
            } catch {
                link.sendAndClose(.error(id: nil, code: "failed", message: "\(error)"))
                pump()
                return
            }
        }
        clients[link.id] = Client(link: link, scene: scene)
        logger.info("client \(link.id) connected: pid \(link.pid), scene \(scene.name), \(clients.count) attached")
        let hello = scene.remote?.hello
        link.send(.hello(.init(
            version: WireProtocol.version, server: "coordsh", scene: scene.name, pid: Int(getpid()),
            route: hello?.route, page: hello?.page ?? [], plugins: hello?.plugins ?? [])))
        if supervisor.worker == nil {
            link.send(.event(.init(text: supervisor.stoppedLine, isWarning: true)))
        }
        pump()
    }

    func close(_ link: ClientLink) {
        guard let client = clients.removeValue(forKey: link.id) else { return }
        client.scene.close()
        logger.info("client \(link.id) disconnected: scene \(client.scene.name) closed, \(clients.count) attached")
    }

    // MARK: Requests

    func handle(_ request: ClientRequest, from link: ClientLink) {
        guard let client = clients[link.id] else { return }
        switch request {
        case .run(let id, let line, let answers):
            if draining {
                link.send(.error(id: id, code: "shutting_down", message: "the server is shutting down; the command was not run"))
                return
            }
            run(id: id, line: line, answers: answers, for: client)
            pump()
        case .complete(let id, let line, let word):
            link.send(.completions(id: id, candidates: client.scene.remote?.completions(line: line, word: word) ?? []))
        case .bye:
            link.channel.close(promise: nil)
        case .hello:
            break
        }
    }

    private func run(id: Int, line: String, answers: [String], for client: Client) {
        // `restart` and `plugins upgrade` are the front's (as in the supervised shell).
        if let command = FrontCommand(line: line) {
            let answer = supervisor.answer(command, scenes: scenes)
            switch answer {
            case .done(let text):
                if command == .restart {
                    logger.notice("the app was started again by client \(client.link.id)")
                    broadcast(.init(text: text, isWarning: false), except: client.link.id)
                } else {
                    logger.notice("\(text)")
                }
                client.link.send(.result(.init(id: id, status: 0, lines: [text], document: command == .upgrade ? ["upgraded": text] : nil, notices: [], error: nil,
                                               route: client.scene.route, quit: false, secret: false)))
            case .failed(let code, let message):
                if command == .upgrade { logger.warning("\(message)") }
                client.link.send(.error(id: id, code: code, message: message))
            }
            return
        }
        guard let remote = client.scene.remote else {
            client.link.send(.error(id: id, code: "stopped", message: supervisor.stoppedLine))
            return
        }
        do {
            switch try remote.exchange(line, answers: answers) {
            case .result(let result):
                client.scene.note()
                client.link.send(.result(result.renumbered(id)))
            case .secret(_, let prompt, let confirm):
                client.link.send(.secret(id: id, prompt: prompt, confirm: confirm))
            case .error(_, let code, let message):
                client.link.send(.error(id: id, code: code, message: message))
            default:
                client.link.send(.error(id: id, code: "protocol", message: "the app process answered out of turn"))
            }
        } catch {
            crashed(running: (client.link.id, id))
        }
    }

    /// The worker died (or hung): the client whose command was running gets the crash line
    /// as its answer, every other client a note; each is told where its scene is now.
    private func crashed(running: (client: Int, request: Int)?) {
        let message = supervisor.workerDied(scenes: scenes)
        logger.error("\(message)")
        let restarted = supervisor.worker != nil
        for (key, client) in clients {
            let place = restarted ? client.scene.route.map { ", back at \($0)" } ?? "" : ""
            if let running, running.client == key {
                client.link.send(.error(id: running.request, code: "crashed", message: message + place))
            } else {
                // Whose doing it was: another client's command, or nobody's (a kill from outside).
                let whose = running == nil ? "" : "another client's command: "
                client.link.send(.event(.init(text: whose + message + (restarted ? "; your scene was restored" + place : ""), isWarning: true)))
            }
        }
    }

    /// A new worker with the plugin folders as they are now, every scene handed over.
    private func upgrade() -> ServerReply.Notice {
        let notice = supervisor.upgrade(scenes)
        if notice.isWarning { logger.warning("\(notice.text)") } else { logger.notice("\(notice.text)") }
        return notice
    }

    /// What arrived from the worker between requests goes to its clients; a worker that
    /// ended is a crash; a worker's upgrade offer is taken.
    private func pump() {
        coordsh_watchset_drain(supervisor.watchSet)
        var offers: [String] = []
        for client in clients.values {
            guard let connection = client.scene.remote?.connection else { continue }
            for notice in connection.takePushed() { client.link.send(.event(notice)) }
            offers += connection.upgradeOffers
            connection.upgradeOffers.removeAll()
        }
        if let worker = supervisor.worker, worker.hasEnded || clients.values.contains(where: \.scene.isBroken) {
            crashed(running: nil)
        } else if let offer = offers.first {
            logger.notice("\(offer)")
            broadcast(.init(text: offer, isWarning: false), except: nil)
            broadcast(upgrade(), except: nil)
        }
        for client in clients.values {
            for notice in client.scene.pending.drain() { client.link.send(.event(notice)) }
        }
    }

    private func broadcast(_ notice: ServerReply.Notice, except id: Int?) {
        for (key, client) in clients where key != id { client.link.send(.event(notice)) }
    }

    // MARK: Shutdown

    func beginDrain() {
        draining = true
    }

    func goodbyeAll(_ reason: String) {
        for client in clients.values { client.link.sendAndClose(.goodbye(reason: reason)) }
        watch?.cancel()
        supervisor.stop()
    }
}

/// A dispatch source handed to the loop to resume: suspending and resuming are safe from any
/// thread, which the type does not say.
struct PausedSource: @unchecked Sendable {
    let source: any DispatchSourceRead
}
