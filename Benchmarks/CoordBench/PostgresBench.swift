import CLibPQ
import Foundation

/// The batch script of `BatchBench` on a PostgreSQL server (a throwaway cluster on a Unix
/// socket, `scripts/pg-cluster`), against the same writes done by a plain loop through the
/// same client library (libpq, one SERIALIZABLE transaction per command, as the data manager
/// runs them); and commands per second with one shell and with four at once on one server.
enum PostgresBench {
    static func run(_ env: BenchEnvironment) throws -> [ResultRow] {
        let parent = try env.folder("pg")
        chmod(parent, 0o711)
        let cluster = parent + "/cluster"
        guard let admin = pgCluster(env, ["start", cluster]) else {
            return [ResultRow(measurement: "PostgreSQL", figure: "skipped", baseline: "", ratio: "no server: \(pgCluster(env, ["why"]) ?? "?")", goal: "", verdict: nil)]
        }
        defer { _ = pgCluster(env, ["stop", cluster]) }
        let scriptPath = env.scratch + "/batch.txt"
        try BatchBench.script().write(toFile: scriptPath, atomically: true, encoding: .utf8)
        func database(_ name: String) -> String {
            _ = runPsql(admin, "CREATE DATABASE \(name)")
            let url = "postgresql://coordsh@/\(name)?host=\(cluster)"
            precondition(env.run(["--config", env.shippedConfig, "--db", url, "-c", "cart show"]).status == 0)
            return url
        }

        // One shell, the 100k-command script.
        let shellURL = database("batch_shell")
        let shell = env.run(["--config", env.shippedConfig, "--db", shellURL, "-f", scriptPath])
        precondition(shell.status == 0, "the batch script failed on PostgreSQL")
        let loop = try plainLoop(database("batch_loop"))
        let commands = Double(BatchBench.commands)

        // Four shells at once, a quarter of the script each, each logged in as its own user.
        let sharedURL = database("batch_four")
        let users = (0..<4).map { "bench\($0)@example.com" }
        var setup = ["--config", env.shippedConfig, "--db", sharedURL, "--password-env", "PW"]
        for user in users { setup += ["-c", "account create \(user)"] }
        var passwordEnvironment = env.environment
        passwordEnvironment["PW"] = "bench password"
        precondition(runMeasured(env.coordsh, setup, environment: passwordEnvironment, output: env.scratch + "/outbox.txt").status == 0)
        let outbox = runMeasured(env.coordsh, ["--config", env.shippedConfig, "--db", sharedURL, "-c", "account outbox"], environment: env.environment, output: env.scratch + "/outbox.txt")
        precondition(outbox.status == 0)
        let codes = ((try? String(contentsOfFile: env.scratch + "/outbox.txt", encoding: .utf8)) ?? "")
            .components(separatedBy: "account confirm ").dropFirst().map { String($0.prefix(6)) }
        precondition(runMeasured(env.coordsh, ["--config", env.shippedConfig, "--db", sharedURL] + Set(codes).flatMap { ["-c", "account confirm \($0)"] }, environment: env.environment).status == 0)
        let quarter = BatchBench.script().split(separator: "\n").prefix(BatchBench.commands / 4).joined(separator: "\n")
        var scripts: [String] = []
        for (index, user) in users.enumerated() {
            let path = env.scratch + "/quarter\(index).txt"
            try ("account login \(user)\n" + quarter + "\n").write(toFile: path, atomically: true, encoding: .utf8)
            scripts.append(path)
        }
        let start = now()
        let processes = scripts.map { path in
            let process = Process()
            process.executableURL = URL(fileURLWithPath: env.coordsh)
            process.arguments = ["--config", env.shippedConfig, "--db", sharedURL, "--password-env", "PW", "-f", path]
            process.environment = passwordEnvironment
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try? process.run()
            return process
        }
        for process in processes { process.waitUntilExit(); precondition(process.terminationStatus == 0, "a concurrent shell failed") }
        let four = Double(now() - start) / 1e9

        let ratio = loop / shell.seconds
        return [
            ResultRow(
                measurement: "batch on PostgreSQL, \(BatchBench.commands / 1000)k commands (-f)", figure: String(format: "%.2f s", shell.seconds),
                baseline: String(format: "libpq loop, same writes %.2f s", loop),
                ratio: String(format: "%.2f× the loop's speed, %.0f µs/cmd", ratio, shell.seconds / commands * 1e6),
                goal: "≥ 0.5× the loop", verdict: met(ratio >= 0.5)),
            ResultRow(
                measurement: "PostgreSQL, 1 shell", figure: String(format: "%.0f cmd/s", commands / shell.seconds),
                baseline: "", ratio: "", goal: "", verdict: nil),
            ResultRow(
                measurement: "PostgreSQL, 4 shells at once (4 users)", figure: String(format: "%.0f cmd/s", commands / four),
                baseline: String(format: "1 shell %.0f cmd/s", commands / shell.seconds),
                ratio: String(format: "%.2f× one shell", shell.seconds / four), goal: "", verdict: nil),
        ]
    }

