import CSocketPass
import CStackReport
import CoordAccounting
import CoordMetrics
import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import CoordSession
import Foundation
import Logging

/// `coordsh worker`: the app of a supervised front (an interactive shell, or `coordsh serve`),
/// in a process of its own. The plugins, the coordinators and the database live here; the
/// front starts it with one end of a control socketpair as `descriptor` and hands it, over
/// that, one end of a new socketpair per scene, on which the worker speaks the protocol of
/// `coordsh serve`. When a plugin traps, this process dies and the front carries on: it
/// reports the crash, starts a new worker and restores the scenes.
///
/// Before each command the worker notes what it runs in the memory file whose descriptor
/// `COORDSH_WORKER_RUNNING` names (the front reads it after a crash); it ends when the front's
/// control channel does.
public enum Worker {
    public struct Options: Sendable {
        public var app = Serve.Options()
        /// The control channel's descriptor.
        public var descriptor: Int32 = 3
        /// Its one scene is the terminal's: the shared guest cart, kept for the next shell.
        public var terminal = false
        /// Its front runs a script (`-c`, `-f`, piped stdin): a scene's home page waits for the
        /// first command that needs it (`Server.homePageWaits`).
        public var script = false
        /// The front's guest-cart tag (see `Server.guestTag`).
        public var guestTag: String?
        /// What the worker logs (to stderr, which its front keeps, and a server's front passes
        /// on to its own log).
        /// A swift-log level name; warning when nil or unknown.
        public var logLevel: String?
        /// Watch the plugin folders (not for a front that runs `-c` commands given up front:
        /// an inotify instance costs ~15-20 ms of the process's exit, which the front waits for).
        public var watchPlugins = true
        /// The metrics channel's descriptor (`serve --metrics`): its figures are exported and
        /// given to the front when it asks (see `MetricsChannel`).
        public var metricsDescriptor: Int32?
        public init() {}
    }

    @MainActor
    public static func run(_ options: Options) -> Int32 {
        guard let (config, logger) = Serve.prepare(options.app, label: "coordsh.worker", level: options.logLevel.flatMap(Logger.Level.init(rawValue:)) ?? .warning) else { return 1 }
        signal(SIGPIPE, SIG_IGN)
        // Where the main thread is, when the front asks before killing this process as hung.
        _ = coordsh_stack_report_install(SIGUSR2)
        // The front's --db comes in the environment (WireProtocol.workerDatabaseVariable), and goes
        // no further: the children this process starts (vetting) do not need it.
        let database = options.app.databasePath ?? variable(WireProtocol.workerDatabaseVariable)
        // Mapped before the sandbox, its descriptor closed before any plugin loads.
        let markerVariable = variable(WireProtocol.workerRunningVariable)
        let marker = markerVariable.flatMap(RunningMarker.init(variable:))
        if let markerVariable, marker == nil {
            logger.warning("the running marker (descriptor \(markerVariable)) is not a sealed memory file its front made: a crash will be reported without its command")
        }
        // The front's count of its workers' crashes and restarts (`plugins stats`); read before
        // the environment is blanked.
        let history = variable(WorkerHistory.variable).flatMap(WorkerHistory.init(encoded:))
        // This process runs the plugins: confined before the first one loads, its environment
        // blanked of everything not on the allow-list (the database variable among it). The
        // person's grants are read only here: the front writes them, a new worker reads them.
        let (sandbox, grants) = PluginSandbox.enterRunningPlugins(
            config: config, database: database ?? config.databaseLocation(),
            pluginDirectories: config.expandedPluginDirectories() + options.app.pluginDirectories)
        if sandbox.refused, let warning = sandbox.warning {
            FileHandle.standardError.write(Data("coordsh worker: \(warning)\n".utf8))
            return 1
        }
        let host = AppHost(config: config, databaseOverride: database)
        host.grantStore = grants
        host.hasFront = true
        if let history { host.stats?.history = history }
        let report = host.start(extraPluginDirectories: options.app.pluginDirectories, secrets: NoTerminalSecrets())
        if let descriptor = options.metricsDescriptor {
            Serve.export(host, logger: logger)
            MetricsChannel.answer(on: descriptor) { AppMetrics.shared.text() }
        }
        let server = Server(host: host, logger: logger, settings: config.serve, role: .worker(terminal: options.terminal, marker: marker))
        if let tag = options.guestTag { server.guestTag = tag }
        server.homePageWaits = options.script
        // What starting said is told to each scene after its hello, as the in-process shell
        // prints it at start.
        server.startNotices = (sandbox.warning.map { [$0] } ?? []).map { Notice(text: $0, isWarning: true) }
            + (report.databaseWarning.map { [Notice(text: "warning: \($0)", isWarning: true)] } ?? [])
            + report.refusals.map { Notice(text: $0.description, isWarning: true, kind: .pluginRefused) }

        guard let loop = WorkerLoop() else {
            FileHandle.standardError.write(Data("coordsh worker: cannot make its event loop: \(String(cString: strerror(errno)))\n".utf8))
            return 1
        }
        let hub = ServerHub(server: server, logger: logger, loop: loop)
        if options.watchPlugins {
            Serve.watchPlugins(server: server, loop: loop)
        }
        // The control channel is polled with the scenes. Its end is the front's: then so is
        // ours, stderr closed last: the front, which reads it to the end, knows this process
        // has done everything it will do (`WorkerProcess.stop`).
        loop.run(WorkerLoop.Front(
            control: options.descriptor, hub: hub, handshakeSeconds: config.serve.handshakeTimeout,
            outboundLimit: config.serve.outboundLimit
        ) { failure in
            if let failure {
                FileHandle.standardError.write(Data("coordsh worker: \(failure)\n".utf8))
            }
            // What this app changed goes into the database's file before the front hears that
            // this process is done.
            MainActor.assumeIsolated { host.close() }
            close(STDERR_FILENO)
            exit(0)
        })
    }

    /// One variable of this process's environment. `ProcessInfo`'s `environment` makes a
    /// dictionary of all of them at each read (≈ 420,000 instructions a read, three reads on
    /// the way to a supervised shell's first answer).
    private static func variable(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
