import CWatchSet
import CoordMetrics
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
/// client's requests are relayed to its scene there, and the worker's answers and pushes back
/// as they arrive: the front never waits for the worker, so one client's long command holds
/// no other client's accept, ping or completion (a completion the worker is too busy for is
/// answered empty after `completionWait`). When a command crashes the worker, its client gets
/// the crash line, every other client a note, and the next worker gets every scene back (see
/// `Supervisor`) — PostgreSQL's postmaster, with the connections kept.
@MainActor
final class FrontServer: ClientServing {
    /// How long Tab waits for a busy app before it gets no candidates: a prompt must not
    /// freeze for another client's command, and a second is time enough for the values that
    /// load a plugin first.
    static let completionWait = TimeAmount.seconds(1)

    /// What only the front does, done when no request is with the worker (it replaces the
    /// worker, or hands every scene to another): a client's `restart` or `plugins upgrade`,
    /// or the worker's offer of a new plugin version.
    private enum FrontWork {
        case command(FrontClient, id: Int, FrontCommand)
        case offer(String)
    }

    let supervisor: Supervisor
    let logger: Logger
    let settings: Config.ServeSettings
    private var clients: [Int: FrontClient] = [:]
    private var draining = false
    private var frontWork: [FrontWork] = []
    private var loop: (any EventLoop)?
    /// When the worker last sent anything: a worker that owes answers and sends nothing for
    /// `answerTimeout` is hung.
    private var lastHeard = NIODeadline.now()
    private var hangCheck: Scheduled<Void>?
    /// Watches the worker's connections (its control channel and every scene's): answers,
    /// pushes, an upgrade offer, the worker's end.
    private var watch: (any DispatchSourceRead)?
    /// A secret prompt is never answered here (the client answers its own), but a scene's
    /// connection needs one.
    private let noPrompt = NoTerminalSecrets()

    /// `serve --metrics`: its workers' channels (the restarts and crashes are the supervisor's
    /// `history`).
    let metrics: ServeMetrics?

    init(supervisor: Supervisor, logger: Logger, settings: Config.ServeSettings, metrics: ServeMetrics? = nil) {
        self.supervisor = supervisor
        self.logger = logger
        self.settings = settings
        self.metrics = metrics
    }

    /// Starts the first worker and watches it from the loop.
    func start(loop: any EventLoop) throws {
        self.loop = loop
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

    /// The clients in the order they came.
    private var ordered: [FrontClient] { clients.keys.sorted().compactMap { clients[$0] } }
    private var scenes: [SceneLink] { ordered.map(\.scene) }

    var busy: Bool { clients.values.contains { $0.owedSince != nil } }

    var metricsNow: ServeMetrics.Now {
        ServeMetrics.Now(
            clients: clients.count, waiting: clients.values.map(\.waiting.count).reduce(frontWork.count, +),
            appUp: supervisor.worker != nil, quarantined: supervisor.quarantinedCount, history: supervisor.history)
    }

    /// The running worker's metrics channel (`serve --metrics`).
    var workerMetrics: MetricsChannel? { metrics?.channel(of: supervisor.worker?.pid) }

    // MARK: Connections

    func open(_ link: ClientLink, resume: String?, scene _: String?, peer _: Int?) {
        guard link.admitted(draining: draining, attached: clients.count, settings: settings, logger: logger) else { return }
        let client = FrontClient(link: link, scene: SceneLink(name: "c\(link.id)", secrets: noPrompt, resume: resume, peer: link.pid))
        if supervisor.worker != nil {
            do {
                client.attaching = (try supervisor.beginAttach(client.scene), .now())
            } catch {
                link.sendAndClose(.error(id: nil, code: "failed", message: "\(error)"))
                pump()
                return
            }
        }
        clients[link.id] = client
        if client.attaching == nil { greet(client) } else { armHangCheck() }
    }

    /// The client's hello is answered: its scene is built (or the app is stopped).
    private func greet(_ client: FrontClient) {
        let link = client.link, scene = client.scene
        logger.info("client \(link.id) connected: pid \(link.pid), scene \(scene.name), \(clients.count) attached")
        let hello = scene.remote?.hello
        link.send(.hello(.init(
            version: WireProtocol.version, server: "coordsh", scene: scene.name, pid: Int(getpid()),
            route: hello?.route, page: hello?.page ?? [], plugins: hello?.plugins ?? [])))
        if supervisor.worker == nil {
            link.send(.event(.init(text: supervisor.stoppedLine, isWarning: true)))
        }
    }

    func close(_ link: ClientLink) {
        guard let client = clients.removeValue(forKey: link.id) else { return }
        client.attaching?.connection.shutdown()
        client.attaching = nil
        client.scene.close()
        logger.info("client \(link.id) disconnected: scene \(client.scene.name) closed, \(clients.count) attached")
        dispatch()
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
            // `restart` and `plugins upgrade` are the front's (as in the supervised shell).
            if let command = FrontCommand(line: line) {
                frontWork.append(.command(client, id: id, command))
            } else {
                client.waiting.append(.run(id: id, line: line, answers: answers, document: document))
            }
            dispatch()
        case .complete(let id, let line, let word):
            client.waiting.append(.complete(id: id, line: line, word: word))
            dispatch()
        case .ping(let id):
            link.send(.pong(id: id))
        case .bye:
            link.close()
        case .hello:
            break
        }
    }

