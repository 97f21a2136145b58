import CoordRuntime
@_spi(Host) import CoordSDK

/// What the shell's loop talks to: an app in this process (`LocalBackend`), or a scene of a
/// `coordsh serve` over its socket (`RemoteBackend`). The loop — batch, script, interactive,
/// text or JSON, exit statuses — is the same for both, which is why `coordsh connect` behaves
/// like `coordsh`.
@MainActor
package protocol ShellBackend: AnyObject {
    /// Runs one command line.
    func run(_ line: String) -> Reply
    /// What Tab offers for `word`, the partial word at the end of `line`.
    func completions(line: String, word: String) -> [String]
    /// True when `line` carries a secret value and must not enter the history.
    func isSecret(_ line: String) -> Bool
    /// The route of the page the session is on, for the prompt.
    var route: String? { get }
    /// The page as text, for the start of an interactive session; nil before any page.
    var startPage: [String]? { get }
    /// Readable when something arrives unasked (a plugin dropped into a folder, a server's
    /// push); the interactive prompt waits on it next to the terminal.
    var watchDescriptor: Int32? { get }
    /// What arrived unasked since the last look; empty when nothing did.
    func takePushed() -> [Reply.Notice]
    /// Outside plugins asking for what the person has neither granted nor refused for their
    /// file; an interactive shell asks about each once.
    func grantRequests() -> [GrantRequest]
    /// Whether this shell can remember an answer (a process that runs plugin code cannot
    /// write the person's grants).
    var remembersGrants: Bool { get }
    /// Records the person's answer to `request` and puts it in force.
    func answer(_ request: GrantRequest, granted: Bool) -> Reply
}

/// The shell's session on an app in this very process.
@MainActor
package final class LocalBackend: ShellBackend {
    let session: Session
    /// Tells when a plugin file arrives in a plugin folder; nil when not watched.
    let watcher: PluginWatcher?

    package init(session: Session, watcher: PluginWatcher?) {
        self.session = session
        self.watcher = watcher
    }

    package func run(_ line: String) -> Reply { session.run(line) }
    package func completions(line: String, word: String) -> [String] { session.completions(line: line, word: word) }
    package func isSecret(_ line: String) -> Bool { session.isSecret(line) }
    package var route: String? { session.currentRoute }
    package var startPage: [String]? { session.currentView.map(session.render) }
    package var watchDescriptor: Int32? { watcher?.descriptor }

    /// Loads the plugins that arrived in a plugin folder since the last look: a note for each,
    /// a warning for each refusal, and what their arrival replayed.
    package func takePushed() -> [Reply.Notice] {
        guard let watcher, watcher.drain() else { return [] }
        let (loaded, refused) = session.loader.rescan()
        var notices = loaded.map {
            Reply.Notice(text: "loaded plugin \($0.origin.name) \($0.origin.version) from \($0.origin.path)", isWarning: false, kind: .pluginLoaded)
        }
        notices += refused.map { Reply.Notice(text: $0.description, isWarning: true, kind: .pluginRefused) }
        return notices + session.drainEvents().map(Reply.Notice.init)
    }

    package func grantRequests() -> [GrantRequest] { session.grantRequests() }
    package var remembersGrants: Bool { session.host.grantStore?.isWritable == true }

    package func answer(_ request: GrantRequest, granted: Bool) -> Reply {
        do {
            try session.host.grantStore?.record(request, granted: granted)
        } catch {
            return Reply(error: ShellError("\(error)", code: "grants", status: .failure))
        }
        session.host.regrant()
        return Reply(result: CommandResult(lines: [GrantRequest.answered(request, granted: granted)]))
    }
}
