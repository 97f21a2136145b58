import Foundation
import Testing
import TestSupport

/// A transcript: shell input with the output and exit status it must produce, in the spirit
/// of sqlite's shell tests and cram `.t` files.
///
/// ```
/// # comment lines start with '#'
/// # args: --json          ← command-line arguments for coordsh
/// # env: PW=secret        ← an environment variable for coordsh
/// $ cart add 7            ← a line fed to coordsh on stdin
/// ── Cart (1 item) ──     ← expected output (stdout and stderr, in order)
/// # restart               ← end this coordsh (stdin closed) and start a new one on the same data
/// # env: PW=other         ← right after a restart: changes the environment from then on
/// [exit 2]                ← expected exit status of the last coordsh (0 when absent)
/// ```
///
/// In expected output `$BUILD` stands for the build folder and `$TMP` for the test's private
/// home folder. `{{*}}` matches any text (a time stamp); `{{name}}` matches one word and
/// remembers it, and `{{name}}` in a later `$` line is replaced by it (a confirmation code
/// read from the outbox).
struct Transcript {
    struct Step {
        var command: String?   // nil for a restart
        var expected: [String] = []
        /// `# env:` lines after a restart: changes for the next coordsh.
        var environment: [String: String] = [:]
    }

    let name: String
    let path: String
    var header: [String] = []
    var arguments: [String] = []
    var environment: [String: String] = [:]
    var steps: [Step] = []
    var status: Int32 = 0

