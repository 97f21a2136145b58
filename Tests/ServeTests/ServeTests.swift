import CoordProtocol
import CoordClient
import Foundation
import TestSupport
import Testing

/// `coordsh serve` and `coordsh connect` through the real binary, the real plugins and a real
/// socket: the protocol checks of a client written in Python from PROTOCOL.md alone, the shell
/// attached to a scene, and the server's own faults (a second server, a killed one, a socket
/// folder others can enter).
@Suite("coordsh serve", .serialized)
struct ServeTests {
    /// A server in a private runtime folder, stopped (SIGTERM) by `stop`.
    final class Server {
        let folder: String
        let process = Process()
        let log: String
        var environment: [String: String]
        var socket: String { folder + "/run/coordsh/default.sock" }
        var database: String { folder + "/shop.sqlite" }

        init(config: String = "", arguments: [String] = [], prepare: (String) throws -> Void = { _ in }) throws {
            folder = try makeTemporaryDirectory("serve")
            try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try config.replacingOccurrences(of: "$FOLDER", with: folder).write(toFile: folder + "/coordsh.toml", atomically: true, encoding: .utf8)
            try prepare(folder)
            environment = [
                "HOME": folder, "XDG_RUNTIME_DIR": folder + "/run", "XDG_DATA_HOME": folder + "/data",
                "XDG_CONFIG_HOME": folder + "/config", "XDG_STATE_HOME": folder + "/state",
            ]
            log = folder + "/serve.log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
            process.arguments = ["serve", "--config", folder + "/coordsh.toml", "--db", database] + arguments
            process.environment = childEnvironment(environment)
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            try waitFor("the server to listen") { FileManager.default.fileExists(atPath: self.socket) }
        }

        func waitFor(_ what: String, seconds: Double = 30, _ condition: () -> Bool) throws {
            let deadline = Date().addingTimeInterval(seconds)
            while !condition() {
                guard Date() < deadline, process.isRunning || what.hasPrefix("exit") else {
                    throw TestFailure("gave up waiting for \(what); log:\n\(logText)")
                }
                usleep(20_000)
            }
        }

        var logText: String { (try? String(contentsOfFile: log, encoding: .utf8)) ?? "" }

        func coordsh(_ arguments: [String], input: String = "", extra: [String: String] = [:], timeout: Double = 120) throws -> RunResult {
            try run(BuildProducts.coordsh, arguments, input: input, environment: environment.merging(extra) { $1 }, timeout: timeout)
        }

        /// SIGTERM, then the exit status.
        func stop() throws -> Int32 {
            process.terminate()
            process.waitUntilExit()
            return process.terminationStatus
        }

        deinit {
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            try? FileManager.default.removeItem(atPath: folder)
        }
    }

    struct TestFailure: Error, CustomStringConvertible {
        let description: String
        init(_ description: String) { self.description = description }
    }

