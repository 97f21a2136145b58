import CoordData
@_spi(Host) import CoordSDK
import CoordShop
import Foundation
import TestSupport
import Testing

/// Faults through the real binary: a file that is not a database, a database locked by
/// another process, a read-only one, a shell killed in the middle of checkouts, and a
/// plugin loaded while a checkout waits for it.
@Suite("Shop faults through the real binary", .serialized)
struct FaultTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    func coordsh(_ home: String, _ arguments: [String], input: String = "", password: String = "long enough password") throws -> RunResult {
        try run(
            BuildProducts.coordsh, ["--config", Self.config, "--password-env", "PW"] + arguments, input: input,
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": password, "NO_COLOR": "1"])
    }

    @Test("a file that is not a database: one-line error, the shell keeps going, the file is untouched")
    func notADatabase() throws {
        let home = try makeTemporaryDirectory("notadb")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let path = home + "/junk.sqlite"
        let junk = Data(String(repeating: "this is not sqlite\n", count: 300).utf8)
        try junk.write(to: URL(fileURLWithPath: path))
        let result = try coordsh(home, ["--db", path, "--keep-going", "-c", "content list", "-c", "help cart", "-c", "cart add 1"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("cart add [PRODUCTID] [QUANTITY]"), "help still works")
        let errors = result.stderr.split(separator: "\n")
        #expect(errors.count == 3, "\(result.stderr)")  // the start-up warning and the two commands
        #expect(errors.allSatisfy { $0.contains("is not a database") })
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk)
    }

    @Test("a file that is not a database, with a log beside it: the start still warns; one that begins like one is told at each use")
    func notADatabaseBesideALog() throws {
        let home = try makeTemporaryDirectory("notadblog")
        defer { try? FileManager.default.removeItem(atPath: home) }
        // Text, and a file that begins with SQLite's 16 bytes but whose header says nothing
        // SQLite can read (write version 0x5A), each with a non-empty log next to it.
        let text = Data(String(repeating: "this is not sqlite\n", count: 300).utf8)
        let lookalike = Data("SQLite format 3\0".utf8) + Data(repeating: 0x5A, count: 8176)
        for (name, junk, startWarns) in [("text", text, true), ("lookalike", lookalike, false)] {
            let path = home + "/\(name).sqlite"
            try junk.write(to: URL(fileURLWithPath: path))
            try Data(repeating: 0x17, count: 4096).write(to: URL(fileURLWithPath: path + "-wal"))
            let result = try coordsh(home, ["--db", path, "--keep-going", "-c", "content list", "-c", "echo alive", "-c", "cart add 1"])
            #expect(result.status == 1, "\(name)")
            #expect(result.stdout.hasSuffix("alive\n"), "\(name): \(result.stdout)")
            let errors = result.stderr.split(separator: "\n")
            // The two commands that need data, and for text the start-up's warning before them.
            #expect(errors.count == (startWarns ? 3 : 2), "\(name): \(result.stderr)")
            #expect(errors.allSatisfy { $0.contains("database \(path) is not a database") }, "\(name): \(result.stderr)")
            #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == junk, "\(name): the file is left as it was")
        }
    }

    @Test("a database whose pages are damaged: every command that needs it is one line naming the file, the rest go on, nothing is written")
    func corruptPages() throws {
        let home = try makeTemporaryDirectory("corrupt")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        #expect(try coordsh(home, ["--db", db, "-c", "cart add 1"]).status == 0)
        // Everything into the main file (no WAL left), then every page after the first damaged.
        let checkpoint = try run("/usr/bin/env", ["python3", "-c", "import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute('PRAGMA wal_checkpoint(TRUNCATE)')", db])
        #expect(checkpoint.status == 0, "\(checkpoint.stderr)")
        var bytes = try Data(contentsOf: URL(fileURLWithPath: db))
        #expect(bytes.count > 8192)
        bytes.replaceSubrange(4096..<bytes.count, with: Data(repeating: 0x5A, count: bytes.count - 4096))
        try bytes.write(to: URL(fileURLWithPath: db))
        let result = try coordsh(home, ["--db", db, "--keep-going", "-c", "content list", "-c", "cart add 2", "-c", "help cart", "-c", "echo alive"])
        #expect(result.status == 1)
        let line = "coordsh: error: database \(db) is corrupt (database disk image is malformed); restore it from a backup or pass --db PATH"
        #expect(result.stderr == line + "\n" + line + "\n", "\(result.stderr)")
        #expect(result.stdout.contains("\n  cart add [PRODUCTID] [QUANTITY]"), "help needs no database")
        #expect(result.stdout.hasSuffix("alive\n"))
        #expect(try Data(contentsOf: URL(fileURLWithPath: db)) == bytes, "the damaged file is left as it was, for recovery")
    }