    init(path: String) throws {
        self.path = path
        name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line == "# restart" {
                steps.append(Step(command: nil))
            } else if line.hasPrefix("# env:"), let last = steps.last, last.command == nil, last.expected.isEmpty {
                let parts = line.dropFirst("# env:".count).trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                if parts.count == 2 { steps[steps.count - 1].environment[parts[0]] = parts[1] }
            } else if line.hasPrefix("#"), steps.isEmpty {
                header.append(line)
                if line.hasPrefix("# args:") {
                    arguments += line.dropFirst("# args:".count).split(separator: " ").map(String.init)
                } else if line.hasPrefix("# env:") {
                    let pair = line.dropFirst("# env:".count).trimmingCharacters(in: .whitespaces)
                    let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                    if parts.count == 2 { environment[parts[0]] = parts[1] }
                }
            } else if line.hasPrefix("$ ") {
                steps.append(Step(command: String(line.dropFirst(2))))
            } else if line.hasPrefix("[exit "), line.hasSuffix("]") {
                status = Int32(line.dropFirst(6).dropLast()) ?? -1
            } else if !steps.isEmpty {
                steps[steps.count - 1].expected.append(line)
            } else if !line.isEmpty {
                header.append(line)
            }
        }
        if var last = steps.popLast() {
            while last.expected.last == "" { last.expected.removeLast() }
            steps.append(last)
        }
    }

    static var directory: String { BuildProducts.packageRoot + "/Tests/TranscriptTests/transcripts" }

    static func all() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".t") }.sorted()
    }

    /// The expectations as text: `$` lines, their output, restarts.
    var expectedText: [String] { Transcript.text(steps) }

    static func text(_ steps: [Step]) -> [String] {
        steps.flatMap { step in
            (step.command.map { ["$ " + $0] } ?? ["# restart"] + step.environment.sorted { $0.key < $1.key }.map { "# env: \($0.key)=\($0.value)" })
                + step.expected
        }
    }

    /// Runs the transcript through the real coordsh and returns what happened, as steps.
    ///
    /// Each session is one coordsh process fed through a pipe, line by line, exactly as a
    /// script would be piped to it. After each line the runner sends `echo` with a marker, so
    /// that it knows where the command's output ends (a failing command ends batch mode, and
    /// then the process exits instead). An output line that matches its expectation's pattern
    /// is reported as the pattern, so only real differences show.
    ///
    /// `database`, a PostgreSQL URL, runs the same steps on that server instead of the
    /// default SQLite file: the output must be the same, except that `config` and `deps`
    /// name the server where they named the file.
    ///
    /// `config`: another configuration file than the checkout's.
    func run(database: String? = nil, config: String = BuildProducts.packageRoot + "/config/coordsh.toml") throws -> (steps: [Step], status: Int32) {
        let home = try makeTemporaryDirectory("transcript")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let arguments = (database.map { ["--db", $0] } ?? []) + self.arguments
        var environment = ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"]
        environment.merge(self.environment) { $1 }
        var captures: [String: String] = [:]
        var actual: [Step] = []
        var session = try ShellSession(
            arguments: ["--config", config] + arguments, environment: environment, home: home, database: database)
        for (index, step) in steps.enumerated() {
            guard let command = step.command else {
                actual.append(Step(command: nil, expected: try session.finish().output, environment: step.environment))
                environment.merge(step.environment) { $1 }
                session = try ShellSession(arguments: ["--config", config] + arguments, environment: environment, home: home, database: database)
                continue
            }
            let line = Transcript.substitute(command, captures)
            guard let output = try session.send(line, marker: "~~ end of step \(index) ~~") else {
                // coordsh ended: the command failed and batch mode stopped.
                let (rest, status) = try session.finish()
                actual.append(Step(command: command, expected: Transcript.match(rest, step.expected, &captures)))
                return (actual, status)
            }
            actual.append(Step(command: command, expected: Transcript.match(output, step.expected, &captures)))
        }
        let (rest, status) = try session.finish()
        if !rest.isEmpty, !actual.isEmpty { actual[actual.count - 1].expected += rest }
        return (actual, status)
    }

    /// Runs it and holds the output to the file: each differing line and the exit status are
    /// recorded as issues (named with `label`). With COORDSH_UPDATE_TRANSCRIPTS=1 and the
    /// default database it rewrites the file from what happened instead.
    func verify(database: String? = nil, config: String = BuildProducts.packageRoot + "/config/coordsh.toml", label: String? = nil) throws {
        let (steps, status) = try run(database: database, config: config)
        if database == nil, ProcessInfo.processInfo.environment["COORDSH_UPDATE_TRANSCRIPTS"] == "1" {
            try rendered(steps: steps, status: status).write(toFile: path, atomically: true, encoding: .utf8)
            return
        }
        let name = label ?? (path as NSString).lastPathComponent
        let output = Transcript.text(steps)
        if output != expectedText {
            let diff = output.difference(from: expectedText).map { change -> String in
                switch change {
                case .insert(let offset, let line, _): "line \(offset + 1) + \(line)"
                case .remove(let offset, let line, _): "line \(offset + 1) - \(line)"
                }
            }
            Issue.record("\(name): output differs (- expected, + actual):\n\(diff.joined(separator: "\n"))")
        }
        #expect(status == self.status, "\(name): exit status")
    }

    /// Replaces `{{name}}` by what was captured under that name.
    static func substitute(_ line: String, _ captures: [String: String]) -> String {
        var result = line
        for (name, value) in captures { result = result.replacingOccurrences(of: "{{\(name)}}", with: value) }
        return result
    }

    /// Pairs actual lines with expected ones; where an expected line's pattern matches, the
    /// pattern stands in for the line and its captures are kept.
    static func match(_ actual: [String], _ expected: [String], _ captures: inout [String: String]) -> [String] {
        actual.enumerated().map { index, line in
            guard index < expected.count, expected[index].contains("{{") else { return line }
            guard let bound = bind(expected[index], to: line, captures) else { return line }
            captures.merge(bound) { $1 }
            return expected[index]
        }
    }

    /// Matches `line` against `pattern`; returns the captures, or nil when it does not match.
    static func bind(_ pattern: String, to line: String, _ known: [String: String]) -> [String: String]? {
        var regex = "^", names: [String] = []
        var rest = Substring(pattern)
        while let open = rest.range(of: "{{"), let close = rest[open.upperBound...].range(of: "}}") {
            regex += NSRegularExpression.escapedPattern(for: String(rest[..<open.lowerBound]))
            let name = String(rest[open.upperBound..<close.lowerBound])
            if name == "*" {
                regex += ".*"
            } else if let value = known[name] {
                regex += NSRegularExpression.escapedPattern(for: value)
            } else {
                regex += "(\\S+)"
                names.append(name)
            }
            rest = rest[close.upperBound...]
        }
        regex += NSRegularExpression.escapedPattern(for: String(rest)) + "$"
        guard let expression = try? NSRegularExpression(pattern: regex),
            let found = expression.firstMatch(in: line, range: NSRange(line.startIndex..., in: line))
        else { return nil }
        var captures: [String: String] = [:]
        for (i, name) in names.enumerated() {
            if let range = Range(found.range(at: i + 1), in: line) { captures[name] = String(line[range]) }
        }
        return captures
    }

    /// The transcript text with `steps` and `status` as its expectations (for updating).
    func rendered(steps: [Step], status: Int32) -> String {
        var lines = header + Transcript.text(steps)
        if status != 0 { lines.append("[exit \(status)]") }
        return lines.joined(separator: "\n") + "\n"
    }
}

