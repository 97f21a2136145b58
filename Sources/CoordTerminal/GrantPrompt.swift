import CoordSession
import Foundation

extension Shell {
    /// Asks the person, once per plugin and file, about what an outside plugin declared and
    /// nobody granted: one prompt listing all of it, `y` grants it all, anything else refuses
    /// it (remembered for that file; `plugins grant NAME` grants it later). Only an interactive
    /// shell asks — a script never does, and what was not granted stays denied. A shell that
    /// cannot remember an answer (its own process runs plugin code: `--single-process`) says
    /// once what is asked and how to grant it instead.
    func askGrants(_ backend: ShellBackend, editor: LineEditor) {
        grantsPending = false
        let requests = backend.grantRequests()
        guard !requests.isEmpty else { return }
        guard backend.remembersGrants else {
            for request in requests where grantRequestsNoted.insert(request.plugin + "\t" + request.sha256).inserted {
                printWarning(
                    "plugin '\(request.plugin)' asks for \(request.asks.map(\.description).joined(separator: ", ")), not granted: "
                        + "this shell runs plugin code in its own process and cannot remember grants; "
                        + "the default (supervised) shell asks, or add it to the config's [plugins.grants]")
            }
            return
        }
        for request in requests {
            printLines(request.question)
            let granted: Bool
            switch editor.read(prompt: "grant all of this to \(request.plugin)? [y/N] ") {
            case .line(let answer):
                granted = ["y", "yes"].contains(answer.trimmingCharacters(in: .whitespaces).lowercased())
            case .interrupted, .yielded, .end:
                // No answer is no grant, and nothing remembered: asked again next time.
                printLines(["not answered: \(request.plugin) is not granted it for now"])
                continue
            }
            let reply = backend.answer(request, granted: granted)
            if let error = reply.error {
                printError(error.message, code: error.code)
            } else {
                printLines(reply.result.lines)
                printNotices(reply.notices)
            }
        }
    }
}
