import CoordTerminal

/// The command lines scripts use most — `-c COMMAND…` or `-f FILE`, with `--config`, `--db`,
/// `--plugin-dir`, `--json`, `--keep-going` — read without swift-argument-parser, whose parse
/// reflects over every option type and scans the conformance tables for the completion
/// script's request: ≈ 11 % of a start (BENCHMARKS.md, "Issue 41").
///
/// Only lines the parser would read the same way are taken: each option spelled out and given
/// its value as the next word, no value that starts with `-`, no single-valued option twice,
/// not `-c` with `-f`. Anything else returns nil and goes to the parser, which also gives every
/// error, `--help` and every other option; `CommonLineTests` holds the two to the same result.
enum CommonLine {
    static func shellOptions(_ arguments: [String]) -> Shell.Options? {
        var options = Shell.Options()
        var given: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            switch word {
            case "--json", "--keep-going":
                guard given.insert(word).inserted else { return nil }
                if word == "--json" { options.json = true } else { options.keepGoing = true }
                index += 1
            case "-c", "-f", "--config", "--db", "--plugin-dir":
                let next = index + 1
                guard next < arguments.endIndex, !arguments[next].hasPrefix("-") else { return nil }
                let value = arguments[next]
                switch word {
                case "-c": options.commands.append(value)
                case "--plugin-dir": options.pluginDirectories.append(value)
                default:
                    guard given.insert(word).inserted else { return nil }
                    if word == "-f" { options.scriptPath = value } else if word == "--config" { options.configPath = value } else { options.databasePath = value }
                }
                index = next + 1
            default:
                return nil
            }
        }
        guard options.commands.isEmpty || options.scriptPath == nil else { return nil }
        return options
    }
}
