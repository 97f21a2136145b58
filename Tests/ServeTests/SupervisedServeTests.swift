import CoordProtocol
import CoordClient
import Foundation
import TestSupport
import Testing

/// A supervised `coordsh serve` (the default): the app runs in a worker process the server
/// watches. Through the real binary, real sockets and the crasher fixture plugin, in versions
/// 1, 2 (one more page) and 3 (an entry that traps).
@Suite("coordsh serve, supervised", .serialized)
struct SupervisedServeTests {
    typealias Server = ServeTests.Server

    /// A server loading the bundled plugins and the crasher from `FOLDER/plugins`, with
    /// ann@example.com's account created (password "correct horse battery").
    static func serverWithCrasher(config: String = "", arguments: [String] = [], also: (String) throws -> Void = { _ in }) throws -> Server {
        try Server(config: "[plugins]\ndirs = [\"$SDK_DIR\", \"$FOLDER/plugins\"]\n\(config)", arguments: arguments) { folder in
            try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
            chmod(folder + "/plugins", 0o755)
            try FixtureBuilder.buildCrasher(output: folder + "/plugins/libcrasher.so")
            try also(folder + "/plugins")
            let environment = [
                "HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state", "PW": "correct horse battery",
            ]
            try SupervisedTests.createAccount(
                [BuildProducts.coordsh, "--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite", "--password-env", "PW"], environment)
        }
    }

    /// Runs `line` in the client's scene, answering a password prompt with `secrets`; the
    /// result, or the error frame's code and message.
    static func send(_ client: ServerConnection, _ line: String, secrets: [String] = []) throws -> (result: ServerReply.RunResult?, error: String?) {
        let id = client.newID()
        try client.write(.run(id: id, line: line, secrets: secrets))
        switch try client.answer(to: id) {
        case .result(let result): return (result, result.error.map { "\($0.code): \($0.message)" })
        case .error(_, let code, let message): return (nil, "\(code): \(message)")
        default: return (nil, "an answer out of turn")
        }
    }

    /// What the server pushed to `client` until, for each of `texts`, a note contains it (or
    /// 20 s passed).
    static func notes(_ client: ServerConnection, until texts: String..., server: Server) throws -> [String] {
        var notes: [String] = []
        try server.waitFor("notes containing \(texts)", seconds: 20) {
            notes += client.takePushed().map(\.text)
            return texts.allSatisfy { text in notes.contains { $0.contains(text) } }
        }
        return notes
    }

    @Test("three clients, one crashes the worker: it gets the crash line, the other two a note, and keep their pages, carts and login")
    func oneClientCrashes() throws {
        let server = try Self.serverWithCrasher()
        let (a, b, c) = (try ServeTests.attach(server), try ServeTests.attach(server), try ServeTests.attach(server))
        #expect(try Self.send(a, "content show 9").error == nil)
        #expect(try Self.send(a, "account login ann@example.com", secrets: ["correct horse battery"]).error == nil)
        #expect(try Self.send(b, "cart add 3").error == nil)
        #expect(try Self.send(b, "cart checkout").error == nil)
        let crash = try Self.send(c, "crash now index")
        #expect(crash.result == nil)
        #expect(crash.error == "crashed: the app process crashed running 'crash now index' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted, back at content/catalog", "\(crash)")
        let toA = try Self.notes(a, until: "another client's command", "still logged in", server: server)
        #expect(toA.contains("another client's command: the app process crashed running 'crash now index' in plugin crasher: SIGILL (Illegal instruction) — Fatal error: Index out of range; restarted; your scene was restored, back at account/profile"), "\(toA)")
        #expect(toA.contains("still logged in as ann@example.com"), "\(toA)")
        let toB = try Self.notes(b, until: "another client's command", "waits again", server: server)
        #expect(toB.contains { $0.hasSuffix("your scene was restored, back at account/login") }, "\(toB)")
        #expect(toB.contains("'cart checkout' waits again"), "\(toB)")
        // A: the same page and user; B: its own guest cart, and its checkout still waiting.
        #expect(try Self.send(a, "where").result?.route == "account/profile")
        #expect(try Self.send(a, "account whoami").result?.lines.first == "── Logged in as ann@example.com ──")
        let cartB = try #require(try Self.send(b, "cart show").result)
        #expect(cartB.lines.contains { $0.contains("#3   Leather Boots") }, "\(cartB.lines)")
        #expect(try Self.send(b, "queue").result?.lines.contains { $0.contains("cartCheckout() waiting for user") } == true)
        let cartA = try #require(try Self.send(a, "cart show").result)
        #expect(!cartA.lines.contains { $0.contains("Leather Boots") }, "A's cart is A's: \(cartA.lines)")
        // C goes on in the new worker.
        #expect(try Self.send(c, "crash now fine").error == nil)
        #expect(server.logText.contains("error coordsh.serve: [CoordServe] the app process crashed running 'crash now index'"), "\(server.logText)")
        #expect(try server.stop() == 0)
    }

