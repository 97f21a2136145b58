@_spi(Host) import CoordSDK

/// What a scene's session is made of beyond its pages, in a form that outlives the process:
/// the login (a session token) and the messages waiting in its queues (as command lines). A
/// supervised shell keeps both and puts them back in a new app process after a crash.
extension Session {
    /// The feature that keeps this scene's login (`Services.sceneLogins`), read with the
    /// host's key: a guarded service no feature's code reaches. `loading` false: nil while
    /// that feature's plugin is not loaded (nobody can have logged in yet).
    private func logins(loading: Bool) -> (any SceneLogins)? {
        app.unsealed(Services.sceneLogins, in: scene.dependencies, by: host.access, loading: loading)
    }

    /// Puts the person of a login session back in this scene, without the password: a
    /// supervised shell's new app process after a crash. Returns what to tell them.
    public func resume(token: String) -> Reply.Notice {
        guard let logins = logins(loading: true) else {
            return Reply.Notice(text: "the login could not be restored: no plugin keeps logins; log in again", isWarning: true)
        }
        let said = logins.resume(token: token, in: scene)
        return Reply.Notice(text: said.text, isWarning: said.isWarning)
    }

    /// The token that resumes this scene's login in another process; nil when nobody is
    /// logged in (or no plugin keeps logins).
    public var resumeToken: String? { logins(loading: false)?.resumeToken(in: scene) }

    /// Who is logged in here, as a person reads it; nil for nobody.
    public var loggedIn: String? { logins(loading: false)?.who(in: scene) }

    /// The scene's page trail as routes (see `SceneCoordinator.pageTrail`), the last `limit`:
    /// what a new app process opens, in order, to put the scene back where it was.
    public func pageTrail(limit: Int = 16) -> [String] {
        let stamp = scene.trailStamp + [limit]
        if let cached = trailCache, cached.stamp == stamp { return cached.routes }
        let routes = scene.pageTrail(last: limit).map { $0.route.description }
        trailCache = (stamp, routes)
        return routes
    }

    /// The scene's queued feature messages as the command lines that send them again, each
    /// with the route of the page that sent it (nil when a coordinator did): what a new app
    /// process needs to make the same messages wait again. Messages of the app itself
    /// (`globalDisplay`) are not commands and are left out.
    public func queuedCommands() -> [(line: String, from: String?)] {
        // Asked after every command of a served scene: nothing waits anywhere, most of the time;
        // else the levels are looked at in place, and only one that holds something is asked
        // what (the page stacks grow with the scene).
        guard Responder.queuedAnywhere > 0 else { return [] }
        var holding: [Responder] = app.hasQueuedMessages ? [app] : []
        scene.walk { coordinator, _ in
            if coordinator.hasQueuedMessages { holding.append(coordinator) }
            for view in coordinator.viewStack where view.hasQueuedMessages { holding.append(view) }
        }
        return holding.flatMap(\.queuedMessages).compactMap { entry in
            let message = entry.message
            guard let feature = app.features.feature(prefix: message.name.prefix.description) else { return nil }
            let words = [feature.definition.prefix, message.name.verb]
                + message.arguments.values.map { Words.quote("\($0.name)=\($0.value)") }
            return (words.joined(separator: " "), (message.sender as? PageView)?.page.route.description)
        }
    }

    /// Every level of this scene that may hold queued messages — the app, then each
    /// coordinator and its pages — in the order `queue` lists them.
    var queueHolders: [Responder] {
        var holders: [Responder] = [app]
        scene.walk { coordinator, _ in
            holders.append(coordinator)
            holders += coordinator.viewStack as [Responder]
        }
        return holders
    }
}
