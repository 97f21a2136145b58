import Foundation
import TOMLKit

/// The shell's configuration, read from a TOML file (the default is `config/coordsh.toml`).
///
/// Paths in it may use `$EXE_DIR` (the folder of the coordsh executable), `$CONFIG_DIR` (the
/// folder of the config file), `$XDG_DATA_HOME` (default `~/.local/share`) and a leading `~`.
public struct Config: Sendable, Equatable {
    /// Folders searched for plugin `.so` files, in order; missing ones are skipped.
    public var pluginDirectories: [String]
    /// The route the shell opens at start-up when no `--open` is given (if its feature is loaded).
    public var home: String? = Config.defaultHome
    /// The file this configuration came from, or nil for the built-in defaults.
    public var source: String?
    /// The shop's database file (`[data] path`); nil for `$XDG_DATA_HOME/coordsh/shop.sqlite`.
    public var databasePath: String?
    /// Seconds a write waits for another process's lock (`[data] busy_timeout`).
    public var busyTimeout: Double = 2
    /// Every other top-level table (`[content]`, `[cart]`, …) as JSON, for the plugins that
    /// own them; the host does not interpret them.
    public var featureSettings: [String: String] = [:]

    /// SHA-256 hashes of the only plugin files that may load (`[plugins] allow`); nil when
    /// the key is absent, so that any plugin that passes the other checks loads.
    public var pluginAllowList: Set<String>?
    /// Seconds a vetting child may take before the plugin counts as hung (`[plugins] vet_timeout`).
    public var vetTimeout: Double = 10

    /// The interactive history file (`[shell] history`); nil for the default,
    /// `$XDG_STATE_HOME/coordsh/history`.
    public var historyPath: String?

    /// The tables the host reads itself.
    static let hostSections: Set<String> = ["plugins", "shell", "data"]

    /// The defaults, the same as the shipped `config/coordsh.toml` (a test holds them equal).
    public static let defaultPluginDirectories = ["$EXE_DIR", "$XDG_DATA_HOME/coordsh/plugins"]
    public static let defaultHome = "content/catalog"

    public init(pluginDirectories: [String] = Config.defaultPluginDirectories, source: String? = nil) {
        self.pluginDirectories = pluginDirectories
        self.source = source
    }

    /// Reads `path`. A missing file, bad TOML or a wrong type is a one-line error.
    public static func load(from path: String) throws(ConfigError) -> Config {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw ConfigError("cannot read config \(path): \((error as NSError).localizedDescription)")
        }
        let table: TOMLTable
        do {
            table = try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError("config \(path):\(error.source.begin.line): \(error.description)")
        } catch {
            throw ConfigError("config \(path): \(error)")
        }
        var config = Config(source: path)
        if let plugins = table["plugins"] {
            guard let pluginTable = plugins.table else { throw ConfigError("config \(path): [plugins] must be a table") }
            if let dirs = pluginTable["dirs"] {
                guard let array = dirs.array, array.allSatisfy({ $0.string != nil }) else {
                    throw ConfigError("config \(path): plugins.dirs must be an array of strings")
                }
                config.pluginDirectories = array.compactMap(\.string)
            }
            if let allow = pluginTable["allow"] {
                let hashes = allow.array?.compactMap { $0.string?.lowercased() } ?? []
                guard let array = allow.array, hashes.count == array.count,
                      hashes.allSatisfy({ $0.count == 64 && $0.allSatisfy(\.isHexDigit) }) else {
                    throw ConfigError("config \(path): plugins.allow must be an array of SHA-256 hashes (64 hex digits each)")
                }
                config.pluginAllowList = Set(hashes)
            }
            if let value = pluginTable["vet_timeout"] {
                guard let seconds = value.double ?? value.int.map(Double.init), seconds > 0 else {
                    throw ConfigError("config \(path): plugins.vet_timeout must be a positive number of seconds")
                }
                config.vetTimeout = seconds
            }
        }
        if let shell = table["shell"] {
            guard let shellTable = shell.table else { throw ConfigError("config \(path): [shell] must be a table") }
            if let home = shellTable["home"] {
                guard let string = home.string else { throw ConfigError("config \(path): shell.home must be a string") }
                config.home = string.isEmpty ? nil : string
            }
            if let history = shellTable["history"] {
                guard let string = history.string, !string.isEmpty else { throw ConfigError("config \(path): shell.history must be a non-empty string") }
                config.historyPath = string
            }
        }
        if let data = table["data"] {
            guard let dataTable = data.table else { throw ConfigError("config \(path): [data] must be a table") }
            if let value = dataTable["path"] {
                guard let string = value.string, !string.isEmpty else { throw ConfigError("config \(path): data.path must be a non-empty string") }
                config.databasePath = string
            }
            if let value = dataTable["busy_timeout"] {
                guard let seconds = value.double ?? value.int.map(Double.init), seconds >= 0 else {
                    throw ConfigError("config \(path): data.busy_timeout must be a number of seconds")
                }
                config.busyTimeout = seconds
            }
        }
        for key in table.keys where !hostSections.contains(key) {
            guard let section = table[key]?.table else {
                throw ConfigError("config \(path): '\(key)' must be a table ([\(key)])")
            }
            config.featureSettings[key] = section.convert(to: .json)
        }
        return config
    }

    /// The history file with variables expanded.
    public func expandedHistoryPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Config.expand(
            historyPath ?? "$XDG_STATE_HOME/coordsh/history",
            configDirectory: source.map { ($0 as NSString).deletingLastPathComponent }, environment: environment)
    }

    /// The database file with variables expanded.
    public func expandedDatabasePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        guard let databasePath else { return expandedDataDirectory(environment: environment) + "/shop.sqlite" }
        return Config.expand(databasePath, configDirectory: source.map { ($0 as NSString).deletingLastPathComponent }, environment: environment)
    }

    /// Where vetting verdicts are cached: `$XDG_CACHE_HOME/coordsh/plugin-verdicts.tsv`.
    public func expandedVerdictCachePath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Config.expand("$XDG_CACHE_HOME/coordsh/plugin-verdicts.tsv", configDirectory: nil, environment: environment)
    }

    /// The user's data folder: `$XDG_DATA_HOME/coordsh`.
    public func expandedDataDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        Config.expand("$XDG_DATA_HOME/coordsh", configDirectory: nil, environment: environment)
    }

    /// The plugin folders with every variable expanded.
    public func expandedPluginDirectories(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        pluginDirectories.map { Config.expand($0, configDirectory: source.map { ($0 as NSString).deletingLastPathComponent }, environment: environment) }
    }

    static func expand(_ path: String, configDirectory: String?, environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        var result = path
        if result == "~" || result.hasPrefix("~/") { result = home + result.dropFirst() }
        let dataHome = environment["XDG_DATA_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/share"
        result = result.replacingOccurrences(of: "$EXE_DIR", with: executableDirectory())
        result = result.replacingOccurrences(of: "$CONFIG_DIR", with: configDirectory ?? FileManager.default.currentDirectoryPath)
        result = result.replacingOccurrences(of: "$XDG_DATA_HOME", with: dataHome)
        let stateHome = environment["XDG_STATE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.local/state"
        result = result.replacingOccurrences(of: "$XDG_STATE_HOME", with: stateHome)
        let cacheHome = environment["XDG_CACHE_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.cache"
        result = result.replacingOccurrences(of: "$XDG_CACHE_HOME", with: cacheHome)
        return result
    }

    /// The folder of the running executable, from /proc/self/exe.
    public static func executableDirectory() -> String {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        return (exe as NSString).deletingLastPathComponent
    }
}

public struct ConfigError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = description }
}