    @Test("the worker killed while ten clients are idle: each is told, each scene is back with its own cart")
    func killedWhileIdle() throws {
        let server = try Self.serverWithCrasher()
        let clients = try (0..<10).map { _ in try ServeTests.attach(server) }
        for (index, client) in clients.enumerated() {
            #expect(try Self.send(client, "cart add \(index + 1)").error == nil)
        }
        kill(try #require(Self.workerPID(of: server)), SIGKILL)
        for client in clients {
            let notes = try Self.notes(client, until: "your scene was restored", server: server)
            #expect(notes.contains("the app process was killed: SIGKILL (Killed); restarted; your scene was restored, back at cart/cart"), "\(notes)")
        }
        for (index, client) in clients.enumerated() {
            let cart = try #require(try Self.send(client, "cart show").result)
            #expect(cart.route == "cart/cart")
            #expect(cart.lines.contains { $0.contains("#\(index + 1) ") } && cart.lines.contains("── Cart (1 item) ──"), "\(cart.lines)")
        }
        #expect(try server.stop() == 0)
    }

    @Test("one client's command that never ends holds no other client: a ping is answered at once, Tab gets no candidates instead of waiting, a new client is greeted once the stuck app is replaced and its hello is not timed out meanwhile")
    func longCommandHoldsNoOtherClient() throws {
        let server = try Self.serverWithCrasher(config: "[shell]\nworker_timeout = 8\n[serve]\nhandshake_timeout = 1\n")
        let (a, b) = (try ServeTests.attach(server), try ServeTests.attach(server))
        #expect(try Self.send(b, "cart add 3").error == nil)
        #expect(try ServeTests.complete(b, "cart a", word: "a") == ["add"])
        let stuck = a.newID()
        try a.write(.run(id: stuck, line: "crash now loop", secrets: []))
        usleep(300_000)
        let started = Date()
        // B's ping and Tab come back long before the 8 s after which A's command is killed.
        let ping = b.newID()
        try b.write(.ping(id: ping))
        #expect(try b.answer(to: ping).requestID == ping)
        #expect(try ServeTests.complete(b, "cart a", word: "a") == [], "the app is busy: no candidates rather than a frozen Tab")
        #expect(Date().timeIntervalSince(started) < 4, "B waited \(Date().timeIntervalSince(started)) s")
        // C connects and says hello; past the 1 s handshake timeout it is still there: the
        // front read its hello and answers its ping, its scene waits for the app.
        let c = try ServerConnection(path: server.socket)
        try c.write(.hello(version: WireProtocol.version, client: "SupervisedServeTests"))
        usleep(1_500_000)
        let cPing = c.newID()
        try c.write(.ping(id: cPing))
        guard case .pong(let answered) = try c.receive() else { throw ServeTests.TestFailure("C's first frame is not its pong") }
        #expect(answered == cPing)
        #expect(Date().timeIntervalSince(started) < 6, "C waited \(Date().timeIntervalSince(started)) s")
        // A's command is killed as hung; C is greeted in the new worker; B's cart is there.
        switch try a.answer(to: stuck) {
        case .error(_, let code, let message):
            #expect(code == "crashed")
            #expect(message.hasPrefix("the app process stopped answering running 'crash now loop' in plugin crasher: no answer for 8 s, stuck in closure #1 "), "\(message)")
            #expect(message.contains("Crasher.CrasherCoordinator.init() -> Crasher.CrasherCoordinator (libcrasher.so), killed; restarted"), "\(message)")
        default:
            Issue.record("A's stuck command was answered, not killed")
        }
        guard case .hello(let hello) = try c.receive() else { throw ServeTests.TestFailure("C was not greeted") }
        #expect(hello.route == "content/catalog")
        #expect(try Self.send(c, "where").result?.route == "content/catalog")
        #expect(try Self.notes(b, until: "another client's command: the app process stopped answering", server: server).count >= 1)
        #expect(try Self.send(b, "cart show").result?.lines.contains { $0.contains("#3   Leather Boots") } == true)
        #expect(try ServeTests.complete(b, "cart a", word: "a") == ["add"])
        #expect(try server.stop() == 0)
    }

    @Test("upgrade: crasher 2.0.0 dropped in with two scenes attached; both keep page and user and see its new page; a 3.0.0 that traps on load leaves 2.0.0 serving")
    func upgradeWithoutRestart() throws {
        let server = try Self.serverWithCrasher()
        let (a, b) = (try ServeTests.attach(server), try ServeTests.attach(server))
        #expect(try Self.send(a, "account login ann@example.com", secrets: ["correct horse battery"]).error == nil)
        #expect(try Self.send(b, "content show 9").error == nil)
        #expect(try Self.send(b, "cart add 9").error == nil)
        let before = try Self.send(a, "open crasher/news").error
        #expect(before?.hasPrefix("unknown_page: unknown page 'crasher/news'") == true, "\(String(describing: before))")
        // Installed as a new file renamed over the old (as install(1) does): a file rewritten
        // in place under a process that has it mapped is not an upgrade, it is a crash.
        let plugins = server.folder + "/plugins"
        try FixtureBuilder.buildCrasher(output: plugins + "/.libcrasher.so.new", version: 2)
        #expect(rename(plugins + "/.libcrasher.so.new", plugins + "/libcrasher.so") == 0)
        let upgraded = "upgraded: crasher 2.0.0 (was 1.0.0); 2 scenes were handed over to the new app process"
        for client in [a, b] {
            #expect(try Self.notes(client, until: "upgraded:", server: server).contains(upgraded))
        }
        #expect(try Self.send(a, "where").result?.route == "account/profile")
        #expect(try Self.send(a, "account whoami").result?.lines.first == "── Logged in as ann@example.com ──")
        #expect(try Self.send(b, "where").result?.route == "cart/cart")
        #expect(try Self.send(b, "cart show").result?.lines.contains { $0.contains("Red Sneakers") } == true)
        for client in [a, b] {
            #expect(try Self.send(client, "open crasher/news").result?.lines == ["── News ──", "version 2 is here"])
            #expect(try ServeTests.complete(client, "open crasher/n", word: "crasher/n") == ["crasher/news"])
        }

        try FixtureBuilder.buildCrasher(output: plugins + "/.libcrasher.so.new", version: 3)
        #expect(rename(plugins + "/.libcrasher.so.new", plugins + "/libcrasher.so") == 0)
        let failed = try Self.notes(a, until: "upgrade failed", server: server)
        #expect(failed.contains { $0.hasPrefix("upgrade failed: the new app process did not load crasher (") && $0.hasSuffix("; the running version keeps serving") }, "\(failed)")
        #expect(try Self.send(a, "where").result?.route == "crasher/news")
        #expect(try Self.send(b, "open crasher/news").result?.lines == ["── News ──", "version 2 is here"])
        #expect(try server.stop() == 0)
    }

    @Test("upgrade of a C plugin: typed 2.0.0, with a second page, dropped in while a scene is on its page; the scene keeps the page and opens the new one")
    func upgradeCPlugin() throws {
        let source = FixtureBuilder.sources + "/c_types.c"
        let server = try Self.serverWithCrasher { plugins in try FixtureBuilder.buildCPlugin(source, output: plugins + "/libtyped.so") }
        let client = try ServeTests.attach(server)
        #expect(try Self.send(client, "open typed/point x=1.5").result?.lines == ["── Point ──", "x=1.5"])
        let plugins = server.folder + "/plugins"
        try FixtureBuilder.buildCPlugin(source, output: plugins + "/.libtyped.so.new", defines: ["SECOND"])
        #expect(rename(plugins + "/.libtyped.so.new", plugins + "/libtyped.so") == 0)
        let notes = try Self.notes(client, until: "upgraded:", server: server)
        #expect(notes.contains { $0.hasPrefix("upgraded: typed 2.0.0 (was 1.0.0)") }, "\(notes)")
        #expect(try Self.send(client, "where").result?.route == "typed/point x=1.5")
        #expect(try Self.send(client, "open typed/origin").result?.lines == ["── Origin ──", "x=0 y=0"])
        #expect(try server.stop() == 0)
    }

    @Test("the worker holds none of the front's sockets: a killed server accepts nothing while its worker lingers, and a client's connection is the front's alone")
    func workerInheritsNoSockets() throws {
        let server = try Self.serverWithCrasher()
        let client = try ServeTests.attach(server)
        // A worker started while a client is connected (a restart) is where an accepted socket
        // could leak into it.
        kill(try #require(Self.workerPID(of: server)), SIGKILL)
        _ = try Self.notes(client, until: "your scene was restored", server: server)
        let worker = try #require(Self.workerPID(of: server))
        let front = server.process.processIdentifier
        let shared = Self.socketInodes(of: front).intersection(Self.socketInodes(of: worker))
        #expect(!Self.socketInodes(of: front).isEmpty)
        #expect(shared.isEmpty, "the worker (pid \(worker)) holds the front's sockets \(shared)")
        // The worker stopped (it cannot notice its front's end and leave), the front killed: the
        // socket left behind must refuse, not take a connection nobody will ever answer.
        kill(worker, SIGSTOP)
        defer { kill(worker, SIGKILL); kill(worker, SIGCONT) }
        kill(front, SIGKILL)
        // Not `waitUntilExit`: Foundation learns that a child ended from a descriptor the child
        // holds, and a worker that wrongly inherited it (the fault this test is for), stopped,
        // holds it forever: the wait never returned. The kernel's word is enough.
        #expect(Self.ended(front, within: 10), "the killed front (pid \(front)) did not end")
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { bytes in
            for (index, byte) in server.socket.utf8.prefix(bytes.count - 1).enumerated() { bytes[index] = byte }
        }
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(probe) }
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(probe, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        let reason = errno
        #expect(connected == -1 && reason == ECONNREFUSED, "a connect to the killed server's socket: \(connected), errno \(reason)")
    }

    @Test("the front's --db reaches its worker in the environment, not on its command line (a PostgreSQL URL may hold a password, and anyone may read a command line)")
    func databaseNotOnCommandLine() throws {
        let server = try Self.serverWithCrasher()
        let client = try ServeTests.attach(server)
        let added = try Self.send(client, "cart add 3")
        #expect(added.error == nil && added.result?.lines.joined(separator: "\n").contains("Leather Boots") == true, "\(String(describing: added.error))")
        let worker = try #require(Self.workerPID(of: server))
        let commandLine = String(decoding: try Data(contentsOf: URL(fileURLWithPath: "/proc/\(worker)/cmdline")), as: UTF8.self)
            .replacingOccurrences(of: "\0", with: " ")
        #expect(commandLine.contains(" worker "), "\(commandLine)")
        #expect(!commandLine.contains(server.database), "the worker's command line shows the database: \(commandLine)")
        // The worker opened the front's database, not the default one.
        #expect(FileManager.default.fileExists(atPath: server.database))
        #expect(!FileManager.default.fileExists(atPath: server.folder + "/data/coordsh/shop.sqlite"))
    }

    /// Whether the child `pid` ended within `seconds` — all of it: the kernel reports a child's
    /// end only once its last thread is gone, which is when its descriptors are closed (its
    /// first thread shows as a zombie while the others still run). Asked without reaping it:
    /// Foundation's `Process` does that.
    static func ended(_ pid: pid_t, within seconds: Double) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            var info = siginfo_t()
            let asked = waitid(P_PID, id_t(pid), &info, WEXITED | WNOHANG | WNOWAIT)
            if asked == -1, errno == ECHILD { return true }  // already reaped
            if asked == 0, info._sifields._kill.si_pid == pid { return true }
            usleep(10_000)
        } while Date() < deadline
        return false
    }

