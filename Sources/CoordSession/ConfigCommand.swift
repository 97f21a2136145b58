import CoordRuntime
import Foundation

extension Builtin {
    /// `config`: which file was read and why, every key in force with where it came from,
    /// and the paths the shell uses with every variable expanded.
    static func config(_ session: Session, _ args: [String]) throws -> CommandResult {
        try noArguments("config", args)
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
            "file": config.source ?? NSNull(),
            "foundAt": config.discovery.place?.rawValue ?? NSNull(),
            "searched": searched.map { ["place": $0.place.rawValue, "path": $0.path ?? NSNull(), "exists": $0.exists] as [String: Any] },
            "values": config.entries.map { ["key": $0.key, "value": $0.value, "source": $0.file ?? "built-in"] },
            "pluginFolders": folders,
            "database": ["path": database, "source": databaseSource],
            "history": config.expandedHistoryPath(),
            "verdictCache": config.expandedVerdictCachePath(),
        ])
    }
}
