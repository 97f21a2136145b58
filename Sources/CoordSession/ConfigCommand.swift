import CoordProtocol
import CoordRuntime
import Foundation

extension Builtin {
    /// `config`: which file was read and why, every key in force with where it came from,
    /// and the paths the shell uses with every variable expanded.
    static func config(_ session: Session, _ call: BuiltinInvocation) throws -> CommandResult {
        let config = session.config
        let searched = config.discovery.searched
        var lines = [
            "config file: " + (config.source.map { "\($0) (\(config.discovery.place?.rawValue ?? "given"))" }
                ?? "none: the built-in defaults"),
            "looked at, in order:",
        ]
        for candidate in searched {
            let state: String
            switch (candidate.path, candidate.exists) {
            case (nil, _): state = candidate.place == .option ? "not given" : "not set"
            case (let path?, true): state = "\(path)  ← read"
            case (let path?, false): state = "\(path)  (none there)"
            }
            lines.append("  \(candidate.place.rawValue)".column(44) + " " + state)
        }
        lines.append("values (a file's keys over the built-in defaults, key by key):")
        for entry in config.entries {
            lines.append("  \(entry.key) = \(entry.value)".column(60) + " " + (entry.file ?? "built-in"))
        }
        let database = PostgresLocation.withoutPassword(session.databaseOverride ?? config.databaseLocation())
        let databaseSource = session.databaseOverride != nil ? "--db" : config.databaseURL != nil ? "data.url" : config.databasePath != nil ? "data.path" : "default"
        let folders = session.loader.directories
        lines.append("in force:")
        lines.append("  plugin folders".column(20) + " " + folders.joined(separator: ", "))
        lines.append("  database".column(20) + " \(database)  (\(databaseSource))")
        lines.append("  history".column(20) + " " + config.expandedHistoryPath())
        lines.append("  verdict cache".column(20) + " " + config.expandedVerdictCachePath())
        return CommandResult(lines: lines, json: [
            "file": JSONValue(config.source),
            "foundAt": JSONValue(config.discovery.place?.rawValue),
            "searched": JSONValue(searched.map { ["place": .string($0.place.rawValue), "path": JSONValue($0.path), "exists": .bool($0.exists)] }),
            "values": JSONValue(config.entries.map { ["key": .string($0.key), "value": .string($0.value), "source": .string($0.file ?? "built-in")] }),
            "pluginFolders": JSONValue(folders),
            "database": ["path": .string(database), "source": .string(databaseSource)],
            "history": .string(config.expandedHistoryPath()),
            "verdictCache": .string(config.expandedVerdictCachePath()),
        ])
    }
}
