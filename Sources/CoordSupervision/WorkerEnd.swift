/// How a worker's end is told to each scene's person: one wording for every front (the
/// supervised shell's one scene, a supervised `serve`'s clients), so that what a person reads
/// after a crash does not depend on which front they came through.
package struct WorkerEnd: Sendable, Equatable {
    /// What the worker was running, how it ended, its "Fatal error" line, a quarantine, and
    /// what came of it (restarted, or stopped and why).
    package let message: String
    /// A new worker has every scene back.
    package let restarted: Bool
    /// The scene whose command was running when it ended; nil for a kill from outside or an
    /// end between commands.
    package let runningScene: String?
    /// The plugin that answers for the end (its trap or its hang), nil for a built-in's or a
    /// kill from outside: what `serve --metrics` counts per plugin.
    package var blamed: String? = nil
    /// It stopped answering and was killed, rather than ending by itself.
    package var hung = false

    /// What a scene's person is told. `ownCommand`: the answer to the command that was
    /// running in this scene (or, when nobody's was, to a request that may or may not have run
    /// before the end) — the crash and where the scene is now. Otherwise a note (or the
    /// answer to a request that waited behind another scene's command): whose command it was
    /// and that this scene was restored.
    @MainActor
    package func line(for scene: SceneLink, ownCommand: Bool) -> String {
        let place = restarted ? scene.route.map { ", back at \($0)" } ?? "" : ""
        if ownCommand { return message + place }
        let whose = runningScene == nil ? "" : "another client's command: "
        return whose + message + (restarted ? "; your scene was restored" + place : "")
    }
}