    /// The inodes of the sockets `pid` holds open, from /proc/PID/fd.
    static func socketInodes(of pid: pid_t) -> Set<String> {
        let folder = "/proc/\(pid)/fd"
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []
        return Set(entries.compactMap { entry in
            guard let target = try? FileManager.default.destinationOfSymbolicLink(atPath: folder + "/" + entry),
                target.hasPrefix("socket:")
            else { return nil }
            return target
        })
    }

    /// The pid of the server's worker: its child process.
    static func workerPID(of server: Server) -> pid_t? {
        childProcesses(of: server.process.processIdentifier).first?.pid
    }

    /// Runs `line` until it is not cut short by the worker's end: a command the kill landed in
    /// is run again (after 'restart' when the crashes stopped the app).
    static func sendAgain(_ client: ServerConnection, _ line: String, secrets: [String] = []) throws -> (result: ServerReply.RunResult?, error: String?) {
        for _ in 0..<5 {
            let answer = try send(client, line, secrets: secrets)
            if answer.error?.hasPrefix("stopped: ") == true || answer.error?.contains("the app is stopped") == true {
                _ = try send(client, "restart")
                continue
            }
            if answer.error?.hasPrefix("crashed: ") != true { return answer }
        }
        return (nil, "still cut short after 5 tries")
    }