    /// Sends each client's next request to the worker, unless it has one there already; first
    /// does the front's own work once nothing is with the worker.
    private func dispatch() {
        if !frontWork.isEmpty, !busy {
            let work = frontWork
            frontWork.removeAll()
            for item in work { perform(item) }
        }
        for client in ordered where client.owedSince == nil && !client.waiting.isEmpty {
            // Front work waits for the worker to owe nothing: no new request goes before it.
            guard frontWork.isEmpty else { break }
            send(client.waiting.removeFirst(), for: client)
        }
        armHangCheck()
    }

    private func send(_ request: FrontClient.Request, for client: FrontClient) {
        guard let remote = client.scene.remote else {
            switch request {
            case .run(let id, _, _, _): client.link.send(.error(id: id, code: "stopped", message: supervisor.stoppedLine))
            case .complete(let id, _, _): client.link.send(.completions(id: id, candidates: []))
            }
            return
        }
        let workerID: Int
        do {
            // Under the client's own id: the answer passes back as the worker wrote it.
            switch request {
            case .run(let id, let line, let answers, let document): workerID = try remote.send(line, answers: answers, id: id, document: document)
            case .complete(let id, let line, let word): workerID = try remote.sendCompletion(line: line, word: word, id: id)
            }
        } catch {
            // The worker is gone: the crash, found by the next look, answers this request.
            client.inFlight = .init(request: request, workerID: request.id, sent: .now())
            loop?.execute { MainActor.assumeIsolated { self.pump() } }
            return
        }
        client.inFlight = .init(request: request, workerID: workerID, sent: .now())
        if case .complete = request, let loop {
            loop.scheduleTask(in: Self.completionWait) {
                MainActor.assumeIsolated { self.completionWaited(client, workerID: workerID) }
            }
        }
    }

    /// Tab waited long enough: no candidates now; the worker's late answer is dropped.
    private func completionWaited(_ client: FrontClient, workerID: Int) {
        guard var inFlight = client.inFlight, inFlight.workerID == workerID, !inFlight.answered else { return }
        inFlight.answered = true
        client.inFlight = inFlight
        client.link.send(.completions(id: inFlight.request.id, candidates: []))
    }

    private func perform(_ work: FrontWork) {
        switch work {
        case .command(let client, let id, let command):
            let answer = supervisor.answer(command, scenes: scenes)
            switch answer {
            case .done(let text):
                if command == .restart {
                    logger.notice("the app was started again by client \(client.link.id)")
                    broadcast(.init(text: text, isWarning: false), except: client.link.id)
                } else {
                    logger.notice("\(text)")
                }
                client.link.send(.result(.init(id: id, status: 0, lines: [text], document: command == .upgrade ? ["upgraded": .string(text)] : nil, notices: [], error: nil,
                                               route: client.scene.route, quit: false, secret: false)))
            case .failed(let code, let message):
                if command == .upgrade { logger.warning("\(message)") }
                client.link.send(.error(id: id, code: code, message: message))
            }
        case .offer(let offer):
            logger.notice("\(offer)")
            broadcast(.init(text: offer, isWarning: false), except: nil)
            broadcast(upgrade(), except: nil)
        }
        deliverPending()
    }

    // MARK: What the worker sends

