import Foundation
import TestSupport

/// A transcript: shell input with the output and exit status it must produce, in the spirit
/// of sqlite's shell tests and cram `.t` files.
///
/// ```
/// # comment lines start with '#'; '# args: --json' adds command-line arguments
/// $ cart add 7            ← a line fed to coordsh on stdin
/// ── Cart (1 item) ──     ← expected output (stdout and stderr, in order)
/// [exit 2]                ← expected exit status (0 when absent)
/// ```
///
/// In the expected output `$BUILD` stands for the build folder and `$TMP` for the test's
/// private home folder, so transcripts do not depend on where the tree is checked out.
struct Transcript {
    let name: String
    let path: String
    var comments: [String] = []
    var arguments: [String] = []
    var input: [String] = []
    var expected: [String] = []
    var status: Int32 = 0

    init(path: String) throws {
        self.path = path
        name = ((path as NSString).lastPathComponent as NSString).deletingPathExtension
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if line.hasPrefix("# args:") {
                arguments += line.dropFirst("# args:".count).split(separator: " ").map(String.init)
                comments.append(line)
            } else if line.hasPrefix("#") {
                comments.append(line)
            } else if line.hasPrefix("$ ") {
                input.append(String(line.dropFirst(2)))
                expected.append(line)
            } else if line.hasPrefix("[exit "), line.hasSuffix("]") {
                status = Int32(line.dropFirst(6).dropLast()) ?? -1
            } else {
                expected.append(line)
            }
        }
        while expected.last == "" { expected.removeLast() }
    }

    static var directory: String { BuildProducts.packageRoot + "/Tests/TranscriptTests/transcripts" }

    static func all() -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [])
            .filter { $0.hasSuffix(".t") }.sorted()
    }

    /// Runs coordsh on the input and returns the output with each command's `$` line put back
    /// in front of what it printed, so that the result reads like the transcript itself.
    ///
    /// The script is fed through stdin exactly as a user would pipe it. To place each line of
    /// output after the command that printed it, the prefixes of the script are run in turn
    /// (one, two, … commands) and each run's new lines are attributed to its last command:
    /// exact, and cheap for transcripts of a few dozen lines.
    func run() throws -> (output: [String], status: Int32) {
        let home = try makeTemporaryDirectory("transcript")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let config = BuildProducts.packageRoot + "/config/coordsh.toml"
        var results: [String] = []
        var status: Int32 = 0
        var previous: [String] = []
        for count in 0...input.count {
            let result = try TestSupport.run(
                BuildProducts.coordsh, ["--config", config] + arguments,
                input: input.prefix(count).map { $0 + "\n" }.joined(),
                environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"], mergeOutput: true)
            let lines = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map {
                $0.replacingOccurrences(of: BuildProducts.directory, with: "$BUILD").replacingOccurrences(of: home, with: "$TMP")
            }
            if count > 0 { results.append("$ " + input[count - 1]) }
            results += lines.dropFirst(previous.count)
            previous = lines
            status = result.status
            if result.status != 0 { break }
        }
        return (results, status)
    }

    /// The transcript text with `output` and `status` as its expectations (for updating).
    func rendered(output: [String], status: Int32) -> String {
        var lines = comments + output
        if status != 0 { lines.append("[exit \(status)]") }
        return lines.joined(separator: "\n") + "\n"
    }
}