/// One coordsh process fed line by line through a pipe, its stdout and stderr merged in order.
struct ShellSession {
    let process = Process()
    let input = Pipe()
    let output = Pipe()
    let home: String
    private var buffer = Data()

    /// The PostgreSQL URL given with `--db`, which `config` shows where a SQLite run shows
    /// the default file (and `deps` names its data manager): reported as the SQLite run's,
    /// so that one expectation fits both.
    let database: String?

    init(arguments: [String], environment: [String: String], home: String, database: String? = nil) throws {
        self.home = home
        self.database = database
        process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
        process.arguments = arguments
        process.environment = childEnvironment(environment)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
        // A transcript that hangs fails instead of hanging the suite.
        let process = self.process
        let watchdog = Thread {
            Thread.sleep(forTimeInterval: 120)
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        watchdog.start()
    }

    /// Sends `line` and returns its output, or nil when coordsh exited before the marker.
    mutating func send(_ line: String, marker: String) throws -> [String]? {
        try input.fileHandleForWriting.write(contentsOf: Data("\(line)\necho \(marker)\n".utf8))
        // The marker's line is `~~ end ~~`, or a JSON document holding it under --json.
        let end = Data(marker.utf8)
        while true {
            if let range = buffer.range(of: end), let newline = buffer[range.upperBound...].firstIndex(of: UInt8(ascii: "\n")) {
                let lineStart = buffer[..<range.lowerBound].lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? buffer.startIndex
                let text = buffer[..<lineStart]
                buffer.removeSubrange(..<(newline + 1))
                return lines(text)
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return nil }
            buffer.append(chunk)
        }
    }

    /// Closes stdin, reads what is left and waits for the exit status.
    mutating func finish() throws -> (output: [String], status: Int32) {
        try? input.fileHandleForWriting.close()
        buffer.append(output.fileHandleForReading.readDataToEndOfFile())
        process.waitUntilExit()
        let rest = lines(buffer)
        buffer.removeAll()
        return (rest, process.terminationStatus)
    }

    private func lines(_ data: Data) -> [String] {
        var text = String(decoding: data, as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        guard !text.isEmpty else { return [] }
        return text.split(separator: "\n", omittingEmptySubsequences: false).map {
            var line = $0.replacingOccurrences(of: BuildProducts.directory, with: "$BUILD").replacingOccurrences(of: home, with: "$TMP")
            if let database {
                line = line.replacingOccurrences(of: "\(database)  (--db)", with: "$TMP/data/coordsh/shop.sqlite  (default)")
                    .replacingOccurrences(of: "(PostgresDataManager)", with: "(SQLiteDataManager)")
            }
            return line
        }
    }
}