    /// `scripts/pg-cluster ARGS`: its first line of output (the URL, or why not), nil when it failed.
    static func pgCluster(_ env: BenchEnvironment, _ arguments: [String]) -> String? {
        let output = env.scratch + "/pg-cluster.out"
        let sample = runMeasured(env.packageRoot + "/scripts/pg-cluster", arguments, environment: env.environment, output: output)
        let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
        return sample.status == 0 ? String(text.split(separator: "\n").first ?? "") : nil
    }

    static func runPsql(_ url: String, _ sql: String) -> Bool {
        guard let connection = PQconnectdb(url) else { return false }
        defer { PQfinish(connection) }
        let result = PQexec(connection, sql)
        defer { PQclear(result) }
        return PQresultStatus(result) == PGRES_COMMAND_OK
    }

    /// The script's writes as the Cart plugin issues them, each command one SERIALIZABLE
    /// transaction, through libpq's PQexecParams as the data manager calls it.
    static func plainLoop(_ url: String) throws -> Double {
        guard let connection = PQconnectdb(url), PQstatus(connection) == CONNECTION_OK else { fatalError("cannot connect to \(url)") }
        defer { PQfinish(connection) }
        func exec(_ sql: String, _ values: [String] = []) -> Int {
            let buffers = values.map { strdup($0) }
            defer { for buffer in buffers { free(buffer) } }
            let pointers = buffers.map { UnsafePointer($0) }
            let result = pointers.withUnsafeBufferPointer { PQexecParams(connection, sql, Int32(values.count), nil, $0.baseAddress, nil, nil, 0) }
            defer { PQclear(result) }
            let status = PQresultStatus(result)
            precondition(status == PGRES_COMMAND_OK || status == PGRES_TUPLES_OK, String(cString: PQerrorMessage(connection)))
            return PQntuples(result) > 0 ? Int(String(cString: PQgetvalue(result, 0, 0))) ?? 0 : Int(String(cString: PQcmdTuples(result))) ?? 0
        }
        let stamp = "2026-11-23 12:00:00"
        let start = now()
        for cycle in 0..<(BatchBench.commands / 4) {
            let id = String(cycle % 60 + 1)
            _ = exec("BEGIN ISOLATION LEVEL SERIALIZABLE")
            _ = exec("SELECT * FROM products WHERE id = $1", [id])
            _ = exec("INSERT INTO carts (owner, updated_at) VALUES ($1, $2) ON CONFLICT (owner) DO NOTHING", ["guest", stamp])
            let current = exec("SELECT quantity FROM cart_lines WHERE owner = $1 AND product_id = $2", ["guest", id])
            _ = exec("""
                INSERT INTO cart_lines (owner, product_id, quantity, position)
                VALUES ($1, $2, $3, (SELECT coalesce(max(position), 0) + 1 FROM cart_lines WHERE owner = $1))
                ON CONFLICT (owner, product_id) DO UPDATE SET quantity = excluded.quantity
                """, ["guest", id, String(current + 1)])
            _ = exec("UPDATE carts SET updated_at = $1 WHERE owner = $2", [stamp, "guest"])
            _ = exec("COMMIT")
            _ = exec("BEGIN ISOLATION LEVEL SERIALIZABLE")
            _ = exec("INSERT INTO carts (owner, updated_at) VALUES ($1, $2) ON CONFLICT (owner) DO NOTHING", ["guest", stamp])
            precondition(exec("DELETE FROM cart_lines WHERE owner = $1 AND product_id = $2", ["guest", id]) == 1)
            _ = exec("COMMIT")
        }
        return Double(now() - start) / 1e9
    }
}
