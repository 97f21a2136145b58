@_spi(Host) import CoordSDK
import CoordSession

/// How a served scene asks for a password: its person is on the other side of a socket, and
/// the app cannot stop for them (every other scene would wait). So a prompt the answers of the
/// request do not cover ends the command, the client asks its person and sends the command
/// again with the answer (PROTOCOL.md, `secret`). Handlers ask before they change anything,
/// which makes the second run the only one that does.
@MainActor
final class RemoteSecrets: SecretPrompting {
    /// The answers the current request brought, in prompt order.
    var answers: [String] = []
    /// The prompt the current command stopped at, if any.
    private(set) var pending: SecretRequest?

    func begin(with answers: [String]) {
        self.answers = answers
        pending = nil
    }

    func secret(_ prompt: String, confirm: Bool) throws -> String {
        if !answers.isEmpty { return answers.removeFirst() }
        pending = SecretRequest(prompt: prompt, confirm: confirm)
        throw CoordError.failed("\(prompt): the client has not answered yet")
    }
}