    @Test("a database another process holds locked: one-line error after the busy timeout, nothing lost")
    func locked() throws {
        let home = try makeTemporaryDirectory("locked")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        #expect(try coordsh(home, ["--db", db, "-c", "cart add 1"]).status == 0)
        // Python's sqlite3 holds an exclusive write lock until it reads a line.
        let holder = Process()
        holder.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        holder.arguments = ["python3", "-c", """
            import sqlite3, sys
            c = sqlite3.connect(sys.argv[1], isolation_level=None)
            c.execute("BEGIN EXCLUSIVE")
            print("locked", flush=True)
            sys.stdin.readline()
            c.execute("ROLLBACK")
            """, db]
        let input = Pipe(), output = Pipe()
        holder.standardInput = input
        holder.standardOutput = output
        try holder.run()
        _ = output.fileHandleForReading.availableData  // "locked"
        let result = try coordsh(home, ["--db", db, "-c", "cart show", "-c", "cart add 2"])
        try input.fileHandleForWriting.write(contentsOf: Data("\n".utf8))
        holder.waitUntilExit()
        #expect(result.status == 1)
        #expect(result.stdout.contains("#1 "), "reading still works while another process writes")
        #expect(result.stderr == "coordsh: error: database \(db) is locked by another process; try again when it is done\n")
        let after = try coordsh(home, ["--db", db, "-c", "cart show"])
        #expect(after.stdout.contains("Cart (1 item)"))
    }

