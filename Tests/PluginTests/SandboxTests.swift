import Foundation
import TestSupport
import Testing

/// The kernel's sandbox around plugin code, tested from the outside: a plugin (the intruder
/// fixture) that goes around the SDK with plain system calls tries to read the person's
/// files, change them, list their home, start a shell, reach the network, read the secrets
/// the shell was started with and signal another process — in every process that runs plugin
/// code: the one-process shell, the supervised shell's worker, `serve` (supervised) through
/// `connect`, and `serve --single-process`. Each attempt is refused in one line with the
/// system's reason, nothing is read or changed, and the next command runs.
@Suite("The plugin sandbox", .serialized)
struct SandboxTests {
    /// Whether this kernel has Landlock (its ABI version, asked of the kernel itself): where it
    /// has none, the confinement tests cannot run and say so; the warning and the refusal
    /// without it are tested everywhere (`withoutLandlock`).
    static let landlockAvailable: Bool = {
        let probe = try? run("/usr/bin/env", ["python3", "-c", "import ctypes, sys; sys.exit(0 if ctypes.CDLL(None).syscall(444, None, 0, 1) > 0 else 1)"])
        return probe?.status == 0
    }()

    /// A private home with secrets in it, the intruder in a plugin folder of its own, and a
    /// TCP port listening on the loopback interface (the test's own socket).
    final class Setup {
        let folder: String
        let home: String
        let listener: Int32
        let port: Int
        let config: String

