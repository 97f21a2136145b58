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

        init(config: String = "", arguments: [String] = []) throws {
            folder = try makeTemporaryDirectory("serve")
            try FileManager.default.createDirectory(atPath: folder + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try config.write(toFile: folder + "/coordsh.toml", atomically: true, encoding: .utf8)
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

        func coordsh(_ arguments: [String], input: String = "", extra: [String: String] = [:]) throws -> RunResult {
            try run(BuildProducts.coordsh, arguments, input: input, environment: environment.merging(extra) { $1 })
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
        let server = try Server(config: "[serve]\nmax_clients = 20\nhandshake_timeout = 1\noutbound_limit = 65536\n")
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
        let second = try server.coordsh(["serve", "--config", server.folder + "/coordsh.toml"])
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
        let open = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/open", "HOME": folder])
        #expect(open.status == 1)
        #expect(open.stderr == "coordsh: error: socket folder \(folder)/open/coordsh is open to group or others (mode 755); 'chmod 700 \(folder)/open/coordsh' or remove it\n", "\(open.stderr)")
        try FileManager.default.createDirectory(atPath: folder + "/link", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/elsewhere", withIntermediateDirectories: true)
        chmod(folder + "/elsewhere", 0o700)
        try FileManager.default.createSymbolicLink(atPath: folder + "/link/coordsh", withDestinationPath: folder + "/elsewhere")
        let link = try run(BuildProducts.coordsh, ["serve"], environment: ["XDG_RUNTIME_DIR": folder + "/link", "HOME": folder])
        #expect(link.status == 1)
        #expect(link.stderr.contains("is a symbolic link; refusing to follow it"), "\(link.stderr)")
    }
}
