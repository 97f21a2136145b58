import Foundation

/// Which configuration file coordsh reads, so that it works from any folder with no options.
///
/// The first of these that exists wins: `--config FILE`, `$COORDSH_CONFIG`,
/// `$XDG_CONFIG_HOME/coordsh/coordsh.toml` (default `~/.config/coordsh/coordsh.toml`), the
/// configuration installed beside the executable (`PREFIX/share/coordsh/coordsh.toml` for
/// `PREFIX/bin/coordsh`; `config/coordsh.toml` of the checkout for a binary in its `.build`),
/// then the built-in defaults. A file named by `--config` or `$COORDSH_CONFIG` must exist:
/// it was asked for by name, so a typo is an error rather than a silent fall-back.
public enum ConfigDiscovery {
    /// Where a candidate file comes from.
    public enum Place: String, Sendable, Equatable {
        case option = "--config"
        case environment = "$COORDSH_CONFIG"
        case user = "$XDG_CONFIG_HOME/coordsh/coordsh.toml"
        case installed = "installed beside the executable"
        case buildTree = "the checkout this binary was built from"
    }

    /// One place looked at.
    public struct Candidate: Sendable, Equatable {
        public var place: Place
        /// The file, or nil when the place names none (no option given, variable unset).
        public var path: String?
        public var exists: Bool
    }

    /// What discovery found: the file read (nil: built-in defaults) and every place looked at
    /// in order, up to and including the one that won.
    public struct Outcome: Sendable, Equatable {
        public var place: Place?
        public var searched: [Candidate] = []
        public init() {}
    }

    /// The candidates in order, for this environment and executable.
    public static func candidates(
        option: String?, environment: [String: String], executableDirectory: String = Config.executableDirectory()
    ) -> [Candidate] {
        let home = environment["HOME"] ?? NSHomeDirectory()
        let configHome = environment["XDG_CONFIG_HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? home + "/.config"
        let prefix = (executableDirectory as NSString).deletingLastPathComponent
        var list = [
            Candidate(place: .option, path: option, exists: false),
            Candidate(place: .environment, path: environment["COORDSH_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }, exists: false),
            Candidate(place: .user, path: configHome + "/coordsh/coordsh.toml", exists: false),
            Candidate(place: .installed, path: prefix + "/share/coordsh/coordsh.toml", exists: false),
        ]
        if let checkout = buildTreeCheckout(executableDirectory: executableDirectory) {
            list.append(Candidate(place: .buildTree, path: checkout + "/config/coordsh.toml", exists: false))
        }
        for index in list.indices {
            if let path = list[index].path { list[index].exists = FileManager.default.fileExists(atPath: path) }
        }
        return list
    }

    /// Loads the configuration coordsh runs with: the first candidate that exists over the
    /// built-in defaults. A file that exists but cannot be read or parsed is an error, as is a
    /// `--config` or `$COORDSH_CONFIG` file that does not exist.
    public static func load(
        option: String?, environment: [String: String] = Config.pathVariables(),
        executableDirectory: String = Config.executableDirectory()
    ) throws(ConfigError) -> Config {
        var outcome = Outcome()
        for candidate in candidates(option: option, environment: environment, executableDirectory: executableDirectory) {
            outcome.searched.append(candidate)
            guard let path = candidate.path else { continue }
            let named = candidate.place == .option || candidate.place == .environment
            guard candidate.exists || named else { continue }
            var config: Config
            do {
                config = try Config.load(from: path)
            } catch {
                throw ConfigError(candidate.place == .environment ? "\(error) (named by $COORDSH_CONFIG)" : error.description)
            }
            outcome.place = candidate.place
            config.discovery = outcome
            return config
        }
        var config = Config.builtIn()
        config.discovery = outcome
        return config
    }

    /// The checkout whose `.build` holds `executableDirectory`, if it is the one this binary
    /// was compiled from (its path is compiled in); nil for an installed or copied binary.
    static func buildTreeCheckout(executableDirectory: String) -> String? {
        guard let checkout = compiledCheckout else { return nil }
        var real = executableDirectory
        if let resolved = realpath(executableDirectory, nil) {
            real = String(cString: resolved)
            free(resolved)
        }
        return real.hasPrefix(checkout + "/.build") ? checkout : nil
    }

    /// The checkout this file was compiled in: its path without `Sources/CoordRuntime/…`. Cut
    /// as text: Foundation's `URL` and `resolvingSymlinksInPath` here were ≈ 2 % of every start
    /// (BENCHMARKS.md, issue 41).
    private static let compiledCheckout: String? = {
        var path = Substring(#filePath)
        for _ in 0..<3 {
            guard let slash = path.lastIndex(of: "/") else { return nil }
            path = path[..<slash]
        }
        return path.isEmpty ? nil : String(path)
    }()
}
