import Foundation
import TestSupport
import Testing

/// The non-interactive contract scripts rely on: exit statuses, `-f`, `--keep-going`,
/// `--strict-plugins`, `--open`, and `--json` parsed as JSON.
@Suite("Command line and exit statuses")
struct CommandLineTests {
    static let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    func coordsh(_ arguments: [String], input: String = "", home: String) throws -> RunResult {
        try run(BuildProducts.coordsh, ["--config", Self.config] + arguments, input: input,
                environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
    }

    /// Lines that call a built-in the way its usage (as `help --json` lists it) says it may be
    /// called: each alternative, with its optional parts left out and put in.
    static func linesFollowing(_ usage: String) -> [String] {
        let samples = ["ROUTE": "content/catalog", "PATH": "/nonexistent/libnone.so", "NAME": "cart", "WHAT…": "read users",
                       "PREFIX": "cart", "VERB": "add", "COMMAND…": "cart add 3", "TEXT": "hello"]
        let name = String(usage.prefix { $0 != " " })
        var rest = usage.dropFirst(name.count).trimmingCharacters(in: .whitespaces)
        var alternatives = [rest]
        if rest.hasPrefix("["), rest.hasSuffix("]") {
            rest = String(rest.dropFirst().dropLast())
            alternatives = [""] + rest.components(separatedBy: " | ")
        }
        func fill(_ text: String) -> String {
            text.split(separator: " ").map { samples[String($0)] ?? String($0) }.joined(separator: " ")
        }
        return alternatives.flatMap { alternative -> [String] in
            // Optional parts in, and (innermost first) out.
            let full = alternative.replacingOccurrences(of: "[", with: "").replacingOccurrences(of: "]", with: "")
            let minimal = alternative.replacingOccurrences(of: #"\s*\[.*\]"#, with: "", options: .regularExpression)
            return Set([full, minimal]).sorted().map { "\(name) \(fill($0))".trimmingCharacters(in: .whitespaces) }
        }
    }

    @Test("every built-in takes every line its usage allows: help's usage and the parser come from one declaration")
    func builtinUsageIsWhatParses() throws {
        let home = try makeTemporaryDirectory("usage")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let help = try coordsh(["--json", "-c", "help"], home: home)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any])
        let usages = (document["commands"] as? [[String: Any]] ?? []).compactMap { $0["usage"] as? String }
        #expect(usages.count >= 14, "\(usages)")
        let lines = usages.filter { !$0.hasPrefix("quit") }.flatMap(Self.linesFollowing)
        #expect(lines.contains("plugins grant cart read users") && lines.contains("help cart add") && lines.contains("open content/catalog"), "\(lines)")
        let result = try coordsh(["--keep-going"], input: lines.joined(separator: "\n") + "\n", home: home)
        let refusals = result.stderr.split(separator: "\n").filter { $0.contains("usage:") || $0.contains("takes no arguments") }
        #expect(refusals.isEmpty, "lines their usage allows were refused: \(refusals)\nlines: \(lines)")
        // And the lines it does not allow are refused with it.
        let wrong = try coordsh(["--keep-going"], input: "pages now\nplugins load\nhelp a b c\n", home: home)
        #expect(wrong.stderr == """
            coordsh: error: pages takes no arguments, got 'now'
            coordsh: error: usage: plugins load PATH
            coordsh: error: usage: help [PREFIX [VERB] | ROUTE]

            """, "\(wrong.stderr)")
    }

    @Test("exit statuses: 0 success, 1 runtime failure, 2 usage error, 3 refused plugin with --strict-plugins")
    func exitStatuses() throws {
        let home = try makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: home) }
        #expect(try coordsh(["-c", "content list"], home: home).status == 0)
        // A batch stops at its first failing command, with that command's status and one line.
        let failures: [(String, Int32, String)] = [
            ("cart checkout", 1, "cart checkout: the cart is empty; 'cart add PRODUCT_ID' first"),
            ("crat add 7", 2, "unknown command 'crat' (did you mean 'cart add 7'?); 'help' lists the commands"),
            ("cart ad 7", 2, "'cart' has no command 'ad' (did you mean 'cart add'?); try 'help cart'"),
            ("open content/nope", 2, "unknown page 'content/nope'; 'pages' lists every route"),
        ]
        for (command, status, message) in failures {
            let result = try coordsh(["-c", command, "-c", "echo not reached"], home: home)
            #expect(result.status == status, "\(command)")
            #expect(result.stderr == "coordsh: error: \(message)\n", "\(command)")
            #expect(!result.stdout.contains("not reached"), "\(command)")
        }
        // A password with no terminal and no --password-env, or one naming an unset variable.
        let noTerminal = try coordsh(["-c", "account create x@example.com"], home: home)
        #expect(noTerminal.status == 1)
        #expect(noTerminal.stderr == "coordsh: error: a password is needed: run coordsh at a terminal, or pass --password-env VAR naming a variable that holds it\n")
        let unset = try coordsh(["--password-env", "COORDSH_UNSET_PW", "-c", "account create x@example.com"], home: home)
        #expect(unset.status == 1)
        #expect(unset.stderr == "coordsh: error: --password-env COORDSH_UNSET_PW: the environment variable COORDSH_UNSET_PW is not set or empty\n")
        let quit = try coordsh(["-c", "echo before", "-c", "quit", "-c", "echo after"], home: home)
        #expect(quit.status == 0)
        #expect(quit.stdout == "before\n", "nothing runs after quit")
        let badFlag = try coordsh(["--bogus"], home: home)
        #expect(badFlag.status == 2)
        #expect(badFlag.stderr.hasPrefix("coordsh: error: Unknown option '--bogus'\n"))
        #expect(try coordsh(["-c", "help", "-f", "x"], home: home).status == 2)

        let plugins = home + "/plugins"
        try FileManager.default.createDirectory(atPath: plugins, withIntermediateDirectories: true)
        try "not a plugin".write(toFile: plugins + "/libBroken.so", atomically: true, encoding: .utf8)
        let lenient = try coordsh(["--plugin-dir", plugins, "-c", "content list"], home: home)
        #expect(lenient.status == 0)
        #expect(lenient.stderr.contains("refused plugin \(plugins)/libBroken.so"))
        let strict = try coordsh(["--plugin-dir", plugins, "--strict-plugins", "-c", "content list"], home: home)
        #expect(strict.status == 3)
        #expect(strict.stdout.isEmpty, "no command runs after a refusal under --strict-plugins")
        #expect(strict.stderr.hasSuffix("coordsh: error: --strict-plugins: 1 plugin was refused\n"))
        // The same when the plugins load in a supervised worker.
        let supervised = try coordsh(["--supervised", "--plugin-dir", plugins, "--strict-plugins", "-c", "content list"], home: home)
        #expect(supervised.status == 3)
        #expect(supervised.stdout.isEmpty, "no command runs after a refusal under --strict-plugins")
        #expect(supervised.stderr.hasPrefix("coordsh: refused plugin \(plugins)/libBroken.so"), "\(supervised.stderr)")
        #expect(supervised.stderr.hasSuffix("coordsh: error: --strict-plugins: 1 plugin was refused\n"), "\(supervised.stderr)")
    }

    @Test("-f runs a file of commands with comments, names file and line on error, and --keep-going goes on")
    func scriptFile() throws {
        let home = try makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let script = home + "/shop.coordsh"
        try """
            # fill the cart
            cart add 1 2

            cart add 999   # no such product
            cart show
            """.write(toFile: script, atomically: true, encoding: .utf8)
        let stopped = try coordsh(["-f", script], home: home)
        #expect(stopped.status == 1)
        #expect(stopped.stderr == "coordsh: error: \(script):4: cart add: there is no product 999; 'content list' shows the catalog\n")
        #expect(!stopped.stdout.contains("cart checkout — check out\n── Cart"), "stopped before cart show")
        let kept = try coordsh(["-f", script, "--keep-going"], home: home)
        #expect(kept.status == 1)
        #expect(kept.stdout.components(separatedBy: "── Cart (").count == 3, "cart add and cart show both ran")
        #expect(try coordsh(["-f", home + "/missing"], home: home).status == 2)
    }

    @Test("-f reads a script saved with Windows line ends line by line, as piped stdin does, and names its lines the same")
    func scriptWithWindowsLineEnds() throws {
        let home = try makeTemporaryDirectory("crlf")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let script = home + "/crlf.coordsh"
        try "echo one\r\n# a comment\r\necho two\r\ncart add 999\r\necho three".write(toFile: script, atomically: true, encoding: .utf8)
        let result = try coordsh(["-f", script], home: home)
        #expect(result.stdout == "one\ntwo\n")
        #expect(result.status == 1)
        #expect(result.stderr == "coordsh: error: \(script):4: cart add: there is no product 999; 'content list' shows the catalog\n")
        let kept = try coordsh(["-f", script, "--keep-going"], home: home)
        #expect(kept.stdout == "one\ntwo\nthree\n", "the last line, with no line end, runs too")
    }

    @Test("a script's output and its errors, both into one pipe, come in the order of its commands: -f and -c, in one process and supervised", arguments: ["--single-process", "--supervised"])
    func outputAndErrorsInOrder(mode: String) throws {
        let home = try makeTemporaryDirectory("order")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let commands = ["echo one", "cart add 999", "echo two", "nosuch thing", "echo three", "cart add 1", "echo four"]
        let script = home + "/order.coordsh"
        try (commands.joined(separator: "\n") + "\n").write(toFile: script, atomically: true, encoding: .utf8)
        let environment = ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"]
        for source in [["-f", script], commands.flatMap { ["-c", $0] }] {
            let result = try run(
                BuildProducts.coordsh, [mode, "--config", Self.config, "--keep-going"] + source,
                environment: environment, mergeOutput: true)
            #expect(result.status == 1)
            let lines = result.stdout.split(separator: "\n").map(String.init)
            let marks = lines.filter { ["one", "two", "three", "four"].contains($0) || $0.hasPrefix("coordsh: error:") || $0.hasPrefix("── Cart") }
            #expect(marks.count == 7, "\(mode) \(source[0]): \(result.stdout)")
            guard marks.count == 7 else { continue }
            #expect(marks[0] == "one" && marks[2] == "two" && marks[4] == "three" && marks[6] == "four", "\(mode) \(source[0]): \(marks)")
            #expect(marks[1].contains("there is no product 999") && marks[3].contains("nosuch"), "\(mode) \(source[0]): \(marks)")
            #expect(marks[5].hasPrefix("── Cart ("), "\(mode) \(source[0]): \(marks)")
        }
    }

    @Test("--json prints exactly one JSON document per command, errors included")
    func json() throws {
        let home = try makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try coordsh(
            ["--json", "--keep-going", "-c", "content show 9", "-c", "cart add", "-c", "cart add 999", "-c", "help cart add", "-c", "nonsense"],
            home: home)
        #expect(result.status == 1)
        let documents = try result.stdout.split(separator: "\n").map {
            try #require(try JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any])
        }
        #expect(documents.count == 5)
        #expect(documents.map { $0["ok"] as? Bool } == [true, true, false, true, false])
        #expect((documents[0]["page"] as? [String: Any])?["route"] as? String == "content/product id=9")
        #expect(((documents[1]["page"] as? [String: Any])?["fields"] as? [String: String])?["total"] == "4500")
        #expect((documents[2]["error"] as? [String: String])?["code"] == "failed")
        #expect((documents[4]["error"] as? [String: String])?["code"] == "unknown_command")
        #expect(documents[3]["usage"] as? String == "cart add [PRODUCTID] [QUANTITY]")
        #expect(result.stderr.split(separator: "\n").count == 2, "each error is also one line on stderr")
    }

    @Test("--open starts at a deep link in batch mode; no colour when stdout is not a terminal")
    func openAndColour() throws {
        let home = try makeTemporaryDirectory("cli")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let result = try run(
            BuildProducts.coordsh, ["--config", Self.config, "--open", "coordsh://cart/offer?code=WELCOME10", "-c", "where"],
            environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "TERM": "xterm-256color"])
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("── Offer WELCOME10 ──\n"))
        #expect(result.stdout.contains("route: cart/offer code=WELCOME10"))
        #expect(!result.stdout.contains("\u{1B}["))
    }
}
