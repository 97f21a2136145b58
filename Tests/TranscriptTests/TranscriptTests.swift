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
        let transcript = try Transcript(path: Transcript.directory + "/" + file)
        let (steps, status) = try transcript.run()
        if ProcessInfo.processInfo.environment["COORDSH_UPDATE_TRANSCRIPTS"] == "1" {
            try transcript.rendered(steps: steps, status: status).write(toFile: transcript.path, atomically: true, encoding: .utf8)
            return
        }
        let output = Transcript.text(steps)
        if output != transcript.expectedText {
            let diff = output.difference(from: transcript.expectedText).map { change -> String in
                switch change {
                case .insert(let offset, let line, _): "line \(offset + 1) + \(line)"
                case .remove(let offset, let line, _): "line \(offset + 1) - \(line)"
                }
            }
            Issue.record("\(file): output differs (- expected, + actual):\n\(diff.joined(separator: "\n"))")
        }
        #expect(status == transcript.status, "\(file): exit status")
    }

    @Test("there are transcripts to run")
    func present() {
        #expect(Transcript.all().count >= 5)
    }
}
