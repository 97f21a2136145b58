import CoordTerminal

/// The command lines scripts and the supervised shell use most — `-c COMMAND…` or `-f FILE`,
/// with `--config`, `--db`, `--plugin-dir`, `--json`, `--keep-going`, `--strict-plugins`,
/// `-1`, `--supervised` or `--single-process` — read without swift-argument-parser, whose
/// parse reflects over every option type and scans the conformance tables for the completion
/// script's request: ≈ 10 ms of a 37 ms start (BENCHMARKS.md, "Issue 41"). A supervised front
/// pays it before it can start its worker, so it counts twice there.
///
/// Only lines the parser would read the same way are taken: each option spelled out and given
/// its value as the next word, no value that starts with `-`, no option twice but `-c` and
/// `--plugin-dir`, not `-c` with `-f`, none of the pairs `CoordshCommand.validate` refuses.
/// Anything else returns nil and goes to the parser, which also gives every error, `--help`
/// and every other option; `CommonLineTests` holds the two to the same result.
enum CommonLine {
    /// What a common line says: the shell's options and how the app runs.
    struct Reading: Equatable {
        var options = Shell.Options()
        var supervised = false
        var singleProcess = false
    }

    static func read(_ arguments: [String]) -> Reading? {
        var reading = Reading()
        var given: Set<String> = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let word = arguments[index]
            switch word {
            case "--json", "--keep-going", "--strict-plugins", "-1", "--supervised", "--single-process":
                guard given.insert(word).inserted else { return nil }
                switch word {
                case "--json": reading.options.json = true
                case "--keep-going": reading.options.keepGoing = true
                case "--strict-plugins": reading.options.strictPlugins = true
                case "-1": reading.options.singleTransaction = true
                case "--supervised": reading.supervised = true
                default: reading.singleProcess = true
                }
                index += 1
            case "-c", "-f", "--config", "--db", "--plugin-dir":
                let next = index + 1
                guard next < arguments.endIndex, !arguments[next].hasPrefix("-") else { return nil }
                let value = arguments[next]
                switch word {
                case "-c": reading.options.commands.append(value)
                case "--plugin-dir": reading.options.pluginDirectories.append(value)
                default:
                    guard given.insert(word).inserted else { return nil }
                    if word == "-f" {
                        reading.options.scriptPath = value
                    } else if word == "--config" {
                        reading.options.configPath = value
                    } else {
                        reading.options.databasePath = value
                    }
                }
                index = next + 1
            default:
                return nil
            }
        }
        let options = reading.options
        guard options.commands.isEmpty || options.scriptPath == nil else { return nil }
        guard !(reading.supervised && reading.singleProcess) else { return nil }
        if options.singleTransaction, options.keepGoing || reading.supervised || options.isInteractive { return nil }
        return reading
    }
}
