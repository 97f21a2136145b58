import CoordMetrics
import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import CoordSupervision
import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import ServiceLifecycle

/// `coordsh serve`: loads the plugins and opens the database once, then gives every client
/// that attaches on the Unix socket a scene of its own.
///
/// The socket is NIO's: it does the non-blocking reads and writes, the handshake timer and the
/// outbound limit (write-buffer watermarks). Its one event loop runs on the main thread, where
/// the app always runs (the main actor), so a decoded request goes straight to the app and its
/// reply straight out. A hand-written poll loop would have to do all of that again.
public enum Serve {
    public struct Options: Sendable {
        public var socketPath: String?
        public var name: String?
        public var configPath: String?
        public var databasePath: String?
        public var pluginDirectories: [String] = []
        /// The app in a worker process this one watches (the default), or in this process.
        public var supervised = true
        /// `--metrics HOST:PORT`: where a monitoring system scrapes the figures (Prometheus's
        /// text format at /metrics); nil serves none.
        public var metrics: String?
        public init() {}
    }

    /// The one-line error of a server that cannot start; the exit status.
    static func refuse(_ message: String) -> Int32 {
        FileHandle.standardError.write(Data("coordsh: error: \(message)\n".utf8))
        return 1
    }

    /// The log (to stderr, from `level` up) and the configuration in force; nil, after the
    /// configuration's one-line error, when it cannot be read.
    static func prepare(_ options: Options, label: String, level: Logger.Level) -> (Config, Logger)? {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: label)
        logger.logLevel = level
        do {
            return (try ConfigDiscovery.load(option: options.configPath), logger)
        } catch {
            _ = refuse("\(error)")
            return nil
        }
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status (0 after a clean shutdown, 1 when
    /// it could not start).
    @MainActor
    public static func run(_ options: Options) -> Int32 {
        guard let (config, logger) = prepare(options, label: "coordsh.serve", level: .info) else { return 1 }
        let place: SocketPlace
        let lock: SocketPlace.Lock
        do {
            place = try SocketPlace.resolve(socket: options.socketPath, name: options.name, environment: ProcessInfo.processInfo.environment)
            lock = try place.claim()
        } catch {
            return refuse("\(error)")
        }
        signal(SIGPIPE, SIG_IGN)
        var metricsSocket: (address: MetricsAddress, socket: Int32)?
        if let text = options.metrics {
            do {
                let address = try MetricsAddress(parsing: text)
                guard address.isLoopback || config.serve.metricsAnyAddress else {
                    lock.release()
                    return refuse("--metrics \(address): not a loopback address, and the figures have no authentication; set [serve] metrics_any_address = true to serve them there")
                }
                metricsSocket = (address, try MetricsEndpoint.bind(address))
            } catch {
                lock.release()
                return refuse("\(error)")
            }
        }
        let metrics = metricsSocket.map { _ in ServeMetrics() }

        let server: any ClientServing
        var front: FrontServer?
        if options.supervised {
            let supervising = supervisedFront(options, config: config, logger: logger, metrics: metrics)
            front = supervising
            server = supervising
        } else {
            // The plugins run in this process: it is confined before the first one loads, with
            // the socket's folder writable (the socket is made once they have loaded).
            var extra = PluginSandbox.Extra()
            extra.writable = [(place.socketPath as NSString).deletingLastPathComponent]
            extra.unixSockets = true
            let (sandbox, grants) = PluginSandbox.enterRunningPlugins(
                config: config, database: options.databasePath ?? config.databaseLocation(),
                pluginDirectories: config.expandedPluginDirectories() + options.pluginDirectories, extra: extra)
            if let warning = sandbox.warning {
                guard !sandbox.refused else {
                    lock.release()
                    return refuse(warning)
                }
                logger.warning("\(warning)")
            }
            let inProcess = inProcess(options, config: config, logger: logger, grants: grants)
            if metrics != nil { Self.export(inProcess.host, logger: logger) }
            server = inProcess
        }
        let settings = config.serve
        let ownUID = getuid()
        let ids = ConnectionCounter()
        let status = NIOLockedValueBox<Int32>(0)
        // This thread, the main one, becomes the event loop: a request is read, run in the app
        // and answered on one thread with no hand-over (two thread wake-ups fewer per command;
        // `./bench serve`).
        MultiThreadedEventLoopGroup.withCurrentThreadAsEventLoop { loop in
            let hub = ServerHub(server: server, logger: logger, loop: ChannelLoop(loop: loop))
            let bootstrap = ServerBootstrap(group: loop)
                .serverChannelOption(.backlog, value: 128)
                .childChannelOption(.writeBufferWaterMark, value: .init(low: settings.outboundLimit / 2, high: settings.outboundLimit))
                .childChannelInitializer { channel in
                    Self.admit(channel, hub: hub, ids: ids, ownUID: ownUID, settings: settings)
                }
            let previousMask = umask(0o177)  // the socket is born 0600
            // Bound under a name of its own and renamed into place once it listens: `bind` makes
            // the file before `listen` makes it answer, and a client (or a script waiting for the
            // file) that came in between was refused. The lock makes the name this server's.
            let binding = place.socketPath + ".new"
            let staged = binding.utf8.count < MemoryLayout.size(ofValue: sockaddr_un().sun_path)
            if staged { unlink(binding) }
            bootstrap.bind(unixDomainSocketPath: staged ? binding : place.socketPath).whenComplete { result in
                umask(previousMask)
                MainActor.assumeIsolated {
                    if case .success(let listener) = result, staged, rename(binding, place.socketPath) != 0 {
                        let reason = String(cString: strerror(errno))
                        unlink(binding)
                        lock.release()
                        status.withLockedValue { $0 = refuse("cannot put the socket in place at \(place.socketPath): \(reason)") }
                        listener.close(promise: nil)
                        loop.shutdownGracefully { _ in }
                        return
                    }
                    switch result {
                    case .success(let listener):
                        // A supervised server's worker starts once the socket listens: a
                        // client that connects meanwhile waits in the backlog, not refused.
                        do {
                            try front?.start(loop: loop)
                        } catch {
                            unlink(place.socketPath)
                            lock.release()
                            status.withLockedValue { $0 = refuse("\(error)") }
                            listener.close(promise: nil)
                            loop.shutdownGracefully { _ in }
                            return
                        }
                        if let metrics, let metricsSocket {
                            let endpoint = Self.serveMetrics(metrics, on: metricsSocket.socket, server: server, front: front, loop: loop, logger: logger)
                            endpoint.whenSuccess { channel in
                                let address = MetricsAddress(host: metricsSocket.address.host, port: channel.localAddress?.port ?? metricsSocket.address.port)
                                logger.info("metrics on http://\(address)/metrics")
                            }
                            endpoint.whenFailure { error in logger.error("cannot serve the metrics on \(metricsSocket.address): \(error)") }
                        }
                        Self.started(listener: listener, loop: loop, server: server, place: place, lock: lock, logger: logger, settings: settings)
                    case .failure(let error):
                        lock.release()
                        status.withLockedValue { $0 = refuse("cannot listen on \(place.socketPath): \(error)") }
                        loop.shutdownGracefully { _ in }
                    }
                }
            }
        }
        return status.withLockedValue { $0 }
    }

    /// Listening: the socket made private, the plugin folders watched, and the graceful
    /// shutdown (SIGTERM, SIGINT) armed.
    @MainActor
    static func started(
        listener: any Channel, loop: any EventLoop, server: any ClientServing, place: SocketPlace, lock: SocketPlace.Lock, logger: Logger,
        settings: Config.ServeSettings
    ) {
        chmod(place.socketPath, 0o600)
        logger.info("listening on \(place.socketPath) (pid \(getpid())\(server.listening(loop: loop)))")

        let lifecycle = ServeLifecycle(
            listener: listener, server: server, place: place, lock: lock, loop: loop, logger: logger,
            drainTimeout: settings.drainTimeout)
        let services = ServiceGroup(configuration: ServiceGroupConfiguration(
            services: [.init(service: lifecycle)], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        Task.detached {
            do {
                try await services.run()
            } catch {
                logger.error("\(error)")
            }
            exit(0)
        }
    }

    /// The app in this process (`--single-process`): plugins loaded and the database opened
    /// here, before the socket listens.
    @MainActor
    static func inProcess(_ options: Options, config: Config, logger: Logger, grants: GrantStore) -> Server {
        let host = AppHost(config: config, databaseOverride: options.databasePath)
        host.grantStore = grants
        let report = host.start(extraPluginDirectories: options.pluginDirectories, secrets: NoTerminalSecrets())
        if let warning = report.databaseWarning { logger.warning("\(warning)") }
        for refusal in report.refusals { logger.warning("\(refusal.description)") }
        return Server(host: host, logger: logger, settings: config.serve)
    }

    /// Each plugin's figures go to this process's metrics as they are counted (a worker's, or
    /// a single-process server's).
    @MainActor
    static func export(_ host: AppHost, logger: Logger) {
        guard let stats = host.stats else {
            return logger.warning("[plugins] accounting is off: the metrics hold no plugin's figures")
        }
        stats.sink = PluginMetrics()
    }

    /// Listens for scrapes: the server's own figures, and a supervised server's worker's,
    /// asked for on its channel from a thread that may wait (the worker answers from a thread
    /// of its own, so a long command does not hold a scrape; one that does not answer within
    /// two seconds leaves its figures out, and the log says so).
    @MainActor
    static func serveMetrics(
        _ metrics: ServeMetrics, on socket: Int32, server: any ClientServing, front: FrontServer?, loop: any EventLoop, logger: Logger
    ) -> EventLoopFuture<any Channel> {
        MetricsEndpoint.listen(socket: socket, loop: loop) { loop in
            MainActor.assumeIsolated {
                let own = metrics.text(server.metricsNow)
                guard let channel = front?.workerMetrics else { return loop.makeSucceededFuture(own) }
                let promise = loop.makePromise(of: [UInt8].self)
                DispatchQueue.global().async {
                    guard let theirs = channel.ask(timeout: 2) else {
                        logger.warning("metrics: the app process did not give its figures within 2 s; this scrape has the server's only")
                        return promise.succeed(own)
                    }
                    promise.succeed(own + theirs)
                }
                return promise.futureResult
            }
        }
    }

    /// The front of a supervised server: its workers are `coordsh worker` children of this
    /// binary with the same configuration, all keying guest carts by this front's tag; with
    /// `metrics`, each gets a metrics channel of its own as its descriptor 4.
    @MainActor
    static func supervisedFront(_ options: Options, config: Config, logger: Logger, metrics: ServeMetrics?) -> FrontServer {
        var arguments = ["worker", "--fd", "3", "--log-level", "notice", "--guest-tag", "\(getpid())-\(Int(Date().timeIntervalSince1970))"]
        if let path = options.configPath { arguments += ["--config", path] }
        for directory in options.pluginDirectories { arguments += ["--plugin-dir", directory] }
        let executable = LoaderSetup.executablePath
        let database = options.databasePath
        let supervisor = Supervisor(answerTimeout: config.workerTimeout, quarantine: Quarantine(path: config.expandedQuarantinePath())) { history in
            guard let metrics else {
                return try WorkerProcess(executable: executable, arguments: arguments, database: database, echo: true, history: history)
            }
            let channel = try MetricsChannel()
            let worker = try WorkerProcess(
                executable: executable, arguments: arguments + ["--metrics-fd", "4"], database: database, echo: true,
                handing: [channel.workerEnd], history: history)
            channel.handedOver()
            metrics.started(worker: worker.pid, channel: channel)
            return worker
        }
        return FrontServer(supervisor: supervisor, logger: logger, settings: config.serve, metrics: metrics)
    }

    /// Watches the plugin folders: what arrives is loaded on the loop and every client told.
    @MainActor
    static func watchPlugins(server: Server, loop: any ServerLoop) {
        if let watcher = PluginWatcher(directories: server.host.loader.directories) {
            // inotify is read by a dispatch source; what it saw is handled on the loop, with
            // the source paused until then so that one change is picked up once.
            let source = DispatchSource.makeReadSource(fileDescriptor: watcher.descriptor, queue: DispatchQueue(label: "coordsh.plugin-watch"))
            let watch = PluginWatch(watcher: watcher, source: source)
            source.setEventHandler {
                watch.source.suspend()
                loop.execute {
                    MainActor.assumeIsolated {
                        if watch.watcher.drain() { server.pickUpDroppedPlugins() }
                    }
                    watch.source.resume()
                }
            }
            source.resume()
            server.pluginWatch = watch
        }
    }

    /// A new connection: refuse another user (and root unless allowed) by its socket's peer
    /// credentials, else attach the protocol handler.
    static func admit(
        _ channel: any Channel, hub: ServerHub, ids: ConnectionCounter, ownUID: uid_t, settings: Config.ServeSettings
    ) -> EventLoopFuture<Void> {
        let id = ids.next()
        guard let provider = channel as? any SocketOptionProvider else {
            hub.log(.error, "client \(id) refused: its peer credentials cannot be read")
            return channel.close()
        }
        let credentials: EventLoopFuture<PeerCredentials> = provider.unsafeGetSocketOption(
            level: .socket, name: NIOBSDSocket.Option(rawValue: SO_PEERCRED))
        return credentials.flatMap { peer in
            let link = ClientLink(id: id, connection: ChannelPeer(channel: channel), pid: peer.pid, uid: peer.uid, logger: hub.logger)
            let allowed = peer.uid == ownUID || (peer.uid == 0 && settings.allowRoot)
            guard allowed else {
                hub.log(.warning, "client \(id) (pid \(peer.pid)) refused: uid \(peer.uid) is not the server's (uid \(ownUID))")
                link.sendAndClose(.error(id: nil, code: "forbidden", message: "this coordsh server belongs to uid \(ownUID); uid \(peer.uid) may not attach"))
                return channel.eventLoop.makeSucceededVoidFuture()
            }
            let timeout = TimeAmount.nanoseconds(Int64(settings.handshakeTimeout * 1e9))
            do {
                try channel.pipeline.syncOperations.addHandler(ClientHandler(link: link, hub: hub, handshakeTimeout: timeout))
            } catch {
                return channel.eventLoop.makeFailedFuture(error)
            }
            return channel.eventLoop.makeSucceededVoidFuture()
        }
    }
}

/// The plugin folders' watch, kept for the server's life. Sendable because its two halves are
/// used safely apart: a dispatch source may be suspended and resumed from any thread, and the
/// watcher is only drained on the event loop.
struct PluginWatch: @unchecked Sendable {
    let watcher: PluginWatcher
    let source: any DispatchSourceRead
}

/// `struct ucred` of SO_PEERCRED (pid, uid, gid), which Swift's Glibc does not export.
struct PeerCredentials: Sendable {
    var pid: Int32 = 0
    var uid: UInt32 = 0
    var gid: UInt32 = 0
}

/// Hands out connection ids from the event loop (one thread, but Sendable for the initializer).
final class ConnectionCounter: @unchecked Sendable {
    private let lock = NSLock()
    private var last = 0
    func next() -> Int {
        lock.lock()
        defer { lock.unlock() }
        last += 1
        return last
    }
}