    /// Reads what every scene's connection has, relays it to its client, and takes the
    /// worker's end as a crash and its upgrade offer as front work.
    private func pump() {
        coordsh_watchset_drain(supervisor.watchSet)
        for client in ordered {
            if let attaching = client.attaching {
                let frames = attaching.connection.receiveAvailable()
                if !frames.isEmpty { lastHeard = .now() }
                guard let first = frames.first else { continue }
                guard case .hello(let hello) = first.reply else {
                    refuse(client, first.reply)
                    continue
                }
                client.attaching = nil
                supervisor.finishAttach(client.scene, on: attaching.connection, hello: hello)
                greet(client)
                relay(Array(frames.dropFirst()), to: client)
            } else if let connection = client.scene.remote?.connection {
                let frames = connection.receiveAvailable()
                if !frames.isEmpty { lastHeard = .now() }
                relay(frames, to: client)
            }
        }
        let broken = clients.values.contains { $0.scene.isBroken || $0.attaching?.connection.closedReason != nil }
        if let worker = supervisor.worker, worker.hasEnded || broken {
            crashed(hung: false)
        }
        deliverPending()
        dispatch()
    }

    /// A worker that answers a scene's hello with anything else refused it.
    private func refuse(_ client: FrontClient, _ frame: ServerReply) {
        let reason = switch frame {
        case .error(_, _, let message): message
        case .goodbye(let reason): reason
        default: "the app process did not answer hello"
        }
        clients[client.link.id] = nil
        client.attaching = nil
        client.link.sendAndClose(.error(id: nil, code: "failed", message: "the app process refused the scene: \(reason)"))
    }

    /// Passes the worker's frames to the client as they came: pushes, and the answer to its
    /// request in flight (asked under the client's own id), whose result the scene's place is
    /// kept from first.
    private func relay(_ frames: [(reply: ServerReply, bytes: [UInt8])], to client: FrontClient) {
        for frame in frames {
            switch frame.reply {
            case .event:
                client.link.send(frame: frame.bytes)
            case .upgrade(let text):
                offer(text)
            case .result, .secret, .completions, .error(.some, _, _):
                answer(frame, to: client)
            case .hello, .pong, .goodbye, .error(nil, _, _):
                break  // the connection's end follows, and is a crash
            }
        }
    }

    /// The worker's answer to the client's request in flight.
    private func answer(_ frame: (reply: ServerReply, bytes: [UInt8]), to client: FrontClient) {
        guard let inFlight = client.inFlight, frame.reply.requestID == inFlight.workerID else {
            logger.warning("client \(client.link.id): the app process answered a request it was not asked (\(frame.reply.typeName))")
            return
        }
        client.inFlight = nil
        guard !inFlight.answered else { return }
        switch (frame.reply, inFlight.request) {
        case (.result(let result), .run(_, let line, _, _)):
            client.scene.remote?.absorb(result, line: line)
            client.scene.note()
        case (.secret, .run), (.completions, .complete), (.error, _):
            break
        default:
            client.link.send(.error(id: inFlight.request.id, code: "protocol", message: "the app process answered out of turn"))
            return
        }
        client.link.send(frame: frame.bytes)
    }

    /// The worker offers a new plugin version on every scene's connection: one upgrade.
    private func offer(_ text: String) {
        let queued = frontWork.contains { if case .offer = $0 { true } else { false } }
        if !queued { frontWork.append(.offer(text)) }
    }

    /// Notes for each scene's person that arrived outside an answer: a restore's, and what
    /// its connection kept while a scene was built (a hello's notices, pushes, an upgrade offer).
    private func deliverPending() {
        for client in ordered where client.attaching == nil {
            if let connection = client.scene.remote?.connection {
                for notice in connection.takeKept() { client.link.send(.event(notice)) }
                connection.upgradeOffers.forEach(offer)
                connection.upgradeOffers.removeAll()
            }
            for notice in client.scene.pending.drain() { client.link.send(.event(notice)) }
        }
    }

    // MARK: A crash, a hang

