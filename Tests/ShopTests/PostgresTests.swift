@_spi(Host) import CoordSDK
import CoordShop
import Foundation
import TestSupport
import Testing

/// The shop on a real PostgreSQL server through the real binary: the faults a shared server
/// brings (not running, wrong password, no such database, restarted, a connection cut inside
/// a write, a statement timeout), and several coordsh processes on one database at once.
@Suite(
    "The shop on PostgreSQL: faults and several hosts on one database",
    .serialized, .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)))
struct PostgresTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"
    static let password = "long enough password"

    func coordsh(_ home: String, _ arguments: [String], environment: [String: String] = [:], input: String = "") throws -> RunResult {
        try run(
            BuildProducts.coordsh, ["--config", Self.config, "--password-env", "PW"] + arguments, input: input,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": Self.password, "NO_COLOR": "1"].merging(environment) { $1 })
    }

    func shell(_ home: String, _ arguments: [String]) throws -> LiveShell {
        try LiveShell(
            ["--config", Self.config, "--password-env", "PW", "--keep-going"] + arguments,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": Self.password, "NO_COLOR": "1"])
    }

    /// Creates and confirms `emails` on `db`.
    func register(_ emails: [String], home: String, db: String) throws {
        for email in emails {
            #expect(try coordsh(home, ["--db", db, "-c", "account create \(email)"]).status == 0)
        }
        let outbox = try coordsh(home, ["--db", db, "-c", "account outbox"]).stdout
        let codes = outbox.components(separatedBy: "account confirm ").dropFirst().map { String($0.prefix(6)) }
        #expect(codes.count == emails.count)
        #expect(try coordsh(home, ["--db", db] + codes.flatMap { ["-c", "account confirm \($0)"] }).status == 0)
    }

    @Test("a server that is not there, a wrong port, a missing database, a wrong password: one line naming the server, never the password; the shell goes on")
    func connectionFaults() throws {
        let home = try makeTemporaryDirectory("pgfault")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let socket = try #require(PostgresServer.directory)
        let cases: [(url: String, environment: [String: String], shown: String, reason: String)] = [
            ("postgresql://coordsh@/coordsh?host=/nonexistent/coordsh", [:], "postgresql://coordsh@/coordsh?host=/nonexistent/coordsh", "No such file or directory"),
            ("postgres://coordsh@/coordsh?host=\(socket)&port=1", [:], "postgres://coordsh@/coordsh?host=\(socket)&port=1", "No such file or directory"),
            ("postgresql://coordsh@/nosuchdb?host=\(socket)", [:], "postgresql://coordsh@/nosuchdb?host=\(socket)", "database \"nosuchdb\" does not exist"),
            ("postgresql://secret:wrongpw1@/coordsh?host=\(socket)", [:], "postgresql://secret@/coordsh?host=\(socket)", "password authentication failed for user \"secret\""),
            ("postgresql://secret@/coordsh?host=\(socket)", ["PGPASSWORD": "wrongpw1"], "postgresql://secret@/coordsh?host=\(socket)", "password authentication failed for user \"secret\""),
        ]
        for (url, environment, shown, reason) in cases {
            let result = try coordsh(home, ["--db", url, "--keep-going", "-c", "content list", "-c", "deps", "-c", "echo still here"], environment: environment)
            #expect(result.status == 1, "\(url)")
            #expect(result.stdout.contains("still here"), "\(url): the shell went on")
            let errors = result.stderr.split(separator: "\n").filter { $0.hasPrefix("coordsh: error: ") }
            #expect(errors.count == 1, "\(url): \(result.stderr)")
            let line = try #require(errors.first.map(String.init))
            #expect(line.hasPrefix("coordsh: error: database \(shown): cannot connect: "), "\(line)")
            #expect(line.contains(reason), "\(line)")
            #expect(!(result.stdout + result.stderr).contains("wrongpw1"), "\(url): the password was shown")
        }
        // The right password, from PGPASSWORD, on a database that role owns.
        let name = "owned_\(UUID().uuidString.prefix(8).lowercased())"
        try PostgresServer.psql("CREATE DATABASE \(name) OWNER secret")
        let right = try coordsh(home, ["--db", "postgresql://secret@/\(name)?host=\(socket)", "-c", "content list shoes"], environment: ["PGPASSWORD": "hunter2"])
        #expect(right.status == 0, "\(right.stderr)")
        #expect(right.stdout.contains("Trail Running Shoes"))
        // …or from ~/.pgpass: the shell reads both before its sandbox closes the environment
        // and the home to plugin code, and hands libpq the password itself.
        try "# coordsh test\n\(socket):*:\(name):secret:hunter2\n".write(toFile: home + "/.pgpass", atomically: true, encoding: .utf8)
        chmod(home + "/.pgpass", 0o600)
        let fromFile = try coordsh(home, ["--db", "postgresql://secret@/\(name)?host=\(socket)", "-c", "content list shoes"])
        #expect(fromFile.status == 0, "\(fromFile.stderr)")
        #expect(fromFile.stdout.contains("Trail Running Shoes"))
        chmod(home + "/.pgpass", 0o644)  // as libpq does, a file others may read is not used
        let exposed = try coordsh(home, ["--db", "postgresql://secret@/\(name)?host=\(socket)", "-c", "content list shoes"])
        #expect(exposed.status == 1 && exposed.stderr.contains("password"), "\(exposed.stderr)")
        try FileManager.default.removeItem(atPath: home + "/.pgpass")
        // The password in the config's [data] url: used, and shown nowhere.
        let config = home + "/coordsh.toml"
        try "[data]\nurl = \"postgresql://secret:hunter2@/\(name)?host=\(socket)\"\n".write(toFile: config, atomically: true, encoding: .utf8)
        let fromConfig = try run(
            BuildProducts.coordsh, ["--config", config, "-c", "content list shoes", "-c", "config", "-c", "deps"],
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
        #expect(fromConfig.status == 0, "\(fromConfig.stderr)")
        #expect(fromConfig.stdout.contains("Trail Running Shoes"))
        #expect(fromConfig.stdout.contains("postgresql://secret@/\(name)?host=\(socket)  (data.url)"), "\(fromConfig.stdout)")
        #expect(!(fromConfig.stdout + fromConfig.stderr).contains("hunter2"), "the password was shown")
    }

    @Test("the server stops and starts again between two commands: meanwhile one line, then the next command reconnects; nothing half-written")
    func serverRestarts() throws {
        let cluster = try PostgresCluster()
        defer { cluster.remove() }
        let home = try makeTemporaryDirectory("pgrestart")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let shell = try shell(home, ["--db", cluster.url])
        #expect(shell.send("cart add 1").contains("Cart (1 item)"))
        try cluster.halt()
        let down = shell.send("cart add 2")
        #expect(down.hasPrefix("coordsh: error: database \(cluster.url): "), "\(down)")
        #expect(down.split(separator: "\n").count == 1, "\(down)")
        try cluster.resume()
        let back = shell.send("cart add 3")
        #expect(back.contains("Cart (2 items)"), "\(back)")
        #expect(back.contains("#3 ") && !back.contains("#2 "), "\(back)")
        #expect(shell.finish() == 1)  // one command failed
    }

    @Test("a connection cut inside a write: the server rolls it back and the write runs again on a new connection; cut every time, one line and nothing written")
    @MainActor func connectionCutInsideWrite() throws {
        let host = try TestHost(databasePath: try PostgresServer.createDatabase("cut"))
        defer { host.close() }
        _ = try host.app.dependencies?[Services.content]?.products(category: nil)  // tables made
        var runs = 0
        try host.data.write { db in
            runs += 1
            try db.execute("INSERT INTO carts (owner, updated_at) VALUES ('guest:cut', ?)", [.now])
            if runs == 1 {
                // Another connection ends this one's server process, as a server restart or
                // a network cut would, after the insert and before the commit.
                let pid = try #require(try db.int("SELECT pg_backend_pid()"))
                try PostgresServer.psql("SELECT pg_terminate_backend(\(pid))")
            }
            try db.execute("UPDATE carts SET offer_code = 'X' WHERE owner = 'guest:cut'")
        }
        #expect(runs == 2)
        #expect(try host.data.read { try $0.int("SELECT count(*) FROM carts WHERE owner = 'guest:cut' AND offer_code = 'X'") } == 1)

        let error = #expect(throws: CoordError.self) {
            try host.data.write { db in
                try db.execute("INSERT INTO carts (owner, updated_at) VALUES ('guest:cut2', ?)", [.now])
                let pid = try #require(try db.int("SELECT pg_backend_pid()"))
                try PostgresServer.psql("SELECT pg_terminate_backend(\(pid))")
                try db.execute("UPDATE carts SET offer_code = 'X' WHERE owner = 'guest:cut2'")
            }
        }
        #expect(error?.message.contains("the connection to the server was lost") == true, "\(String(describing: error))")
        #expect(error?.message.contains("nothing was changed") == true)
        #expect(try host.data.read { try $0.int("SELECT count(*) FROM carts WHERE owner = 'guest:cut2'") } == 0)
    }

    @Test("a statement held up longer than [data] statement_timeout is cancelled: one line, nothing written, the shell goes on")
    func statementTimeout() throws {
        let home = try makeTemporaryDirectory("pgtimeout")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = try PostgresServer.createDatabase("timeout")
        let name = try #require(PostgresServer.databaseName(of: db))
        #expect(try coordsh(home, ["--db", db, "-c", "cart show"]).status == 0)  // tables made
        let config = home + "/coordsh.toml"
        try "[data]\nstatement_timeout = 1\n".write(toFile: config, atomically: true, encoding: .utf8)
        // Another client holds the carts table for 6 s.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: PostgresServer.binary("psql"))
        holder.arguments = [db, "-qAtX", "-c", "BEGIN; LOCK TABLE carts IN ACCESS EXCLUSIVE MODE; SELECT pg_sleep(6); COMMIT;"]
        try holder.run()
        defer { holder.waitUntilExit() }
        var held = false
        for _ in 0..<100 where !held {
            held = (try? PostgresServer.psql("""
                SELECT count(*) FROM pg_locks l JOIN pg_database d ON d.oid = l.database
                WHERE d.datname = '\(name)' AND l.mode = 'AccessExclusiveLock' AND l.granted
                """).trimmingCharacters(in: .whitespacesAndNewlines)) == "1"
            if !held { usleep(50_000) }
        }
        #expect(held)
        let started = Date()
        let result = try run(
            BuildProducts.coordsh, ["--config", config, "--db", db, "--keep-going", "-c", "cart add 1", "-c", "echo still here"],
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
        #expect(Date().timeIntervalSince(started) < 5, "the command waited for the lock instead of timing out")
        #expect(result.status == 1)
        #expect(result.stdout.contains("still here"))
        #expect(result.stderr == "coordsh: error: database \(db): a statement ran longer than the statement timeout and was cancelled; nothing was changed\n")
        holder.waitUntilExit()
        #expect(try PostgresServer.psql("SELECT count(*) FROM cart_lines", database: name).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("4 processes × 300 cart commands on the same 4 users' carts at once: every line present, every quantity exact")
    func concurrentCarts() throws {
        let home = try makeTemporaryDirectory("pgcarts")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = try PostgresServer.createDatabase("carts")
        let name = try #require(PostgresServer.databaseName(of: db))
        let users = (0..<4).map { "u\($0)@example.com" }
        try register(users, home: home, db: db)
        // Each process goes through the users in the same order, 75 adds each (products 1…15
        // in turn), so all four write to one user's cart at a time.
        let script = users.flatMap { user in ["account login \(user)"] + (0..<75).map { "cart add \($0 % 15 + 1)" } }.joined(separator: "\n") + "\n"
        let processes = try (0..<4).map { _ in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
            process.arguments = ["--config", Self.config, "--password-env", "PW", "--db", db]
            process.environment = childEnvironment(["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": Self.password, "NO_COLOR": "1"])
            let input = Pipe(), errors = Pipe()
            process.standardInput = input
            process.standardOutput = FileHandle.nullDevice
            process.standardError = errors
            try process.run()
            return (process, input, errors)
        }
        for (_, input, _) in processes { try input.fileHandleForWriting.write(contentsOf: Data(script.utf8)); try input.fileHandleForWriting.close() }
        for (process, _, errors) in processes {
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(stderr)")
        }
        let lines = try PostgresServer.psql("SELECT owner, product_id, quantity FROM cart_lines ORDER BY owner, product_id", database: name)
            .split(separator: "\n").map { $0.split(separator: "|").map(String.init) }
        #expect(lines.count == 4 * 15, "\(lines)")
        #expect(Set(lines.map { $0[0] }).count == 4)
        #expect(lines.allSatisfy { $0[2] == "20" }, "\(lines.filter { $0[2] != "20" })")
    }

    @Test("a write the server refuses as a serialization failure every time: retried 40 times with pauses, then one line; the shell goes on")
    func conflictsEveryTime() throws {
        let home = try makeTemporaryDirectory("pgconflict")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = try PostgresServer.createDatabase("conflict")
        let name = try #require(PostgresServer.databaseName(of: db))
        #expect(try coordsh(home, ["--db", db, "-c", "cart show"]).status == 0)
        // Every change to a cart line fails as two serializable writers that collided would.
        _ = try PostgresServer.psql("""
            CREATE FUNCTION coordsh_test_conflict() RETURNS trigger AS $$
            BEGIN RAISE EXCEPTION 'forced conflict' USING ERRCODE = 'serialization_failure'; END $$ LANGUAGE plpgsql;
            CREATE TRIGGER coordsh_test_conflict BEFORE INSERT OR UPDATE ON cart_lines
            FOR EACH ROW EXECUTE FUNCTION coordsh_test_conflict();
            """, database: name)
        // The pauses grow to 50 ms: 40 attempts take about a second (a shell used to trap at
        // the 29th, when the pause's arithmetic wrapped).
        let result = try coordsh(home, ["--db", db, "--keep-going", "-c", "cart add 3", "-c", "content show 3"])
        #expect(result.status == 1, "\(result.stderr)")
        #expect(result.stderr == "coordsh: error: database \(db): other writers kept conflicting with this change (40 attempts); nothing was changed, try again\n", "\(result.stderr)")
        #expect(result.stdout.contains("Leather Boots"), "the shell went on: \(result.stdout)")
        #expect(try PostgresServer.psql("SELECT count(*) FROM cart_lines", database: name).trimmingCharacters(in: .whitespacesAndNewlines) == "0")
    }

    @Test("two processes paying the same checkout at the same instant, 50 times: 50 orders, each paid once")
    func concurrentPayments() throws {
        let home = try makeTemporaryDirectory("pgpay")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = try PostgresServer.createDatabase("pay")
        let name = try #require(PostgresServer.databaseName(of: db))
        try register(["p@example.com"], home: home, db: db)
        let payers = try (0..<2).map { _ in try shell(home, ["--db", db]) }
        for payer in payers { #expect(payer.send("account login p@example.com").contains("logged in")) }
        var paidOnce = 0
        for round in 1...50 {
            #expect(payers[0].send("cart add \(round % 20 + 1)").contains("Cart (1 item)"))
            for payer in payers { #expect(payer.send("cart checkout").contains("Checkout")) }
            // Both commands are written before either answer is read.
            let markers = payers.map { $0.begin("payment pay 4242424242424242") }
            let texts = zip(payers, markers).map { $0.collect($1) }
            // Order numbers may skip (a PostgreSQL identity does not give back a number a
            // rolled-back attempt took), so the refusal must name the order the other paid.
            let paid = texts.compactMap { $0.components(separatedBy: "note: paid: order ").dropFirst().first?.prefix { $0.isNumber } }
            #expect(paid.count == 1, "round \(round): \(texts)")
            if let order = paid.first {
                let refused = texts.filter { $0.contains("this checkout is already paid (order \(order)); nothing was charged") }
                #expect(refused.count == 1, "round \(round): \(texts)")
                if refused.count == 1 { paidOnce += 1 }
            }
        }
        for payer in payers { _ = payer.finish() }
        #expect(paidOnce == 50)
        let counts = try PostgresServer.psql(
            "SELECT count(*), count(DISTINCT idempotency_key), (SELECT count(*) FROM payments), (SELECT count(DISTINCT order_id) FROM payments) FROM orders",
            database: name).trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(counts == "50|50|50|50")
    }
}