        /// `reach`: the intruder declares a readable folder (`shared`), the listening port and
        /// `/bin/sh`, and the config grants them when it is true.
        init(reach: Bool? = nil) throws {
            folder = try makeTemporaryDirectory("sandbox")
            home = folder + "/home"
            try FileManager.default.createDirectory(atPath: home + "/.ssh", withIntermediateDirectories: true)
            try "PRIVATE KEY of the person\n".write(toFile: home + "/.ssh/id_ed25519", atomically: true, encoding: .utf8)
            try "# the person's bashrc\n".write(toFile: home + "/.bashrc", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: home + "/.config/coordsh", withIntermediateDirectories: true)
            try "# coordsh plugin grants 1\n".write(toFile: home + "/.config/coordsh/plugin-grants.tsv", atomically: true, encoding: .utf8)
            try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
            chmod(folder + "/plugins", 0o755)
            config = folder + "/coordsh.toml"
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            var length = socklen_t(MemoryLayout<sockaddr_in>.size)
            _ = withUnsafeMutablePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                    bind(descriptor, pointer, length)
                    return getsockname(descriptor, pointer, &length)
                }
            }
            listen(descriptor, 16)
            listener = descriptor
            port = Int(UInt16(bigEndian: address.sin_port))
            try FileManager.default.createDirectory(atPath: folder + "/shared", withIntermediateDirectories: true)
            try "shared with the plugin\n".write(toFile: folder + "/shared/notes.txt", atomically: true, encoding: .utf8)
            let granted = ["read-path \(folder)/shared", "connect 127.0.0.1:\(port)", "run /bin/sh"]
            try FixtureBuilder.buildIntruder(output: folder + "/plugins/libintruder.so", declares: reach != nil, reach: reach != nil ? granted : nil)
            var text = "[plugins]\ndirs = [\"$SDK_DIR\", \"\(folder)/plugins\"]\n"
            if reach == true { text += "\n[plugins.grants]\nintruder = [\(granted.map { "\"\($0)\"" }.joined(separator: ", "))]\n" }
            try text.write(toFile: config, atomically: true, encoding: .utf8)
        }

        deinit {
            close(listener)
            try? FileManager.default.removeItem(atPath: folder)
        }

        var environment: [String: String] {
            [
                "HOME": home, "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
                "XDG_CACHE_HOME": folder + "/cache", "XDG_RUNTIME_DIR": folder + "/run",
                "PGPASSWORD": "pg-secret-4711", "SHOP_PW": "correct horse battery", "GITHUB_TOKEN": "ghp_secret0815",
            ]
        }

        /// Every attempt, with the words its one-line refusal must hold.
        var attempts: [(line: String, refusal: String)] {
            [
                ("intrude read \(home)/.ssh/id_ed25519", "intrude read \(home)/.ssh/id_ed25519: Permission denied"),
                ("intrude write \(home)/.bashrc", "intrude write \(home)/.bashrc: Permission denied"),
                // The person's grants: a plugin that could write them would grant itself.
                ("intrude write \(home)/.config/coordsh/plugin-grants.tsv", "intrude write \(home)/.config/coordsh/plugin-grants.tsv: Permission denied"),
                ("intrude list \(home)", "intrude list \(home): Permission denied"),
                ("intrude read /etc/shadow", "intrude read /etc/shadow: Permission denied"),
                ("intrude exec /bin/sh", "intrude exec /bin/sh: Permission denied"),
                ("intrude connect \(port)", "intrude connect \(port): Permission denied"),
                ("intrude bind \(port + 1)", "intrude bind \(port + 1): Permission denied"),
                ("intrude udp \(port)", "intrude udp \(port): socket: Permission denied"),
                ("intrude env PGPASSWORD", "intrude env PGPASSWORD: not set"),
                ("intrude env SHOP_PW", "intrude env SHOP_PW: not set"),
                ("intrude env GITHUB_TOKEN", "intrude env GITHUB_TOKEN: not set"),
                ("intrude signal \(getpid())", "intrude signal \(getpid()): Operation not permitted"),
            ] + dataAttempts
        }

        /// Through the SDK: other features' tables, the app's own handle, SQL that would
        /// escape the check, the person's prompt, a guarded service.
        var dataAttempts: [(line: String, refusal: String)] {
            let grant = "must declare it and be granted it"
            return [
                ("intrude sql 'SELECT email, password_hash FROM users'", "reading table 'users' of feature 'account': refused 'read users': the plugin 'intruder' \(grant) ('plugins grant intruder read users' at a terminal, or the config's [plugins.grants] intruder = [\"read users\"])"),
                ("intrude sql 'SELECT * FROM sessions'", "reading table 'sessions' of feature 'account': refused 'read sessions'"),
                ("intrude change 'DELETE FROM orders'", "changing table 'orders' of feature 'payment': refused 'write orders'"),
                ("intrude sql 'SELECT name FROM products'", "refused 'read products'"),
                ("intrude sql 'WITH u AS (SELECT * FROM users) SELECT count(*) FROM u'", "refused 'read users'"),
                ("intrude sql 'SELECT 1; DELETE FROM carts'", "refused 'write carts'"),
                ("intrude sql 'SELECT (SELECT count(*) FROM checkouts)'", "refused 'read checkouts'"),
                ("intrude change 'CREATE TRIGGER spy AFTER INSERT ON intruder_notes BEGIN DELETE FROM orders; END'", "changing the schema outside the feature's migrations is not allowed"),
                ("intrude change 'CREATE VIEW spy AS SELECT * FROM users'", "changing the schema outside the feature's migrations is not allowed"),
                ("intrude change \"ATTACH DATABASE '/tmp/spy.sqlite' AS spy\"", "attaching a database file is not allowed"),
                ("intrude change 'PRAGMA writable_schema = 1'", "PRAGMA writable_schema is not allowed"),
                ("intrude change 'COMMIT'", "transaction control (the host runs each command's transaction) is not allowed"),
                ("intrude change 'DELETE FROM coordsh_table_owners'", "changing coordsh's own table 'coordsh_table_owners' is not allowed"),
                ("intrude climb 'SELECT * FROM users'", "this data handle belongs to no feature"),
                ("intrude secret 'Password for someone@example.org'", "intrude secret: refused 'service secrets': the plugin 'intruder' \(grant)"),
                ("intrude service accounts", "intrude service: no service 'accounts'"),
                ("intrude service payments", "intrude service: no service 'payments'"),
                // The host's way to every scene's login token: guarded like accounts.
                ("intrude service sceneLogins", "intrude service: no service 'sceneLogins'"),
            ]
        }

        /// The script: a read the sandbox allows (so the plugin demonstrably runs), every
        /// attempt, and a last command that must still run.
        var script: String {
            (["intrude read /etc/passwd", "intrude note hello", "intrude env XDG_RUNTIME_DIR"] + attempts.map(\.line) + ["intrude note again", "echo still serving"]).joined(separator: "\n") + "\n"
        }

        /// What the attempts must have left: each refused in one line, nothing read or changed.
        func verify(_ result: RunResult, mode: String) throws {
            #expect(result.status == 1, "\(mode): batch mode exits 1 after the refusals: \(result.stderr)")
            #expect(result.stdout.contains("read ") && result.stdout.contains("root:"), "\(mode): the plugin runs: \(result.stdout)")
            #expect(result.stdout.hasSuffix("still serving\n"), "\(mode): \(result.stdout)")
            // What the allow-list keeps is still there for the plugin (the scrub found its name).
            #expect(result.stdout.contains("XDG_RUNTIME_DIR=\(folder)/run (environment)"), "\(mode): \(result.stdout)")
            // Its own table, before and after every refusal: it works with what is its own.
            #expect(result.stdout.components(separatedBy: " notes").count - 1 == 2, "\(mode): its own table: \(result.stdout)")
            let errors = result.stderr.split(separator: "\n").map(String.init).filter { $0.hasPrefix("coordsh: error: ") }
            for (line, refusal) in attempts {
                #expect(errors.contains { $0.contains(refusal) }, "\(mode): '\(line)' was not refused with '\(refusal)':\n\(result.stderr)")
            }
            #expect(errors.count == attempts.count, "\(mode): one line per refusal:\n\(result.stderr)")
            for secret in ["PRIVATE KEY", "pg-secret-4711", "correct horse battery", "ghp_secret0815"] {
                #expect(!result.stdout.contains(secret) && !result.stderr.contains(secret), "\(mode): \(secret) leaked")
            }
            #expect(try String(contentsOfFile: home + "/.bashrc", encoding: .utf8) == "# the person's bashrc\n", "\(mode): .bashrc changed")
            #expect(try String(contentsOfFile: home + "/.config/coordsh/plugin-grants.tsv", encoding: .utf8) == "# coordsh plugin grants 1\n", "\(mode): the grants changed")
        }
    }

    @Test("the one-process shell and the supervised shell: every attempt refused in one line, nothing read or changed, the next command runs", .enabled(if: SandboxTests.landlockAvailable, "this kernel has no Landlock"))
    func shells() throws {
        let setup = try Setup()
        for mode in ["--single-process", "--supervised"] {
            let result = try run(
                BuildProducts.coordsh, [mode, "--keep-going", "--config", setup.config, "--password-env", "SHOP_PW"],
                input: setup.script, environment: setup.environment, timeout: 120)
            try setup.verify(result, mode: mode)
        }
    }

    @Test("a database named relative to the current folder (`--db shop.sqlite`, `--db data/shop.sqlite`) opens there and keeps the cart, in one process and supervised: the sandbox grants the file's own folder however it is named", .enabled(if: SandboxTests.landlockAvailable, "this kernel has no Landlock"))
    func relativeDatabase() throws {
        let folder = try makeTemporaryDirectory("relative-db")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/data", withIntermediateDirectories: true)
        let environment = ["HOME": folder + "/home", "XDG_DATA_HOME": folder + "/home/data", "NO_COLOR": "1"]
        let config = BuildProducts.packageRoot + "/config/coordsh.toml"
        for mode in ["--single-process", "--supervised"] {
            for name in ["shop.sqlite", "data/shop.sqlite"] {
                for command in ["cart add 3", "cart show"] {
                    let result = try run(
                        BuildProducts.coordsh, [mode, "--config", config, "--db", name, "-c", command],
                        environment: environment, directory: folder, timeout: 120)
                    #expect(result.status == 0, "\(mode) --db \(name) -c '\(command)': \(result.stderr)")
                    #expect(!result.stderr.contains("cannot be opened"), "\(mode) --db \(name): \(result.stderr)")
                }
                #expect(FileManager.default.fileExists(atPath: folder + "/" + name), "\(mode): \(name) is made in the current folder")
            }
        }
        // Each run added one item to the same file: the second run of each mode saw the first's.
        let last = try run(
            BuildProducts.coordsh, ["--config", config, "--db", "shop.sqlite", "-c", "cart show"],
            environment: environment, directory: folder, timeout: 120)
        #expect(last.stdout.contains("2 items"), "\(last.stdout)")
    }

    @Test("a folder, a port and a program declared and granted are let through by the kernel, and nothing beside them; declared and not granted, they stay closed", .enabled(if: SandboxTests.landlockAvailable, "this kernel has no Landlock"))
    func grantedReach() throws {
        for granted in [true, false] {
            let setup = try Setup(reach: granted)
            for mode in ["--single-process", "--supervised"] {
                let result = try run(
                    BuildProducts.coordsh, [mode, "--keep-going", "--config", setup.config],
                    input: """
                        intrude read \(setup.folder)/shared/notes.txt
                        intrude connect \(setup.port)
                        intrude exec /bin/sh
                        intrude read \(setup.home)/.ssh/id_ed25519
                        intrude connect \(setup.port + 1)
                        intrude exec /bin/bash
                        echo done

                        """,
                    environment: setup.environment, timeout: 120)
                let what = "\(mode), granted \(granted)"
                #expect(result.stdout.hasSuffix("done\n"), "\(what): \(result.stdout)\(result.stderr)")
                #expect(result.stdout.contains("read 23 bytes: shared with the plugin") == granted, "\(what): \(result.stdout)\(result.stderr)")
                #expect(result.stdout.contains("connect 127.0.0.1:\(setup.port) succeeded") == granted, "\(what): \(result.stdout)\(result.stderr)")
                #expect(result.stdout.contains("ran /bin/sh") == granted, "\(what): \(result.stdout)\(result.stderr)")
                for line in ["intrude read \(setup.home)/.ssh/id_ed25519: Permission denied", "intrude connect \(setup.port + 1): Permission denied", "intrude exec /bin/bash: Permission denied"] {
                    #expect(result.stderr.contains(line), "\(what): \(result.stderr)")
                }
                #expect(result.stderr.split(separator: "\n").count == (granted ? 3 : 6), "\(what): \(result.stderr)")
            }
        }
    }

    @Test("serve, supervised and in one process: every attempt from a client refused in one line, the server serves the next command", .enabled(if: SandboxTests.landlockAvailable, "this kernel has no Landlock"))
    func served() throws {
        let setup = try Setup()
        for arguments in [[], ["--single-process"]] {
            let serve = Process()
            serve.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
            serve.arguments = ["serve", "--config", setup.config] + arguments
            serve.environment = childEnvironment(setup.environment)
            serve.standardOutput = FileHandle.nullDevice
            serve.standardError = FileHandle.nullDevice
            try FileManager.default.createDirectory(atPath: setup.folder + "/run", withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            try serve.run()
            defer {
                serve.terminate()
                serve.waitUntilExit()
            }
            let socket = setup.folder + "/run/coordsh/default.sock"
            let deadline = Date().addingTimeInterval(30)
            while !FileManager.default.fileExists(atPath: socket), Date() < deadline { usleep(20_000) }
            let result = try run(
                BuildProducts.coordsh, ["connect", "--keep-going", "--password-env", "SHOP_PW"],
                input: setup.script, environment: setup.environment, timeout: 120)
            try setup.verify(result, mode: "serve \(arguments.joined())")
        }
    }

    @Test("the vetting and contract children are confined too: an entry point that writes into the person's home cannot, in plugin check's child or at the shell's vetting", .enabled(if: SandboxTests.landlockAvailable, "this kernel has no Landlock"))
    func children() throws {
        let setup = try Setup()
        let plugin = setup.folder + "/plugins/libintruder.so"
        try FixtureBuilder.buildIntruder(output: plugin, entryWrites: true)
        let marker = setup.home + "/entry-was-here"
        // plugin check's own process runs no plugin code; its children do, each confined.
        let check = try run(BuildProducts.coordsh, ["plugin", "check", "--alone", plugin], environment: setup.environment, timeout: 120)
        #expect(check.stdout.contains("passed"), "\(check.stdout)\(check.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "plugin check's child wrote into the home")
        // The shell vets the new plugin in a child, then loads it itself.
        let shell = try run(BuildProducts.coordsh, ["--config", setup.config, "-c", "intrude read /etc/passwd"], environment: setup.environment, timeout: 120)
        #expect(shell.status == 0, "\(shell.stderr)")
        #expect(!FileManager.default.fileExists(atPath: marker), "the vetting child or the shell wrote into the home")
        // Unconfined (the file checks run without the sandbox), the same entry does write it:
        // the test would see a sandbox that does nothing.
        let unconfined = try run("/usr/bin/env", ["python3", "-c", "import ctypes; ctypes.CDLL('\(plugin)', mode=2).coordsh_plugin_entry(None)"],
                                 environment: setup.environment.merging(["LD_LIBRARY_PATH": BuildProducts.directory]) { $1 }, timeout: 60)
        _ = unconfined
        #expect(FileManager.default.fileExists(atPath: marker), "the fixture's entry writes the marker when nothing confines it")
    }

    @Test("a kernel without Landlock: one line says the sandbox is off and the shell runs; with [plugins] require_sandbox no plugin code runs, in one line, exit 1")
    func withoutLandlock() throws {
        let setup = try Setup()
        let launcher = setup.folder + "/no_landlock"
        try FixtureBuilder.buildNoLandlock(output: launcher)
        let off = try run(launcher, [BuildProducts.coordsh, "--single-process", "--config", setup.config, "-c", "intrude read \(setup.home)/.ssh/id_ed25519"],
                          environment: setup.environment, timeout: 120)
        #expect(off.status == 0, "\(off.stderr)")
        #expect(off.stderr == "coordsh: warning: the plugin sandbox is off (this kernel has no Landlock): plugins can reach everything this user can\n", "\(off.stderr)")
        #expect(off.stdout.contains("PRIVATE KEY"), "unconfined, the intruder reads the key: \(off.stdout)")

        try "[plugins]\ndirs = [\"$SDK_DIR\", \"\(setup.folder)/plugins\"]\nrequire_sandbox = true\n".write(toFile: setup.config, atomically: true, encoding: .utf8)
        for mode in ["--single-process", "--supervised"] {
            let refused = try run(launcher, [BuildProducts.coordsh, mode, "--config", setup.config, "-c", "intrude write \(setup.home)/.bashrc"],
                                  environment: setup.environment, timeout: 120)
            #expect(refused.status == 1, "\(mode): \(refused.stderr)")
            #expect(refused.stdout.isEmpty, "\(mode): \(refused.stdout)")
            #expect(refused.stderr.contains("the plugin sandbox is required ([plugins] require_sandbox) but this kernel has no Landlock: no plugin code runs"),
                    "\(mode): \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1, "\(mode): one line: \(refused.stderr)")
        }
        #expect(try String(contentsOfFile: setup.home + "/.bashrc", encoding: .utf8) == "# the person's bashrc\n")
    }
}
