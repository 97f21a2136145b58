import Foundation
import GRDB

/// A script of 100,000 shop commands (reads and cart writes) through `coordsh -f`, against the
/// same writes — the very SQL the Cart plugin issues, one transaction per command — done by a
/// plain GRDB loop on a copy of the same database.
enum BatchBench {
    static let commands = 100_000
    static let rounds = 3

    /// Per product: show it, add it, show the cart, remove it (two reads, two writes).
    static func script() -> String {
        var lines: [String] = []
        lines.reserveCapacity(commands)
        for cycle in 0..<(commands / 4) {
            let id = cycle % 60 + 1
            lines += ["content show \(id)", "cart add \(id)", "cart show", "cart remove \(id)"]
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func run(_ env: BenchEnvironment) throws -> [ResultRow] {
        let scriptPath = env.scratch + "/batch.txt"
        try script().write(toFile: scriptPath, atomically: true, encoding: .utf8)
        // A database with the catalog seeded and the cart tables made.
        let base = env.scratch + "/batch-base.sqlite"
        precondition(env.run(["--config", env.shippedConfig, "--db", base, "-c", "cart show"]).status == 0)

        var shellSamples: [Double] = [], oneSamples: [Double] = [], loopSamples: [Double] = [], floorSamples: [Double] = []
        var perCommandSamples: [Double] = []
        for round in 0..<rounds {
            let shellDB = try copy(base, to: env.scratch + "/batch-shell\(round).sqlite")
            let sample = env.run(["--config", env.shippedConfig, "--db", shellDB, "-f", scriptPath])
            precondition(sample.status == 0, "the batch script failed")
            shellSamples.append(sample.seconds)
            // The same script as one transaction (-1), like psql -1.
            let oneDB = try copy(base, to: env.scratch + "/batch-one\(round).sqlite")
            let one = env.run(["--config", env.shippedConfig, "--db", oneDB, "-1", "-f", scriptPath])
            precondition(one.status == 0, "the batch script failed with --single-transaction")
            oneSamples.append(one.seconds)
            let loopDB = try copy(base, to: env.scratch + "/batch-loop\(round).sqlite")
            loopSamples.append(try plainLoop(loopDB))
            let floorDB = try copy(base, to: env.scratch + "/batch-floor\(round).sqlite")
            floorSamples.append(try scriptSQLInOneTransaction(floorDB))
            let perCommandDB = try copy(base, to: env.scratch + "/batch-per-command\(round).sqlite")
            perCommandSamples.append(try scriptSQLPerCommand(perCommandDB))
        }
        let shell = median(shellSamples), single = median(oneSamples), loop = median(loopSamples), floor = median(floorSamples)
        let perCommand = median(perCommandSamples)
        // What a command's own transactions cost SQLite (per command), and so the least `-f`
        // can add to `-1 -f`: with `-1 -f` at its goal (2.5× the SQL), `-f` ≤ 1.5× it needs this
        // to be at most half of `-1 -f`'s time.
        let transactions = (perCommand - floor) / Double(commands) * 1e6
        let ratio = loop / shell, singleRatio = loop / single
        return [
            ResultRow(
                measurement: "batch, \(commands / 1000)k shop commands (-f)", figure: String(format: "%.2f s", shell),
                baseline: String(format: "GRDB loop, same writes %.2f s", loop),
                ratio: String(format: "%.2f× the loop's speed, %.0f µs/cmd", ratio, shell / Double(commands) * 1e6),
                goal: "≥ 0.5× the loop", verdict: met(ratio >= 0.5)),
            ResultRow(
                measurement: "the same, one transaction (-1 -f)", figure: String(format: "%.2f s", single),
                baseline: String(format: "GRDB loop, same writes %.2f s", loop),
                ratio: String(format: "%.2f× the loop's speed, -f %.2f× it", singleRatio, shell / single),
                goal: "-f ≤ 1.5× it", verdict: met(shell <= 1.5 * single)),
            // What -1 could be at best: every statement the script's commands run (reads too),
            // in one transaction, with nothing around them — no parsing, dispatch or output.
            ResultRow(
                measurement: "the script's SQL alone, one transaction", figure: String(format: "%.2f s", floor),
                baseline: String(format: "GRDB loop, same writes %.2f s", loop),
                ratio: String(format: "%.2f× the loop's speed; -1 is %.2f× it", loop / floor, single / floor),
                goal: "-1 ≤ 2.5× it", verdict: met(single <= 2.5 * floor)),
            // What -f could be at best: the same SQL, each command's in its own transaction.
            ResultRow(
                measurement: "the script's SQL, a transaction per command", figure: String(format: "%.2f s", perCommand),
                baseline: String(format: "one transaction %.2f s", floor),
                ratio: String(format: "+%.1f µs/cmd of transactions; -f is %.2f× it", transactions, shell / perCommand),
                goal: "", verdict: ""),
        ]
    }

    /// Every statement the script's commands run, as the plugins run them (a product read for
    /// `content show`; the writes of `plainLoop`; the cart priced after `cart add`, `cart show`
    /// and `cart remove`, as their pages show it: its lines, each line's product, the offer
    /// code), all in one transaction with statements compiled once: the floor under `-1 -f`.
    static func scriptSQLInOneTransaction(_ path: String) throws -> Double {
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        let pool = try DatabasePool(path: path, configuration: configuration)
        let start = now()
        try pool.write { db in
            var checksum = 0
            for cycle in 0..<(commands / 4) {
                let id = cycle % 60 + 1
                checksum &+= try product(id, db)
                _ = try product(id, db)
                try addLine(id, db)
                checksum &+= try price(db)
                checksum &+= try price(db)
                try removeLine(id, db)
                checksum &+= try price(db)
            }
            precondition(checksum != 0)
        }
        return Double(now() - start) / 1e9
    }

    /// The same statements with each command's in a transaction of its own, as `-f` runs them:
    /// reads on a read-only connection (`BEGIN DEFERRED`), writes on the writer
    /// (`BEGIN IMMEDIATE`), each committed — what SQLite's transactions alone add under `-f`.
    static func scriptSQLPerCommand(_ path: String) throws -> Double {
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        configuration.allowsUnsafeTransactions = true
        let pool = try DatabasePool(path: path, configuration: configuration)
        var readOnly = configuration
        readOnly.readonly = true
        let reader = try DatabaseQueue(path: path, configuration: readOnly)
        func inTransaction(_ db: Database, _ begin: String, _ work: () throws -> Int) throws -> Int {
            try db.cachedStatement(sql: begin).execute()
            let result = try work()
            try db.cachedStatement(sql: "COMMIT").execute()
            return result
        }
        let start = now()
        try pool.writeWithoutTransaction { writer in
            try reader.inDatabase { reader in
                var checksum = 0
                for cycle in 0..<(commands / 4) {
                    let id = cycle % 60 + 1
                    checksum &+= try inTransaction(reader, "BEGIN DEFERRED") { try product(id, reader) }
                    checksum &+= try inTransaction(writer, "BEGIN IMMEDIATE") {
                        _ = try product(id, writer)
                        try addLine(id, writer)
                        return try price(writer)
                    }
                    checksum &+= try inTransaction(reader, "BEGIN DEFERRED") { try price(reader) }
                    checksum &+= try inTransaction(writer, "BEGIN IMMEDIATE") {
                        try removeLine(id, writer)
                        return try price(writer)
                    }
                }
                precondition(checksum != 0)
            }
        }
        return Double(now() - start) / 1e9
    }

    /// `content show ID`'s read, and the product check of `cart add ID`: the product's price.
    static func product(_ id: Int, _ db: Database) throws -> Int {
        try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM products WHERE id = ?"), arguments: [id])?["price"] ?? 0
    }

    /// The cart priced as its page shows it: its lines, each line's product, the offer code.
    static func price(_ db: Database) throws -> Int {
        var total = 0
        let lines = try Row.fetchAll(
            db.cachedStatement(sql: "SELECT product_id, quantity FROM cart_lines WHERE owner = ? ORDER BY position"), arguments: ["guest"])
        for line in lines { total += try product(line["product_id"], db) * (line["quantity"] as Int) }
        _ = try Row.fetchOne(db.cachedStatement(sql: "SELECT offer_code FROM carts WHERE owner = ?"), arguments: ["guest"])
        return total
    }

    /// `cart add ID`'s writes after its product check, as the Cart plugin makes them.
    static func addLine(_ id: Int, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO carts (owner) VALUES (?)").execute(arguments: ["guest"])
        let current = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT quantity FROM cart_lines WHERE owner = ? AND product_id = ?"),
            arguments: ["guest", id]) ?? 0
        try db.cachedStatement(sql: """
            INSERT INTO cart_lines (owner, product_id, quantity, position)
            VALUES (?1, ?2, ?3, (SELECT coalesce(max(position), 0) + 1 FROM cart_lines WHERE owner = ?1))
            ON CONFLICT (owner, product_id) DO UPDATE SET quantity = excluded.quantity
            """).execute(arguments: ["guest", id, current + 1])
        try db.cachedStatement(sql: "UPDATE carts SET updated_at = datetime('now') WHERE owner = ?").execute(arguments: ["guest"])
    }

    /// `cart remove ID`'s writes.
    static func removeLine(_ id: Int, _ db: Database) throws {
        try db.cachedStatement(sql: "INSERT OR IGNORE INTO carts (owner) VALUES (?)").execute(arguments: ["guest"])
        try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE owner = ? AND product_id = ?").execute(arguments: ["guest", id])
        precondition(db.changesCount == 1)
    }

    static func copy(_ source: String, to target: String) throws -> String {
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: source + suffix) {
            try? FileManager.default.removeItem(atPath: target + suffix)
            try FileManager.default.copyItem(atPath: source + suffix, toPath: target + suffix)
        }
        return target
    }

    /// The writes of the script, as the Cart plugin does them: `cart add` and `cart remove`
    /// each in one write transaction (product check, cart row, quantity, upsert / delete),
    /// with statements compiled once as coordsh's data manager does.
    static func plainLoop(_ path: String) throws -> Double {
        var configuration = Configuration()
        configuration.busyMode = .timeout(2)
        let pool = try DatabasePool(path: path, configuration: configuration)
        let start = now()
        for cycle in 0..<(commands / 4) {
            let id = cycle % 60 + 1
            try pool.write { db in
                _ = try Row.fetchOne(db.cachedStatement(sql: "SELECT * FROM products WHERE id = ?"), arguments: [id])
                try addLine(id, db)
            }
            try pool.write { db in try removeLine(id, db) }
        }
        return Double(now() - start) / 1e9
    }
}
