import CoordProtocol
import CoordRuntime
import CoordSDK
import CoordShell
import Foundation
import Logging
import NIOCore
import NIOPosix

/// `coordsh worker`: the app of one supervised shell, in a process of its own. The plugins,
/// the coordinators and the database live here; the front (the shell the person sees) starts
/// it with one end of a socketpair as `descriptor` and speaks the protocol of `coordsh serve`
/// over it. When a plugin traps, this process dies and the front carries on: it reports the
/// crash, starts a new worker and restores the scene.
///
/// Before each command the worker notes what it runs in the file named by
/// `COORDSH_WORKER_RUNNING` (the front reads it after a crash); it ends when the front's
/// connection does.
public enum Worker {
    @MainActor
    public static func run(_ options: Serve.Options, descriptor: Int32) -> Int32 {
        guard let (config, logger) = Serve.prepare(options, label: "coordsh.worker", level: .warning) else { return 1 }
        signal(SIGPIPE, SIG_IGN)
        let host = AppHost(config: config, databaseOverride: options.databasePath)
        let report = host.start(extraPluginDirectories: options.pluginDirectories, secrets: NoTerminalSecrets())
        let server = Server(host: host, logger: logger, settings: config.serve)
        server.servesTerminal = true
        server.exitWhenEmpty = true
        server.runningMarker = ProcessInfo.processInfo.environment["COORDSH_WORKER_RUNNING"].flatMap(RunningMarker.init(path:))
        // What starting said is told to the front's person after the hello, as the in-process
        // shell prints it at start.
        server.startNotices = (report.databaseWarning.map { ["warning: \($0)"] } ?? []) + report.refusals.map(\.description)

        MultiThreadedEventLoopGroup.withCurrentThreadAsEventLoop { loop in
            let hub = ServerHub(server: server, logger: logger, loop: loop)
            let timeout = TimeAmount.nanoseconds(Int64(config.serve.handshakeTimeout * 1e9))
            ClientBootstrap(group: loop)
                .channelInitializer { channel in
                    let link = ClientLink(id: 1, channel: channel, pid: getppid(), uid: getuid())
                    do {
                        try channel.pipeline.syncOperations.addHandler(ClientHandler(link: link, hub: hub, handshakeTimeout: timeout))
                    } catch {
                        return channel.eventLoop.makeFailedFuture(error)
                    }
                    return channel.eventLoop.makeSucceededVoidFuture()
                }
                .withConnectedSocket(descriptor)
                .whenFailure { error in
                    FileHandle.standardError.write(Data("coordsh worker: cannot use descriptor \(descriptor): \(error)\n".utf8))
                    exit(1)
                }
            MainActor.assumeIsolated { Serve.watchPlugins(server: server, loop: loop) }
        }
        return 0
    }
}