    @Test("a client written in Python from PROTOCOL.md: handshake, commands, two users, every fault, 16 clients x 500 commands")
    func pythonClient() throws {
        let server = try Server(config: "[serve]\nmax_clients = 20\nhandshake_timeout = 1\noutbound_limit = 2097152\n")
        let script = BuildProducts.packageRoot + "/Tests/ServeTests/client.py"
        let inherited = ProcessInfo.processInfo.environment
        var environment = ["HOME": inherited["HOME"] ?? "/root"]
        for key in ["PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH"] { environment[key] = inherited[key] }
        let result = try run("/usr/bin/env", ["python3", script, server.socket, server.database], environment: environment)
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)\nlog:\n\(server.logText)")
        #expect(result.stdout.hasSuffix("all protocol checks passed\n"))
        let log = server.logText
        // The log tells each refusal and the dropped checkout, one line each.
        for expected in [
            "cartCheckout() dropped at coordinator cart: scene c", "closed: protocol version mismatch: server speaks 1, client speaks 99",
            "refused: no hello within 1 s", "dropped: it stopped reading", "refused: 20 clients attached, the limit is 20",
        ] {
            #expect(log.contains(expected), "log lacks '\(expected)':\n\(log)")
        }
        #expect(try server.stop() == 0)
        #expect(!FileManager.default.fileExists(atPath: server.socket), "the socket is removed at shutdown")
        #expect(server.logText.contains("stopped"))
    }

    @Test("connect: the shell attached to a scene: -c, stdin, --json, --keep-going, exit statuses, passwords from --password-env")
    func connect() throws {
        let server = try Server()
        let added = try server.coordsh(["connect", "-c", "cart add 3 2", "-c", "where"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout.contains("── Cart (2 items) ──") && added.stdout.contains("scene c"), "\(added.stdout)")
        // Another client is another scene: its guest cart is empty.
        let other = try server.coordsh(["connect", "--json", "-c", "cart show"])
        let document = try JSONSerialization.jsonObject(with: Data(other.stdout.utf8)) as? [String: Any]
        #expect((document?["page"] as? [String: Any])?["lines"] as? [String] == ["(empty)"], "\(other.stdout)")
        // Exit statuses as in-process: 2 for a usage error, 1 for a failure; --keep-going goes on.
        #expect(try server.coordsh(["connect", "-c", "cart frobnicate"]).status == 2)
        let failed = try server.coordsh(["connect", "--keep-going"], input: "cart remove 42\necho after\n")
        #expect(failed.status == 1 && failed.stdout.contains("after"), "\(failed.stdout)\(failed.stderr)")
        #expect(failed.stderr.contains("cart remove: product 42 is not in the cart"), "\(failed.stderr)")
        // A password prompt is answered by the client from --password-env; it never shows.
        let created = try server.coordsh(
            ["connect", "--password-env", "PW", "-c", "account create ann@example.com"], extra: ["PW": "correct horse"])
        #expect(created.status == 0 && created.stdout.contains("created ann@example.com"), "\(created.stdout)\(created.stderr)")
        let noPassword = try server.coordsh(["connect", "-c", "account login ann@example.com"])
        #expect(noPassword.status == 1 && noPassword.stderr.contains("a password is needed"), "\(noPassword.stderr)")
        #expect(!server.logText.contains("correct horse"))
        #expect(try server.stop() == 0)
    }

    @Test("a second server on the same name is refused with the first one's pid; a killed one's socket is replaced")
    func ownership() throws {
        let server = try Server()
        let second = try server.coordsh(["serve", "--config", server.folder + "/coordsh.toml"], timeout: 20)
        #expect(second.status == 1)
        #expect(second.stderr == "coordsh: error: a coordsh server is already running on \(server.socket) (pid \(server.process.processIdentifier))\n", "\(second.stderr)")
        #expect(try server.coordsh(["connect", "-c", "echo first"]).stdout == "first\n")
        // SIGKILL leaves the socket behind; the next server replaces it.
        kill(server.process.processIdentifier, SIGKILL)
        server.process.waitUntilExit()
        #expect(FileManager.default.fileExists(atPath: server.socket))
        let refused = try server.coordsh(["connect", "-c", "echo nobody"])
        #expect(refused.status == 1 && refused.stderr.contains("cannot connect to a coordsh server at \(server.socket)"), "\(refused.stderr)")
        let again = Process()
        again.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
        again.arguments = ["serve", "--config", server.folder + "/coordsh.toml", "--db", server.database]
        again.environment = childEnvironment(server.environment)
        again.standardError = FileHandle.nullDevice
        try again.run()
        defer {
            again.terminate()
            again.waitUntilExit()
        }
        var answered = ""
        for _ in 0..<300 where !answered.contains("second") {
            answered = (try? server.coordsh(["connect", "-c", "echo second"]).stdout) ?? ""
            usleep(50_000)
        }
        #expect(answered == "second\n")
    }

    @Test("a socket folder open to others, or a symbolic link, is refused in one line")
    func unsafeFolder() throws {
        let folder = try makeTemporaryDirectory("serve-folder")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/open/coordsh", withIntermediateDirectories: true)
        chmod(folder + "/open/coordsh", 0o755)
        let open = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/open", "HOME": folder], timeout: 20)
        #expect(open.status == 1)
        #expect(open.stderr == "coordsh: error: socket folder \(folder)/open/coordsh is open to group or others (mode 755); 'chmod 700 \(folder)/open/coordsh' or remove it\n", "\(open.stderr)")
        // Open to others only (a search bit is enough to reach a socket by name).
        chmod(folder + "/open/coordsh", 0o701)
        let others = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/open", "HOME": folder], timeout: 20)
        #expect(others.status == 1 && others.stderr.contains("is open to group or others (mode 701)"), "\(others.stderr)")
        // Open to the group only: its members could reach the socket as well.
        for mode: mode_t in [0o710, 0o750, 0o720] {
            chmod(folder + "/open/coordsh", mode)
            let group = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/open", "HOME": folder], timeout: 20)
            #expect(group.status == 1 && group.stderr.contains("is open to group or others (mode \(String(mode, radix: 8)))"), "\(group.stderr)")
        }
        // A file where the folder should be, and a folder of another user (root can make one).
        try FileManager.default.createDirectory(atPath: folder + "/file", withIntermediateDirectories: true)
        try "".write(toFile: folder + "/file/coordsh", atomically: true, encoding: .utf8)
        let file = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/file", "HOME": folder], timeout: 20)
        #expect(file.status == 1 && file.stderr == "coordsh: error: socket folder \(folder)/file/coordsh is not a folder\n", "\(file.stderr)")
        if getuid() == 0, let nobody = getpwnam("nobody")?.pointee {
            try FileManager.default.createDirectory(atPath: folder + "/theirs/coordsh", withIntermediateDirectories: true)
            chmod(folder + "/theirs/coordsh", 0o700)
            chown(folder + "/theirs/coordsh", nobody.pw_uid, nobody.pw_gid)
            let theirs = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/theirs", "HOME": folder], timeout: 20)
            #expect(theirs.status == 1 && theirs.stderr.contains("socket folder \(folder)/theirs/coordsh belongs to uid \(nobody.pw_uid), not to you (uid 0)"), "\(theirs.stderr)")
        }
        try FileManager.default.createDirectory(atPath: folder + "/link", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        chmod(folder + "/elsewhere", 0o700)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link/coordsh", withDestinationPath: folder + "/elsewhere")
        let link = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/link", "HOME": folder], timeout: 20)
        #expect(link.status == 1)
        #expect(link.stderr.contains("is a symbolic link; refusing to follow it"), "\(link.stderr)")
    }

    @Test("shutdown: the socket is 0600 while it serves; at SIGTERM it is removed at once, every client gets goodbye and is closed, the lock goes, exit 0 — in one process and supervised")
    func shutdown() throws {
        for arguments in [["--single-process"], []] {
            let server = try Server(arguments: arguments)
            var info = stat()
            #expect(stat(server.socket, &info) == 0 && info.st_mode & 0o777 == 0o600, "socket mode \(String(info.st_mode & 0o777, radix: 8))")
            let clients = try (0..<3).map { _ in try Self.attach(server) }
            #expect(try Self.request(clients[0], "echo before").lines == ["before"])
            kill(server.process.processIdentifier, SIGTERM)
            for client in clients {
                guard case .goodbye(let reason) = try client.receive() else {
                    Issue.record("\(arguments): no goodbye")
                    continue
                }
                #expect(reason == "the server is shutting down")
                #expect(throws: (any Error).self, "\(arguments): the connection is closed after the goodbye") { try client.receive() }
            }
            server.process.waitUntilExit()
            #expect(server.process.terminationStatus == 0, "\(arguments): \(server.logText)")
            #expect(!FileManager.default.fileExists(atPath: server.socket), "\(arguments): the socket is removed")
            #expect(!FileManager.default.fileExists(atPath: server.folder + "/run/coordsh/default.lock"), "\(arguments): the lock is removed")
            let late = try server.coordsh(["connect", "-c", "echo late"])
            #expect(late.status == 1 && late.stderr.contains("cannot connect to a coordsh server"), "\(late.stderr)")
        }
    }

    @Test("after a shutdown, what the clients changed is in the database file alone — in one process and supervised")
    func shutdownKeepsChanges() throws {
        for arguments in [["--single-process"], []] {
            let server = try Server(arguments: arguments)
            let created = try server.coordsh(
                ["connect", "--password-env", "PW", "-c", "account create ann@example.com"], extra: ["PW": "correct horse"])
            #expect(created.status == 0, "\(arguments): \(created.stderr)")
            #expect(try server.stop() == 0, "\(arguments): \(server.logText)")
            // The database file alone, copied as a person would back it up, read by Python's
            // sqlite3 (another SQLite than the server's).
            let copy = server.folder + "/copy.sqlite"
            try FileManager.default.copyItem(atPath: server.database, toPath: copy)
            let lines = try run("/usr/bin/env", ["python3", "-c", """
                import sqlite3, sys
                print(sqlite3.connect(sys.argv[1]).execute("SELECT count(*) FROM users WHERE email = 'ann@example.com'").fetchone()[0])
                """, copy])
            #expect(lines.stdout == "1\n", "\(arguments): the copy's account: \(lines.stdout) \(lines.stderr)")
        }
    }

    /// A client on the protocol, for the tests that hold several at once.
    static func attach(_ server: Server) throws -> ServerConnection {
        // The socket file appears at bind, a moment before the server listens: on a loaded
        // machine a connect in between is refused. Retry that for a few seconds, nothing else.
        var attempt = 0
        var made: ServerConnection?
        while made == nil {
            do {
                made = try ServerConnection(path: server.socket)
            } catch where "\(error)".contains("Connection refused") && attempt < 50 {
                attempt += 1
                usleep(100_000)
            }
        }
        guard let connection = made else { throw TestFailure("no connection") }
        try connection.write(.hello(version: WireProtocol.version, client: "ServeTests"))
        guard case .hello = try connection.receive() else { throw TestFailure("no hello") }
        return connection
    }

    static func complete(_ connection: ServerConnection, _ line: String, word: String) throws -> [String] {
        let id = connection.newID()
        try connection.write(.complete(id: id, line: line, word: word))
        guard case .completions(_, let candidates) = try connection.answer(to: id) else { throw TestFailure("no completions") }
        return candidates
    }

    static func request(_ connection: ServerConnection, _ line: String) throws -> ServerReply.RunResult {
        let id = connection.newID()
        try connection.write(.run(id: id, line: line, secrets: []))
        guard case .result(let result) = try connection.answer(to: id) else { throw TestFailure("no result for \(line)") }
        return result
    }

    @Test("the shell is coordsh-server's front: serve and connect through it use it (same pid, coordsh-server's image); without it, serve and --supervised fail in one line and in-process commands still work")
    func shellWithoutServer() throws {
        // Served through the shell's `serve`: the process it started is coordsh-server now.
        let server = try Server()
        let exe = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/\(server.process.processIdentifier)/exe")
        #expect(exe == BuildProducts.coordshServer, "\(exe)")
        #expect(try server.coordsh(["connect", "--socket", server.socket, "-c", "cart add 3"]).stdout.contains("── Cart (1 item) ──"))
        #expect(try server.stop() == 0)

        let folder = try makeTemporaryDirectory("serve-missing")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let coordsh = try BuildProducts.copyBinaryAlone(to: folder + "/bin")
        let missing = folder + "/bin/coordsh-server"
        try FileManager.default.removeItem(atPath: missing)
        let environment = ["HOME": folder, "XDG_RUNTIME_DIR": folder, "XDG_DATA_HOME": folder + "/data", "XDG_CACHE_HOME": folder + "/cache"]
        let serve = try run(coordsh, ["serve"], environment: environment, timeout: 20)
        #expect(serve.status == 2)
        #expect(serve.stderr == "coordsh: error: 'serve' needs \(missing): No such file or directory (it is built and installed beside coordsh)\n", "\(serve.stderr)")
        let supervised = try run(coordsh, ["--supervised", "-c", "cart add 3"], environment: environment, timeout: 20)
        #expect(supervised.status == 1)
        #expect(supervised.stderr == "coordsh: error: cannot start the app process: \(missing): No such file or directory\n", "\(supervised.stderr)")
        let alone = try run(coordsh, ["-c", "cart add 3"], environment: environment, timeout: 60)
        #expect(alone.status == 0, "\(alone.stderr)")
        #expect(alone.stdout.contains("── Cart (1 item) ──"))
    }

    @Test("a plugin copied into the watched folder with three clients attached: loaded once, each client told, its pages complete in every scene")
    func pluginDroppedIn() throws {
        let server = try Server(config: "[plugins]\ndirs = [\"$FOLDER/plugins\"]\n") { folder in
            try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
            chmod(folder + "/plugins", 0o755)
            for name in ["Account", "Cart"] {
                try FileManager.default.copyItem(atPath: BuildProducts.plugin(name), toPath: folder + "/plugins/lib\(name)Plugin.so")
            }
        }
        let clients = try (0..<3).map { _ in try Self.attach(server) }
        for client in clients {
            #expect(try Self.complete(client, "open cont", word: "cont").isEmpty)
        }
        try FileManager.default.copyItem(atPath: BuildProducts.plugin("Content"), toPath: server.folder + "/plugins/libContentPlugin.so")
        for (index, client) in clients.enumerated() {
            var notes: [String] = []
            try server.waitFor("client \(index) to be told") {
                notes += client.takePushed().map(\.text)
                return notes.contains { $0.hasPrefix("loaded plugin content ") }
            }
            #expect(notes.filter { $0.hasPrefix("loaded plugin content ") }.count == 1, "\(notes)")
            #expect(try Self.complete(client, "open content/pro", word: "content/pro").contains("content/product"))
            #expect(try Self.complete(client, "content s", word: "s").contains("show"))
            #expect(try Self.request(client, "content show 9").lines.contains("── #9 Red Sneakers ──"))
        }
        #expect(server.logText.components(separatedBy: "loaded plugin content").count == 2, "loaded once:\n\(server.logText)")
        #expect(try server.stop() == 0)
    }

    @Test("two servers started at once on one name: one listens, the other says which pid holds it")
    func raceForTheName() throws {
        let server = try Server()
        #expect(try server.stop() == 0)
        let contenders = (0..<2).map { _ in Process() }
        let logs = try contenders.indices.map { index -> String in
            let log = server.folder + "/contender\(index).log"
            _ = FileManager.default.createFile(atPath: log, contents: nil)
            contenders[index].executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
            contenders[index].arguments = ["serve", "--config", server.folder + "/coordsh.toml", "--db", server.database]
            contenders[index].environment = childEnvironment(server.environment)
            contenders[index].standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: log))
            return log
        }
        for contender in contenders { try contender.run() }
        defer { for contender in contenders where contender.isRunning { kill(contender.processIdentifier, SIGKILL) } }
        try server.waitFor("exit: one of the two to give up", seconds: 20) { contenders.contains { !$0.isRunning } }
        let loser = try #require(contenders.firstIndex { !$0.isRunning })
        let winner = contenders[1 - loser]
        #expect(contenders[loser].terminationStatus == 1)
        let said = (try? String(contentsOfFile: logs[loser], encoding: .utf8)) ?? ""
        #expect(said == "coordsh: error: a coordsh server is already running on \(server.socket) (pid \(winner.processIdentifier))\n", "\(said)")
        #expect(winner.isRunning)
        #expect(try server.coordsh(["connect", "-c", "echo winner"]).stdout == "winner\n")
        winner.terminate()
        winner.waitUntilExit()
        #expect(winner.terminationStatus == 0)
    }

    @Test("a client of another user is refused by its peer credentials; root only when the config allows it",
          .enabled(if: getuid() == 0, "needs root, to run the server as another user"))
    func otherUser() throws {
        // The server runs as nobody from a copy of the binary nobody can read; the test (root)
        // is the other user. Root could enter any socket folder, so only SO_PEERCRED stops it.
        let folder = try makeTemporaryDirectory("serve-uid")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        chmod(folder, 0o755)
        let coordsh = try BuildProducts.copyBinaryAlone(to: folder + "/bin")
        chmod(folder + "/bin", 0o755)
        let nobody = try #require(getpwnam("nobody")).pointee
        let home = folder + "/home"
        try FileManager.default.createDirectory(atPath: home + "/run", withIntermediateDirectories: true)
        for path in [home, home + "/run"] {
            chown(path, nobody.pw_uid, nobody.pw_gid)
            chmod(path, 0o700)
        }
        func serve(allowRoot: Bool, socket: String? = nil) throws -> Process {
            try "[serve]\nallow_root = \(allowRoot)\n".write(toFile: folder + "/serve.toml", atomically: true, encoding: .utf8)
            chmod(folder + "/serve.toml", 0o644)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/runuser")
            process.arguments = ["-u", "nobody", "--", coordsh, "serve", "--config", folder + "/serve.toml"] + (socket.map { ["--socket", $0] } ?? [])
            process.environment = ["PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": home, "XDG_RUNTIME_DIR": home + "/run"]
            process.standardError = try FileHandle(forWritingTo: URL(fileURLWithPath: folder + "/serve.log"))
            try process.run()
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: socket ?? home + "/run/coordsh/default.sock") {
                guard process.isRunning, Date() < deadline else { throw TestFailure("the server did not start") }
                usleep(20_000)
            }
            return process
        }
        _ = FileManager.default.createFile(atPath: folder + "/serve.log", contents: nil)
        let socket = home + "/run/coordsh/default.sock"
        let strict = try serve(allowRoot: false)
        let refused = try run(BuildProducts.coordsh, ["connect", "--socket", socket, "-c", "echo in"], environment: ["HOME": folder])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("this coordsh server belongs to uid \(nobody.pw_uid); uid 0 may not attach"), "\(refused.stderr)")
        strict.terminate()
        strict.waitUntilExit()
        let log = (try? String(contentsOfFile: folder + "/serve.log", encoding: .utf8)) ?? ""
        #expect(log.contains("refused: uid 0 is not the server's (uid \(nobody.pw_uid))"), "\(log)")
        let lenient = try serve(allowRoot: true)
        let allowed = try run(BuildProducts.coordsh, ["connect", "--socket", socket, "-c", "echo in"], environment: ["HOME": folder])
        #expect(allowed.status == 0 && allowed.stdout == "in\n", "\(allowed.stderr)")
        lenient.terminate()
        lenient.waitUntilExit()

        // allow_root lets root in, and nobody else: a third user who can reach the socket (its
        // folder and the socket opened to all, here by root) is refused by its credentials.
        let open = folder + "/open"
        try FileManager.default.createDirectory(atPath: open, withIntermediateDirectories: true)
        chown(open, nobody.pw_uid, nobody.pw_gid)
        chmod(open, 0o755)
        let exposed = try serve(allowRoot: true, socket: open + "/s.sock")
        defer {
            exposed.terminate()
            exposed.waitUntilExit()
        }
        chmod(open + "/s.sock", 0o666)
        let stranger = try run(
            "/usr/bin/setpriv", ["--reuid=65533", "--regid=65533", "--clear-groups", coordsh, "connect", "--socket", open + "/s.sock", "-c", "echo in"],
            environment: ["HOME": "/tmp"])
        #expect(stranger.status == 1, "\(stranger.stdout)")
        #expect(stranger.stderr.contains("this coordsh server belongs to uid \(nobody.pw_uid); uid 65533 may not attach"), "\(stranger.stderr)")
        let rootAgain = try run(BuildProducts.coordsh, ["connect", "--socket", open + "/s.sock", "-c", "echo in"], environment: ["HOME": folder])
        #expect(rootAgain.status == 0 && rootAgain.stdout == "in\n", "\(rootAgain.stderr)")
    }

}