    /// Looks again when the oldest thing the worker owes has waited `answerTimeout` with
    /// nothing heard from the worker meanwhile.
    private func armHangCheck() {
        guard hangCheck == nil, let loop, let oldest = clients.values.compactMap(\.owedSince).min() else { return }
        let deadline = max(oldest, lastHeard) + .nanoseconds(Int64(supervisor.answerTimeout * 1e9))
        hangCheck = loop.scheduleTask(deadline: deadline) {
            MainActor.assumeIsolated {
                self.hangCheck = nil
                self.checkHang()
            }
        }
    }

    private func checkHang() {
        guard let oldest = clients.values.compactMap(\.owedSince).min(), supervisor.worker != nil else { return }
        let timeout = TimeAmount.nanoseconds(Int64(supervisor.answerTimeout * 1e9))
        if NIODeadline.now() >= max(oldest, lastHeard) + timeout {
            crashed(hung: true)
            deliverPending()
            dispatch()
        } else {
            armHangCheck()
        }
    }

    /// The worker died (or hung): the client whose command was running gets the crash line
    /// as its answer; a client whose request was with the worker while another's ran gets the
    /// note as its answer (it may or may not have run before); every other client gets the
    /// note; each is told where its scene is now.
    private func crashed(hung: Bool) {
        // What was read before the end is relayed first: an answer that made it is an answer.
        for client in ordered where client.attaching == nil {
            if let connection = client.scene.remote?.connection { relay(connection.receiveAvailable(), to: client) }
        }
        let greeting = ordered.filter { $0.attaching != nil }
        for client in greeting {
            client.attaching?.connection.shutdown()
            client.attaching = nil
        }
        let end = supervisor.workerDied(scenes: scenes, hung: hung)
        logger.error("\(end.message)")
        for client in greeting { greet(client) }
        for client in ordered {
            let own = end.line(for: client.scene, ownCommand: true)
            let note = end.line(for: client.scene, ownCommand: false)
            let owed = client.inFlight
            client.inFlight = nil
            switch owed {
            case .some(let inFlight) where inFlight.answered:
                client.link.send(.event(.init(text: note, isWarning: true)))
            case .some(let inFlight) where inFlight.isCompletion:
                client.link.send(.completions(id: inFlight.request.id, candidates: []))
                client.link.send(.event(.init(text: note, isWarning: true)))
            case .some(let inFlight) where client.scene.name == end.runningScene || end.runningScene == nil:
                // Its command ran — or nobody's was running (a kill from outside), and whether
                // this one ran before the end is not known: its person is told what happened,
                // as when it runs.
                client.link.send(.error(id: inFlight.request.id, code: "crashed", message: own))
            case .some(let inFlight):
                client.link.send(.error(id: inFlight.request.id, code: "crashed", message: note))
            case nil:
                if !greeting.contains(where: { $0 === client }) {
                    client.link.send(.event(.init(text: note, isWarning: true)))
                }
            }
        }
    }

    /// A new worker with the plugin folders as they are now, every scene handed over.
    private func upgrade() -> ServerReply.Notice {
        let notice = supervisor.upgrade(scenes)
        if notice.isWarning { logger.warning("\(notice.text)") } else { logger.notice("\(notice.text)") }
        return notice
    }

    private func broadcast(_ notice: ServerReply.Notice, except id: Int?) {
        for (key, client) in clients where key != id && client.attaching == nil { client.link.send(.event(notice)) }
    }

    func listening(loop _: any EventLoop) -> String {
        guard let worker = supervisor.worker else { return "; the app is stopped" }
        return "; the app in worker pid \(worker.pid) with \(worker.plugins.count) plugins"
    }

    // MARK: Shutdown

    /// Requests not yet with the worker are refused; those with it are waited for (`busy`).
    func beginDrain() {
        draining = true
        for client in ordered {
            for request in client.waiting {
                switch request {
                case .run(let id, _, _, _): client.link.send(.error(id: id, code: "shutting_down", message: "the server is shutting down; the command was not run"))
                case .complete(let id, _, _): client.link.send(.completions(id: id, candidates: []))
                }
            }
            client.waiting.removeAll()
        }
    }

    func goodbyeAll(_ reason: String) {
        for client in clients.values { client.link.sendAndClose(.goodbye(reason: reason)) }
        watch?.cancel()
        hangCheck?.cancel()
        supervisor.stop()
    }
}

/// A dispatch source handed to the loop to resume: suspending and resuming are safe from any
/// thread, which the type does not say.
struct PausedSource: @unchecked Sendable {
    let source: any DispatchSourceRead
}
