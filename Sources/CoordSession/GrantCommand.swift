import CoordProtocol
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation

/// An outside plugin asking for what the person has not answered yet: what an interactive
/// shell asks about, once, in one prompt per plugin.
package struct GrantRequest: Equatable, Sendable {
    package var plugin: String
    package var version: String
    package var file: String
    /// The SHA-256 of the file asked about: a refusal is remembered for this file only.
    package var sha256: String
    package var asks: [Capability]

    /// As `plugins --json` carries it to a supervised shell's front.
    var json: JSONObject {
        ["plugin": .string(plugin), "version": .string(version), "file": .string(file), "sha256": .string(sha256), "asks": JSONValue(asks.map(\.description))]
    }

    init(plugin: String, version: String, file: String, sha256: String, asks: [Capability]) {
        self.plugin = plugin
        self.version = version
        self.file = file
        self.sha256 = sha256
        self.asks = asks
    }

    /// Read back from `json`; nil for anything else.
    package init?(json: JSONValue) {
        guard let plugin = json["plugin"]?.string, let version = json["version"]?.string,
              let file = json["file"]?.string, let sha256 = json["sha256"]?.string, let asks = json["asks"]?.strings
        else { return nil }
        self.init(plugin: plugin, version: version, file: file, sha256: sha256, asks: asks.compactMap(Capability.init))
    }

    /// What the shell says after the answer.
    package static func answered(_ request: GrantRequest, granted: Bool) -> String {
        let list = request.asks.map(\.description).joined(separator: ", ")
        return granted
            ? "granted \(request.plugin): \(list) ('plugins revoke \(request.plugin)' takes it back)"
            : "refused \(request.plugin): \(list); not asked again for this file ('plugins grant \(request.plugin)' grants it)"
    }

    /// The prompt's question, one line per capability.
    package var question: [String] {
        ["plugin '\(plugin)' \(version) (\(file)) asks for what is not its own:"]
            + asks.map { "  \($0)" }
    }
}

