@_spi(Host) import CoordSDK

extension Session {
    /// What Tab offers for `word`, the partial word at the end of `line` (the line up to the
    /// cursor). Everything comes from what is registered now — built-ins, feature prefixes and
    /// verbs, routes and their parameters, and values the features can list — so a plugin
    /// loaded at run time completes too.
    public func completions(line: String, word: String) -> [String] {
        var previous = line.split(whereSeparator: \.isWhitespace).map(String.init)
        if !word.isEmpty, !previous.isEmpty { previous.removeLast() }
        return candidates(after: previous, word: word).filter { $0.hasPrefix(word) }.uniqueSorted()
    }

    var routeNames: [String] {
        app.features.routes.map { "\($0.feature.name)/\($0.page.name)" }
    }

    /// Candidates for a whole command line's next word (what `trace` takes is one).
    func lineCompletions(_ previous: [String], word: String) -> [String] {
        candidates(after: previous, word: word)
    }

    /// `open`'s route: the routes, then the chosen page's parameters and their values.
    func routeCompletions(_ typed: [String], word: String) -> [String] {
        guard let route = typed.first else { return routeNames }
        let parts = route.split(separator: "/").map(String.init)
        guard parts.count == 2, let feature = app.features.feature(named: parts[0]),
            let page = feature.pageCases.first(where: { $0.name == parts[1] })
        else { return [] }
        return named(page.parameters, used: Array(typed.dropFirst()), feature: feature, word: word)
    }

    private func candidates(after previous: [String], word: String) -> [String] {
        let prefixes = app.features.features.map(\.definition.prefix)
        guard let first = previous.first else { return builtins.map(\.name) + prefixes }
        let rest = Array(previous.dropFirst())
        if let builtin = builtin(named: first) {
            return builtin.completions(self, after: rest, word: word)
        }
        guard let feature = app.features.feature(prefix: first) else { return [] }
        guard let verb = rest.first else { return feature.definition.messages.map(\.verb) }
        guard let spec = feature.message(verb: verb) else { return [] }
        let typed = Array(rest.dropFirst())
        if word.contains("=") || word.hasPrefix("-") {
            return named(spec.arguments, used: typed, feature: feature, word: word)
                + spec.arguments.map { "--\($0.name)" }
        }
        // The next positional argument's values, if the feature can list them.
        let positional = typed.filter { !$0.contains("=") && !$0.hasPrefix("--") }.count
        guard positional < spec.arguments.count else { return [] }
        return values(feature, spec.arguments[positional].name)
    }

    /// `name=` for the parameters not given yet, or `name=value` once the name is typed.
    private func named(_ parameters: [Parameter], used: [String], feature: Feature, word: String) -> [String] {
        if let eq = word.firstIndex(of: "=") {
            let name = String(word[..<eq])
            return values(feature, name).map { "\(name)=\($0)" }
        }
        let given = Set(used.compactMap { $0.split(separator: "=").first.map(String.init) })
        return parameters.filter { !given.contains($0.name) }.map { "\($0.name)=" }
    }

    /// Values come from the plugin's code (product ids, promo codes): completing one loads a
    /// plugin that is only registered. Commands, verbs, routes and parameter names come from
    /// what it registered and load nothing.
    private func values(_ feature: Feature, _ parameter: String) -> [String] {
        guard (try? feature.load()) != nil else { return [] }
        return feature.definition.completions?(parameter, app.dependencies(for: feature, from: scene.dependencies, by: host.access)) ?? []
    }

    /// The plugin a line runs in: the one that registered the feature of its prefix, or of the
    /// route it opens; nil for a built-in. What a crash report names (see `coordsh worker`).
    public func plugin(of line: String) -> String? {
        var words = (try? Words.split(line)) ?? line.split(separator: " ").map(String.init)
        if words.first == "trace" { words.removeFirst() }
        guard let first = words.first else { return nil }
        if first == "open", words.count > 1, let request = try? RouteRequest.parse(words[1]) {
            return app.features.feature(named: request.feature)?.origin?.name
        }
        return app.features.feature(prefix: first)?.origin?.name
    }

    /// True when `line` carries a value marked secret (a card number): it must not be kept.
    public func isSecret(_ line: String) -> Bool {
        var words = (try? Words.split(line)) ?? line.split(separator: " ").map(String.init)
        if words.first == "trace" { words.removeFirst() }
        guard words.count > 2, let feature = app.features.feature(prefix: words[0]),
            let spec = feature.message(verb: words[1])
        else { return false }
        return spec.arguments.contains(where: \.isSecret)
    }
}

extension Array where Element == String {
    func uniqueSorted() -> [String] { Array(Set(self)).sorted() }
}
