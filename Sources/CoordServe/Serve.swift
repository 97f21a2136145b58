import CoordProtocol
import CoordRuntime
import CoordSDK
import CoordShell
import Foundation
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle

/// `coordsh serve`: loads the plugins and opens the database once, then gives every client
/// that attaches on the Unix socket a scene of its own.
///
/// The socket is NIO's (one event-loop thread): it does the non-blocking reads and writes, the
/// framing, the handshake timer and the outbound limit (write-buffer watermarks), while the
/// app stays where it always runs, on the main actor — each decoded request is queued on the
/// main queue. A hand-written poll loop would have to do all of that again.
public enum Serve {
    public struct Options: Sendable {
        public var socketPath: String?
        public var name: String?
        public var configPath: String?
        public var databasePath: String?
        public var pluginDirectories: [String] = []
        public init() {}
    }

    /// Runs until SIGTERM or SIGINT; returns the exit status (0 after a clean shutdown, 1 when
    /// it could not start).
    @MainActor
    public static func run(_ options: Options) -> Int32 {
        LoggingSystem.bootstrap { StreamLogHandler.standardError(label: $0) }
        var logger = Logger(label: "coordsh.serve")
        logger.logLevel = .info
        func refuse(_ message: String) -> Int32 {
            FileHandle.standardError.write(Data("coordsh: error: \(message)\n".utf8))
            return 1
        }
        let config: Config
        do {
            config = try ConfigDiscovery.load(option: options.configPath)
        } catch {
            return refuse("\(error)")
        }
        let place: SocketPlace
        let lock: SocketPlace.Lock
        do {
            place = try SocketPlace.resolve(socket: options.socketPath, name: options.name, environment: ProcessInfo.processInfo.environment)
            lock = try place.claim()
        } catch {
            return refuse("\(error)")
        }
        signal(SIGPIPE, SIG_IGN)

        let host = AppHost(config: config, databaseOverride: options.databasePath)
        let report = host.start(extraPluginDirectories: options.pluginDirectories, secrets: NoTerminalSecrets())
        if let warning = report.databaseWarning { logger.warning("\(warning)") }
        for refusal in report.refusals { logger.warning("\(refusal.description)") }
        let server = Server(host: host, logger: logger, settings: config.serve)
        let hub = ServerHub(server: server, logger: logger)

        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let settings = config.serve
        let ownUID = getuid()
        let ids = ConnectionCounter()
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 128)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: settings.outboundLimit / 2, high: settings.outboundLimit))
            .childChannelInitializer { channel in
                Self.admit(channel, hub: hub, ids: ids, ownUID: ownUID, settings: settings)
            }
        let listener: any Channel
        let previousMask = umask(0o177)  // the socket is born 0600
        do {
            listener = try bootstrap.bind(unixDomainSocketPath: place.socketPath).wait()
        } catch {
            umask(previousMask)
            lock.release()
            return refuse("cannot listen on \(place.socketPath): \(error)")
        }
        umask(previousMask)
        chmod(place.socketPath, 0o600)
        logger.info("listening on \(place.socketPath) (pid \(getpid()), \(host.app.features.features.count) features)")

        let watcher = PluginWatcher(directories: host.loader.directories)
        if let watcher {
            let source = DispatchSource.makeReadSource(fileDescriptor: watcher.descriptor, queue: .main)
            source.setEventHandler {
                MainActor.assumeIsolated {
                    if watcher.drain() { server.pickUpDroppedPlugins() }
                }
            }
            source.resume()
            server.pluginWatch = (watcher, source)
        }

        let lifecycle = ServeLifecycle(
            listener: listener, server: server, place: place, lock: lock, group: group, logger: logger,
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
        dispatchMain()
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
            let link = ClientLink(id: id, channel: channel, pid: peer.pid, uid: peer.uid)
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

/// The server's app-wide password prompt: there is no terminal. Each client's scene has its
/// own (`RemoteSecrets`), so this only answers code that runs outside every scene.
@MainActor
final class NoTerminalSecrets: SecretPrompting {
    func secret(_ prompt: String, confirm: Bool) throws -> String {
        throw CoordError.failed("\(prompt): the server has no terminal to ask on")
    }
}