    @Test("SIGKILL of the worker in the middle of payments: each checkout paid at most once, every order whole, the retry told it is paid")
    func killDuringPayment() throws {
        let server = try Self.serverWithCrasher()
        let client = try ServeTests.attach(server)
        #expect(try Self.send(client, "account login ann@example.com", secrets: ["correct horse battery"]).error == nil)
        let card = "payment pay 4242424242424242"
        var told: Set<Int> = []
        var killedMidPayment = 0
        // At least 10 rounds; more (up to 30) until a kill has landed inside a payment: where
        // the kill lands is timing, and a loaded machine can miss the payment ten times running.
        let rounds = 10
        var round = 0
        while round < rounds || (killedMidPayment == 0 && round < 3 * rounds) {
            defer { round += 1 }
            #expect(try Self.sendAgain(client, "cart add \(1 + round % 7) \(1 + round % 3)").error == nil)
            #expect(try Self.sendAgain(client, "cart checkout").error == nil)
            let worker = try #require(Self.workerPID(of: server))
            let id = client.newID()
            try client.write(.run(id: id, line: card, secrets: []))
            usleep(UInt32.random(in: 0...4000))
            kill(worker, SIGKILL)
            var outcomes: [String] = []
            switch try client.answer(to: id) {
            case .result(let result):
                outcomes += result.notices.map(\.text) + (result.error.map { [$0.message] } ?? [])
            case .error(_, let code, let message):
                #expect(code == "crashed")
                // The kill lands before the worker read the request, or while it runs it; the
                // fourth kill in five minutes stops the app (`sendAgain` restarts it).
                let running = message.hasPrefix("the app process was killed running 'payment pay ****' in plugin payment: SIGKILL (Killed); ")
                #expect(running || message.hasPrefix("the app process was killed: SIGKILL (Killed); "), "\(message)")
                #expect(!message.contains("4242"))
                if running { killedMidPayment += 1 }
            default:
                Issue.record("an answer out of turn")
            }
            // Paid or not, the person pays again: it goes through once, or says it already did.
            let again = try Self.sendAgain(client, card)
            outcomes += (again.result?.notices.map(\.text) ?? []) + (again.error.map { [$0] } ?? [])
            let paid = outcomes.compactMap { text in
                text.range(of: #"(paid: order|already paid \(order) (\d+)"#, options: .regularExpression).flatMap { Int(text[$0].split(separator: " ").last?.trimmingCharacters(in: .punctuationCharacters) ?? "") }
            }
            #expect(!paid.isEmpty && Set(paid).count == 1, "round \(round): \(outcomes)")
            told.formUnion(paid)
        }
        #expect(killedMidPayment > 0, "no kill landed in a payment")
        print("killed while a payment ran: \(killedMidPayment) of \(round)")
        // A kill from outside is nobody's crash: the plugin that was running is not blamed (no
        // crash counted against it, nothing quarantined), though the restarts are counted.
        let stats = try Self.sendAgain(client, "plugins stats")
        let summary = stats.result?.lines.first { $0.hasPrefix("the app process was started again") } ?? ""
        #expect(summary.contains("after a crash") && !summary.contains("crashes by plugin"), "\(stats)")
        #expect(told.count == round, "one order per checkout: \(told.sorted())")
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["HOME": server.folder]
        for key in ["PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH"] { environment[key] = inherited[key] }
        let checked = try run("/usr/bin/env", ["python3", "-c", """
            import sqlite3, sys
            db = sqlite3.connect(sys.argv[1])
            q = lambda sql: db.execute(sql).fetchone()[0]
            print(q("PRAGMA integrity_check"), q("SELECT count(*) FROM orders"),
                  q("SELECT count(*) FROM orders o WHERE (SELECT count(*) FROM payments p WHERE p.order_id = o.id) != 1"),
                  q("SELECT count(*) FROM orders o WHERE total != (SELECT sum(unit_price * quantity) FROM order_lines l WHERE l.order_id = o.id) - discount"),
                  q("SELECT count(*) FROM orders WHERE id NOT IN (SELECT order_id FROM checkouts WHERE order_id IS NOT NULL)"))
            """, server.database], environment: environment)
        #expect(checked.stdout == "ok \(round) 0 0 0\n", "integrity, orders, orders without one payment, orders not whole, orders without their checkout: \(checked.stdout)\(checked.stderr)")
        #expect(try server.stop() == 0)
    }
}