/// `plugins grant NAME [WHAT …]` and `plugins revoke NAME [WHAT …]`: the words read, checked
/// against what the plugin declares, and written to the person's `GrantStore`. The same in the
/// shell's own process and in a supervised shell's front, which holds the store for its worker.
package enum GrantCommand {
    package enum Verb: String, Sendable { case grant, revoke }

    /// What a plugin is, as far as granting goes: what its features declare and what of that
    /// is granted now.
    package struct Plugin: Sendable {
        package var name: String
        package var file: String
        package var bundled: Bool
        package var uses: [Capability]
        package var granted: [Capability]

        /// Read from what `plugins NAME --json` prints (a supervised shell's front asks its
        /// worker); nil for anything else.
        package init?(json: JSONObject?) {
            guard let json, let name = json["name"]?.string, let file = json["file"]?.string, let bundled = json["bundled"]?.bool,
                  let features = json["features"]?.array else { return nil }
            self.init(name: name, file: file, bundled: bundled, uses: [], granted: [])
            for feature in features {
                for text in feature["uses"]?.strings ?? [] { if let c = Capability(text), !uses.contains(c) { uses.append(c) } }
                for text in feature["granted"]?.strings ?? [] { if let c = Capability(text), !granted.contains(c) { granted.append(c) } }
            }
        }

        init(name: String, file: String, bundled: Bool, uses: [Capability], granted: [Capability]) {
            self.name = name
            self.file = file
            self.bundled = bundled
            self.uses = uses
            self.granted = granted
        }
    }

    /// Reads `WHAT …`: each capability as one quoted word (`"read products"`) or as its two
    /// words (`read products`).
    static func capabilities(_ words: [String]) throws -> [Capability] {
        var result: [Capability] = []
        var index = 0
        while index < words.count {
            if let capability = Capability(words[index]) {
                result.append(capability)
                index += 1
            } else if index + 1 < words.count, Capability.kinds.contains(words[index]), let capability = Capability(words[index] + " " + words[index + 1]) {
                result.append(capability)
                index += 2
            } else {
                throw ShellError(
                    "'\(words[index])' is not a capability: one of \(Capability.kinds.map { "'\($0) …'" }.joined(separator: ", ")), as 'plugins NAME' lists them",
                    code: "usage", status: .usage)
            }
        }
        return result
    }

    /// What `args` (after `grant`/`revoke`) ask of `plugin`: every capability named, each one
    /// it declares; all it declares and lacks (grant) or holds (revoke) when none is named.
    package static func resolve(_ verb: Verb, _ args: [String], plugin: Plugin?) throws -> (Plugin, [Capability]) {
        guard let name = args.first else {
            throw ShellError("usage: plugins \(verb.rawValue) NAME [WHAT …]", code: "usage", status: .usage)
        }
        guard let plugin else {
            throw ShellError("plugins \(verb.rawValue): no plugin named '\(name)' is loaded ('plugins' lists them)", code: "unknown_plugin", status: .failure)
        }
        if plugin.bundled {
            throw ShellError("plugins \(verb.rawValue): '\(name)' is bundled with coordsh: what it declares is granted", code: "bundled", status: .failure)
        }
        let named = try capabilities(Array(args.dropFirst()))
        for capability in named where !plugin.uses.contains(capability) {
            let declared = plugin.uses.isEmpty ? "it declares nothing beyond its own tables" : "it declares \(plugin.uses.map(\.description).joined(separator: ", "))"
            throw ShellError("plugins \(verb.rawValue): '\(name)' does not declare '\(capability)' (\(declared)); a grant covers only what a plugin says it uses", code: "not_declared", status: .failure)
        }
        if !named.isEmpty { return (plugin, named) }
        let all = verb == .grant ? plugin.uses.filter { !plugin.granted.contains($0) } : plugin.uses.filter { plugin.granted.contains($0) }
        guard !all.isEmpty else {
            throw ShellError("plugins \(verb.rawValue): '\(name)' \(verb == .grant ? "has all it declares already" : "holds nothing to revoke")", code: "nothing_to_do", status: .failure)
        }
        return (plugin, all)
    }

    /// Writes the change; what to print, or why it cannot be written.
    package static func apply(_ verb: Verb, _ plugin: Plugin, _ capabilities: [Capability], store: GrantStore?, configured: [Capability]) throws -> CommandResult {
        let name = plugin.name
        guard let store else {
            throw ShellError("plugins \(verb.rawValue): this app remembers no grants; add it to the config's [plugins.grants]", code: "grants", status: .failure)
        }
        do {
            switch verb {
            case .grant: try store.grant(name, capabilities)
            case .revoke: try store.revoke(name, capabilities, sha256: PluginPolicy.sha256(ofFile: plugin.file))
            }
        } catch {
            throw ShellError("plugins \(verb.rawValue): \(error)", code: "grants", status: .failure)
        }
        let list = capabilities.map(\.description).joined(separator: ", ")
        var lines = [verb == .grant ? "granted \(name): \(list)" : "revoked from \(name): \(list)"]
        let kept = capabilities.filter { wanted in configured.contains { $0.covers(wanted) } }
        if verb == .revoke, !kept.isEmpty {
            lines.append("still granted by the config's [plugins.grants]: \(kept.map(\.description).joined(separator: ", "))")
        }
        return CommandResult(lines: lines, json: [verb == .grant ? "granted" : "revoked": JSONValue(capabilities.map(\.description)), "plugin": .string(name)])
    }
}

extension GrantStore {
    /// Records the person's answer to `request`: all it asks for granted, or all of it
    /// refused for its file.
    package func record(_ request: GrantRequest, granted: Bool) throws {
        try answer(request.plugin, sha256: request.sha256, granted: granted ? request.asks : [], refused: granted ? [] : request.asks)
    }
}