    @Test("a read-only database can be read; a write is a one-line error")
    func readOnly() throws {
        let home = try makeTemporaryDirectory("readonly")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        #expect(try coordsh(home, ["--db", db, "-c", "cart add 1"]).status == 0)
        for file in try FileManager.default.contentsOfDirectory(atPath: home) {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: home + "/" + file)
        }
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: home)
        // root may write anything, so as root the shell runs as nobody for this test. nobody
        // may not be able to enter the folder the clone is in (mktemp -d, a home of mode 700),
        // so it runs a copy of the binary, the SDK library and the plugins that sits in this
        // test's own folder (RUNPATH $ORIGIN finds the library beside it; the config is the
        // built-in defaults).
        let copy = try BuildProducts.copyBinaryAlone(to: home + "/kit")
        let (executable, prefix) = getuid() == 0
            ? ("/usr/bin/setpriv", ["--reuid=65534", "--regid=65534", "--clear-groups", copy])
            : (copy, [])
        let result = try run(
            executable, prefix + ["--db", db, "--keep-going", "-c", "cart show", "-c", "cart add 2"],
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data"])
        #expect(result.status == 1)
        #expect(result.stdout.contains("Cart (1 item)"))
        #expect(result.stderr == "coordsh: error: database \(db) is read-only; nothing was changed\n")
    }

    @Test("two shells paying one checkout at the same moment: one order, one payment; the other is told it is already paid")
    @MainActor func twoShellsPayOneCheckout() throws {
        let home = try makeTemporaryDirectory("twopay")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        #expect(try coordsh(home, ["--db", db], input: "account create t@example.com\n").status == 0)
        let code = try #require(try coordsh(home, ["--db", db, "-c", "account outbox"]).stdout
            .components(separatedBy: "account confirm ").last?.prefix(6))
        #expect(try coordsh(home, ["--db", db, "-c", "account confirm \(code)", "-c", "account login t@example.com", "-c", "cart add 9 2"]).status == 0)

        /// A shell logged in with the checkout open, stopped just before paying.
        final class Payer {
            let process = Process()
            let input = Pipe(), output = Pipe()
            init(_ home: String, _ db: String) throws {
                process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
                process.arguments = ["--config", FaultTests.config, "--password-env", "PW", "--db", db, "--keep-going"]
                process.environment = childEnvironment(["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": "long enough password", "NO_COLOR": "1"])
                process.standardInput = input
                process.standardOutput = output
                process.standardError = output
                try process.run()
                try input.fileHandleForWriting.write(contentsOf: Data("account login t@example.com\ncart checkout\necho READY\n".utf8))
                var text = ""
                while !text.contains("READY\n") {
                    let chunk = output.fileHandleForReading.availableData
                    if chunk.isEmpty { break }
                    text += String(decoding: chunk, as: UTF8.self)
                }
            }
            func pay() throws { try input.fileHandleForWriting.write(contentsOf: Data("payment pay 4242424242424242\n".utf8)) }
            func finish() throws -> String {
                try input.fileHandleForWriting.close()
                let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                process.waitUntilExit()
                return text
            }
        }
        let first = try Payer(home, db), second = try Payer(home, db)
        try first.pay()
        try second.pay()
        let outputs = [try first.finish(), try second.finish()]
        let paid = outputs.filter { $0.contains("note: paid: order 1\n") }
        let refused = outputs.filter {
            $0.contains("coordsh: error: payment pay: this checkout is already paid (order 1); nothing was charged. 'payment receipt 1' shows it\n")
        }
        #expect(paid.count == 1, "\(outputs)")
        #expect(refused.count == 1, "\(outputs)")
        let data = SQLiteDataManager(path: db)
        let (orders, payments, amount) = try data.read { db in
            (try db.int("SELECT count(*) FROM orders"), try db.int("SELECT count(*) FROM payments"), try db.int("SELECT sum(amount) FROM payments"))
        }
        #expect(orders == 1)
        #expect(payments == 1)
        #expect(amount == 9000)
    }

    @Test("loading the Account plugin at the prompt lets a waiting checkout proceed")
    func pluginsLoadResumesCheckout() throws {
        let home = try makeTemporaryDirectory("noaccount")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let plugins = home + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        for name in ["Content", "Cart", "Payment"] {
            try FileManager.default.createSymbolicLink(atPath: plugins + "/lib\(name)Plugin.so", withDestinationPath: BuildProducts.plugin(name))
        }
        let config = home + "/coordsh.toml"
        // Only the plugin folder changes; the catalog and offers stay the built-in defaults.
        try "[plugins]\ndirs = [\"\(plugins)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        let result = try run(
            BuildProducts.coordsh, ["--config", config, "--password-env", "PW", "--db", home + "/shop.sqlite"],
            input: "cart add 9\ncart checkout\nplugins load \(BuildProducts.plugin("Account"))\n",
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": "long enough password"])
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains(
            "note: cartCheckout() is waiting at coordinator cart for accounts, user: cart checkout needs an account provider"))
        let afterLoad = try #require(result.stdout.components(separatedBy: "loaded account").last)
        #expect(afterLoad.contains("── Log in ──"))
        #expect(afterLoad.contains("log in to continue the checkout"))
    }

    @Test("SIGKILL in the middle of repeated checkouts leaves a sound database: each order paid once, none lost")
    @MainActor func killDuringCheckouts() throws {
        let home = try makeTemporaryDirectory("kill")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let db = home + "/shop.sqlite"
        let setup = "account create k@example.com\n"
        #expect(try coordsh(home, ["--db", db], input: setup).status == 0)
        let code = try #require(try coordsh(home, ["--db", db, "-c", "account outbox"]).stdout
            .components(separatedBy: "account confirm ").last?.prefix(6))
        #expect(try coordsh(home, ["--db", db, "-c", "account confirm \(code)"]).status == 0)

        var printedOrders: Set<Int> = []
        for round in 0..<4 {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
            process.arguments = ["--config", Self.config, "--password-env", "PW", "--db", db]
            process.environment = childEnvironment(["HOME": home, "XDG_DATA_HOME": home + "/data", "PW": "long enough password"])
            let input = Pipe(), output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            process.standardError = FileHandle.nullDevice
            try process.run()
            var script = "account login k@example.com\n"
            for i in 0..<200 {
                script += "cart add \(1 + (i + round) % 60) \(1 + i % 3)\ncart checkout\npayment pay 4242424242424242\n"
            }
            try input.fileHandleForWriting.write(contentsOf: Data(script.utf8))
            // Let it pay a few orders, then kill it wherever it is.
            var text = ""
            while text.components(separatedBy: "note: paid: order").count <= 3 + round {
                let chunk = output.fileHandleForReading.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
            #expect(process.terminationReason == .uncaughtSignal)
            text += String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            for line in text.split(separator: "\n") where line.hasPrefix("note: paid: order ") {
                printedOrders.insert(Int(line.dropFirst("note: paid: order ".count))!)
            }
        }
        #expect(printedOrders.count >= 10)

        do {
            let data = SQLiteDataManager(path: db)
            #expect(try data.integrityCheck() == ["ok"])
            try data.read { db in
                let orders = Set(try db.rows("SELECT id FROM orders", []).map { $0.int("id") })
                #expect(printedOrders.isSubset(of: orders), "every order the shell reported paid is there")
                #expect(try db.int("SELECT count(*) FROM orders o WHERE (SELECT count(*) FROM payments p WHERE p.order_id = o.id) != 1") == 0)
                #expect(try db.int("SELECT count(*) FROM payments WHERE order_id NOT IN (SELECT id FROM orders)") == 0)
                #expect(try db.int("SELECT count(*) FROM orders WHERE id NOT IN (SELECT order_id FROM checkouts WHERE order_id IS NOT NULL)") == 0)
                #expect(try db.int("SELECT count(*) FROM (SELECT idempotency_key FROM orders GROUP BY idempotency_key HAVING count(*) > 1)") == 0)
                #expect(try db.int("SELECT count(*) FROM orders o WHERE total != (SELECT sum(unit_price * quantity) FROM order_lines l WHERE l.order_id = o.id) - discount") == 0)
            }
        }
        // And the shell still works on it.
        let after = try coordsh(home, ["--db", db, "-c", "account login k@example.com", "-c", "payment orders"])
        #expect(after.status == 0, "\(after.stderr)")
    }
}
