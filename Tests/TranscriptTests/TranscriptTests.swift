import Foundation
import TestSupport
import Testing

/// Runs every `transcripts/*.t` file through the real `coordsh` binary with the real plugins.
/// Set COORDSH_UPDATE_TRANSCRIPTS=1 to rewrite the expectations from the actual output (then
/// read the diff before committing it).
@Suite("Shell transcripts")
struct TranscriptTests {
    @Test("transcript", arguments: Transcript.all())
    func transcript(file: String) throws {
        try check(file, database: nil)
    }

    /// The same transcripts, the same expected output, on a PostgreSQL server (a fresh
    /// database each).
    @Test("transcript on PostgreSQL", .enabled(if: PostgresServer.isAvailable, Comment(rawValue: PostgresServer.skipReason)),
          arguments: Transcript.all())
    func transcriptOnPostgres(file: String) throws {
        try check(file, database: PostgresServer.createDatabase("transcript"))
    }

    func check(_ file: String, database: String?) throws {
        try Transcript(path: Transcript.directory + "/" + file).verify(database: database, label: file + (database == nil ? "" : " on PostgreSQL"))
    }

    @Test("every built-in command and every plugin command the shell lists is run by some transcript")
    func everyCommandHasATranscript() throws {
        let home = try makeTemporaryDirectory("transcripts")
        defer { try? FileManager.default.removeItem(atPath: home) }
        let help = try run(BuildProducts.coordsh, ["--json", "-c", "help"], environment: ["HOME": home, "XDG_DATA_HOME": home + "/data"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(help.stdout.utf8)) as? [String: Any])
        let builtins = ((document["commands"] as? [[String: Any]]) ?? []).compactMap { $0["name"] as? String }
        let verbs = ((document["features"] as? [[String: Any]]) ?? []).flatMap { feature in
            ((feature["verbs"] as? [String]) ?? []).map { "\(feature["prefix"] as? String ?? "") \($0)" }
        }
        #expect(builtins.count >= 13 && verbs.count >= 18, "help lists the shell's commands: \(builtins) \(verbs)")
        var commands: Set<String> = []
        for file in Transcript.all() {
            for step in try Transcript(path: Transcript.directory + "/" + file).steps {
                guard let words = step.command?.split(separator: " ").map(String.init), let first = words.first else { continue }
                commands.insert(first)
                if words.count > 1 { commands.insert("\(first) \(words[1])") }
            }
        }
        let missing = (builtins + verbs).filter { !commands.contains($0) }
        #expect(missing.isEmpty, "commands no transcript runs: \(missing)")
    }
}
