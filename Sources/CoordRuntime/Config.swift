import Foundation
import TOMLKit
import CLoadedLibrary
@_spi(Host) import CoordSDK

/// The shell's configuration: the built-in defaults with the keys of one TOML file over them.
///
/// The built-in defaults are the shipped `config/coordsh.toml`, compiled in; a file that sets
/// one key (`[cart] offers`) keeps every other default (`[shell] home`, the catalog). Which
/// file is read is `ConfigDiscovery`'s business.
///
/// Paths in it may use `$SDK_DIR` (the folder of the SDK library this coordsh runs with, where
/// the bundled plugins are), `$EXE_DIR` (the folder of the coordsh executable), `$CONFIG_DIR`
/// (the folder of the config file), `$XDG_DATA_HOME` (default `~/.local/share`),
/// `$XDG_STATE_HOME`, `$XDG_CACHE_HOME` and a leading `~`.
public struct Config: Sendable, Equatable {
    /// Folders searched for plugin `.so` files, in order; missing ones are skipped.
    public var pluginDirectories: [String] = []
    /// The route the shell opens at start-up when no `--open` is given (if its feature is loaded).
    public var home: String?
    /// The file this configuration came from, or nil for the built-in defaults alone.
    public var source: String?
    /// How `source` was found, and every place looked at before it.
    public var discovery = ConfigDiscovery.Outcome()
    /// The shop's database file (`[data] path`); nil for `$XDG_DATA_HOME/coordsh/shop.sqlite`.
    public var databasePath: String?
    /// A PostgreSQL server instead of the file (`[data] url`, `postgres://USER@HOST/DB`).
    public var databaseURL: String?
    /// The longest wait a setting may ask for, in seconds (a week): longer is as good as for
    /// ever, and a bound keeps every conversion of it to milliseconds or nanoseconds in range.
    public static let longestWait: Double = 604_800

    /// Seconds a write waits for another process's lock (`[data] busy_timeout`).
    public var busyTimeout: Double = 2
    /// Seconds one statement may run on a PostgreSQL server (`[data] statement_timeout`).
    public var statementTimeout: Double = 30
    /// Every other top-level table with a key in it (`[content]`, `[cart]`, …) as JSON, for the
    /// plugins that own them; the host does not interpret them.
    public var featureSettings: [String: String] = [:]
    /// Every text in those tables, at any depth, as their JSON holds it: what may name a file
    /// the person meant a plugin to read (`PluginSandbox.settingFiles`).
    public var featureTexts: [String] = []

    /// SHA-256 hashes of the only plugin files that may load (`[plugins] allow`); nil when
    /// the key is absent, so that any plugin that passes the other checks loads.
    public var pluginAllowList: Set<String>?
    /// Seconds a vetting child may take before the plugin counts as hung (`[plugins] vet_timeout`).
    public var vetTimeout: Double = 10
    /// Whether each plugin's handlers and pages are counted for `plugins stats`
    /// (`[plugins] accounting`).
    public var accounting = true
    /// Seconds of its own time past which a handler or page is named to the person
    /// (`[plugins] slow_handler`); 0 names none.
    public var slowHandler: Double = 1

    /// What `coordsh serve` allows its clients (`[serve]`).
    public var serve = ServeSettings()

    /// The limits of `coordsh serve`, from `[serve]`.
    public struct ServeSettings: Sendable, Equatable {
        /// Clients attached at once; the next one is refused (`max_clients`).
        public var maxClients = 64
        /// Seconds a new connection has to send its `hello` (`handshake_timeout`).
        public var handshakeTimeout: Double = 5
        /// Bytes the server keeps unsent for one client before dropping it as not reading
        /// (`outbound_limit`).
        public var outboundLimit = 4 << 20
        /// Seconds a SIGTERM waits for the commands in flight (`drain_timeout`).
        public var drainTimeout: Double = 10
        /// Whether root may attach to another user's server (`allow_root`); other uids never.
        public var allowRoot = false
        /// Whether `serve --metrics` may listen on an address other than loopback
        /// (`metrics_any_address`): the figures name every plugin and message the app runs, and
        /// the endpoint has no authentication, so reaching it from another machine is a choice.
        public var metricsAnyAddress = false
    }

    /// Seconds a supervised shell waits for its worker's answer before it kills the worker as
    /// hung (`[shell] worker_timeout`).
    public var workerTimeout: Double = 30
    /// Refuse to run plugin code in a process the kernel cannot confine (no Landlock), instead
    /// of running it unconfined with a warning (`[plugins] require_sandbox`).
    public var requireSandbox = false
    /// What the person granted outside plugins beyond their own tables, by plugin name
    /// (`[plugins.grants]`, `name = ["read products", "service accounts"]`).
    public var pluginGrants: [String: [Capability]] = [:]
    /// The interactive history file (`[shell] history`); nil for the default,
    /// `$XDG_STATE_HOME/coordsh/history`.
    public var historyPath: String?

    /// Every key in force, in file order by table, with the file it came from.
    public var entries: [Entry] = []

    /// One key in force: `cart.offers`, its value as TOML, and where it was set.
    public struct Entry: Sendable, Equatable {
        /// The table and the key as a TOML dotted key: bare names as they are (`cart.offers`),
        /// others quoted (`"a.b".c`), so that the name shown says which table holds the key.
        public var key: String
        /// The table's name and the key's, as they are.
        public var table: String
        public var name: String
        public var value: String
        /// The config file that set it, or nil for the built-in default.
        public var file: String?
    }

    /// The tables the host reads itself, with their keys.
    static let hostKeys: [(String, [String])] = [
        ("plugins", ["dirs", "allow", "vet_timeout", "require_sandbox", "grants", "accounting", "slow_handler"]), ("shell", ["home", "history", "worker_timeout"]), ("data", ["path", "url", "busy_timeout", "statement_timeout"]),
        ("serve", ["max_clients", "handshake_timeout", "outbound_limit", "drain_timeout", "allow_root", "metrics_any_address"]),
    ]
    static let hostSections = Set(hostKeys.map(\.0))

    /// The text of the built-in defaults: `config/coordsh.toml` as it was when this binary
    /// was built.
    public static let builtInText = String(decoding: PackageResources.coordsh_toml, as: UTF8.self)

    /// The built-in defaults as toml++ reads them at every start: their lines of comment left
    /// out, which were half of its work on the file (scanned a character at a time), unless
    /// the text has a multi-line string, where such a line would be content.
    static let builtInTOML: String = {
        let bytes = PackageResources.coordsh_toml
        let quotes = [UInt8(ascii: "\""), UInt8(ascii: "'")].map { [UInt8](repeating: $0, count: 3) }
        for quote in quotes where bytes.indices.contains(where: { bytes[$0...].starts(with: quote) }) { return builtInText }
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        for line in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false) {
            if line.first(where: { $0 != UInt8(ascii: " ") && $0 != UInt8(ascii: "\t") }) == UInt8(ascii: "#") { continue }
            kept += line
            kept.append(UInt8(ascii: "\n"))
        }
        return String(decoding: kept, as: UTF8.self)
    }()

    /// The built-in defaults alone. They are the shipped file, which a test loads; should it
    /// ever fail to parse, the shell still starts with no plugin folders rather than trapping.
    public static func builtIn() -> Config {
        (try? layered(over: nil, path: nil)) ?? Config()
    }

    /// `path` over the built-in defaults. A missing or unreadable file, bad TOML (with its
    /// line) or a wrong type is a one-line error naming the file.
    public static func load(from path: String) throws(ConfigError) -> Config {
        if let read = ConfigReadAhead.take(path) { return read }
        return try layered(over: try readText(path), path: path)
    }

    /// `known`: the built-in text, which toml++ is known to read without aborting.
    static func parse(_ text: String, path: String, known: Bool = false) throws(ConfigError) -> TOMLTable {
        if !known { try TOMLAbortGuard.check(text, path: path) }
        do {
            return try TOMLTable(string: text)
        } catch let error as TOMLParseError {
            throw ConfigError("config \(path):\(error.source.begin.line): \(error.description)")
        } catch {
            throw ConfigError("config \(path): \(error)")
        }
    }

    /// The defaults with `text`'s keys put over them, key by key inside each table.
    package static func layered(over text: String?, path: String?) throws(ConfigError) -> Config {
        let table = try parse(builtInTOML, path: "(built-in defaults)", known: true)
        var fromFile: Set<String> = []
        if let text, path != nil, text == builtInText {
            // The shipped defaults as a file (`--config config/coordsh.toml`, the build tree's
            // own): every key is the file's, and the values are the defaults already parsed.
            for key in table.keys {
                guard let section = table[key]?.table else { continue }
                for inner in section.keys { fromFile.insert(dottedKey(key, inner)) }
            }
        } else if let text, let path {
            let file = try parse(text, path: path)
            for key in file.keys {
                guard let value = file[key] else { continue }
                guard let section = value.table else {
                    let place = line(of: key, in: text).map { "\(path):\($0)" } ?? path
                    throw ConfigError("config \(place): \(tomlKey(key)) must be a table ([\(tomlKey(key))])")
                }
                for inner in section.keys { fromFile.insert(dottedKey(key, inner)) }
                // A table the defaults have is a view into them: its keys are set one by one.
                // A new table is inserted whole (inserting copies it, so filling it afterwards
                // would be lost).
                guard let existing = table[key]?.table else {
                    table[key] = section
                    continue
                }
                for inner in section.keys { existing[inner] = section[inner] }
            }
        }
        let where_ = { (key: String) -> String in
            guard let path else { return "(built-in defaults)" }
            guard fromFile.contains(key) || !key.contains("."), let text, let line = line(of: key, in: text) else { return path }
            return "\(path):\(line)"
        }
        var config = try interpret(table, at: where_)
        config.source = path
        for section in table.keys {
            guard let inner = table[section]?.table else { continue }
            for key in inner.keys {
                guard let value = inner[key] else { continue }
                let name = dottedKey(section, key)
                // A server URL may carry a password: `config` shows every entry, so not that.
                let shown = name == "data.url" ? value.string.map { basicString(PostgresLocation.withoutPassword($0)) } : nil
                config.entries.append(Entry(
                    key: name, table: section, name: key, value: shown ?? render(value, key: key), file: fromFile.contains(name) ? path : nil))
            }
        }
        return config
    }

    /// `table.key` as a TOML dotted key (found by ./fuzz config: joined as they were, a table
    /// named `a.b` with key `c` and a table `a` with key `b.c` were both shown as `a.b.c`).
    static func dottedKey(_ table: String, _ key: String) -> String {
        tomlKey(table) + "." + tomlKey(key)
    }

    /// A key as TOML writes it: bare when it can be, else a basic string.
    package static func tomlKey(_ key: String) -> String {
        let bare = !key.isEmpty && key.unicodeScalars.allSatisfy { ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "_" || $0 == "-" }
        return bare ? key : basicString(key)
    }

    /// A value as a one-line TOML assignment's right-hand side. Written here rather than with
    /// TOMLKit's `convert(to:)`, which leaks the C string toml++ gives it (found by ./fuzz
    /// config under LeakSanitizer: ~40 bytes per key per load).
    private static func render(_ value: any TOMLValueConvertible, key: String) -> String {
        switch value.type {
        case .string:
            // A literal string when it can be one, as toml++ writes it.
            let text = value.string ?? ""
            let literal = !text.unicodeScalars.contains { $0 == "'" || $0.value < 0x20 || $0.value == 0x7f }
            return literal ? "'\(text)'" : basicString(text)
        case .int: return String(value.int ?? 0)
        case .bool: return (value.bool ?? false) ? "true" : "false"
        case .double:
            let number = value.double ?? 0
            if number.isNaN { return "nan" }
            if number.isInfinite { return number < 0 ? "-inf" : "inf" }
            return "\(number)"
        case .array:
            guard let array = value.array else { return "[]" }
            return array.count == 0 ? "[]" : "[ " + (0..<array.count).map { render(array[$0], key: key) }.joinedText(separator: ", ") + " ]"
        case .table:
            guard let table = value.table else { return "{}" }
            let pairs = table.keys.sorted().compactMap { inner in table[inner].map { "\(tomlKey(inner)) = \(render($0, key: inner))" } }
            return "{ " + pairs.joinedText(separator: ", ") + " }"
        default:
            // Dates and times: TOMLKit's own text (no configuration key takes one).
            let holder = TOMLTable()
            holder[key] = value
            let text = holder.convert(to: .toml, options: [])
            guard let equals = text.firstIndex(of: "=") else { return text }
            return text[text.index(after: equals)...].trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }

    /// A feature's table as the JSON its plugin reads (not TOMLKit's `convert(to: .json)`,
    /// which leaks like `convert(to: .toml)`). Keys sorted; a date or time as its TOML text.
    static func json(_ value: any TOMLValueConvertible) -> String {
        var text = ""
        json(value, into: &text)
        return text
    }

    /// `json(value)` written onto `text`: one string grown in place (pieces joined with
    /// `joined(separator:)` ran the standard library's unspecialised join; see `joinedText`).
    private static func json(_ value: any TOMLValueConvertible, into text: inout String) {
        switch value.type {
        case .table:
            guard let table = value.table else { text += "{}"; return }
            text += "{"
            var first = true
            for key in table.keys.sorted() {
                guard let inner = table[key] else { continue }
                if !first { text += "," }
                first = false
                text += jsonString(key)
                text += ":"
                json(inner, into: &text)
            }
            text += "}"
        case .array:
            guard let array = value.array else { text += "[]"; return }
            text += "["
            for index in 0..<array.count {
                if index > 0 { text += "," }
                json(array[index], into: &text)
            }
            text += "]"
        case .string: text += jsonString(value.string ?? "")
        case .int: text += String(value.int ?? 0)
        case .bool: text += (value.bool ?? false) ? "true" : "false"
        case .double:
            let number = value.double ?? 0
            text += number.isFinite ? "\(number)" : "null"
        default: text += jsonString(render(value, key: "value").trimmingCharacters(in: .whitespaces))
        }
    }

    /// The texts `json(value)` writes as JSON strings, in its order: string values, and dates and
    /// times as their text. (Read from the TOML, not parsed back out of the JSON: parsing it
    /// with `JSONSerialization` and casting each value was a tenth of `coordsh -c 'echo ok'`.)
    static func texts(in value: any TOMLValueConvertible, into texts: inout [String]) {
        switch value.type {
        case .table:
            guard let table = value.table else { return }
            for key in table.keys.sorted() { if let inner = table[key] { Self.texts(in: inner, into: &texts) } }
        case .array:
            guard let array = value.array else { return }
            for index in 0..<array.count { Self.texts(in: array[index], into: &texts) }
        case .string: texts.append(value.string ?? "")
        case .int, .bool, .double: return
        default: texts.append(render(value, key: "value").trimmingCharacters(in: .whitespaces))
        }
    }

    /// A JSON string: as a TOML basic string, whose escapes JSON shares, but DEL left as is.
    static func jsonString(_ text: String) -> String {
        basicString(text, escapingDelete: false)
    }

    /// A TOML basic string: quotes, backslashes and control characters escaped.
    static func basicString(_ text: String, escapingDelete: Bool = true) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            case _ where scalar.value < 0x20 || (escapingDelete && scalar.value == 0x7f): quoted += String(format: "\\u%04X", scalar.value)
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// The file's text, or the system's own reason (`No such file or directory`, `Is a
    /// directory`, `Permission denied`) in a one-line error.
    static func readText(_ path: String) throws(ConfigError) -> String {
        let bytes: [UInt8]
        do {
            bytes = try readWholeFile(path)
        } catch {
            throw ConfigError("cannot read config \(path): \(String(cString: strerror(error.code.rawValue)))")
        }
        guard let text = String(validating: bytes, as: UTF8.self) else {
            throw ConfigError("cannot read config \(path): not UTF-8 text")
        }
        return text
    }

    /// The line of `key` (`data.busy_timeout`, or a table name such as `data`) in a TOML text:
    /// its `name = …` line under its `[table]` header, or a dotted `table.name = …` line;
    /// nil when it is written some other way.
    static func line(of key: String, in text: String) -> Int? {
        // A key may be empty (`'' = 5` is TOML): it splits to no parts at all, and reading
        // `parts[0]` trapped (found by ./fuzz config).
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        let (section, name) = parts.count == 2 ? (parts[0], parts[1]) : ("", parts.first ?? key)
        func assigns(_ line: Substring, _ name: String) -> Bool {
            guard line.hasPrefix(name) else { return false }
            let rest = line.dropFirst(name.count).drop { $0 == " " || $0 == "\t" }
            return rest.hasPrefix("=")
        }
        var current = ""
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.drop { $0 == " " || $0 == "\t" }
            if line.hasPrefix("[") && !line.hasPrefix("[[") {
                current = String(line.dropFirst().prefix { $0 != "]" }).trimmingCharacters(in: .whitespaces)
                if section.isEmpty && current == name { return index + 1 }
                continue
            }
            if current == section && assigns(line, name) { return index + 1 }
            if current.isEmpty && !section.isEmpty && assigns(line, "\(section).\(name)") { return index + 1 }
        }
        return nil
    }

    /// Reads the merged table into the host's settings; `place` gives `FILE:LINE` of a key
    /// for errors.
    private static func interpret(_ table: TOMLTable, at place: (String) -> String) throws(ConfigError) -> Config {
        func fail(_ key: String, _ problem: String) -> ConfigError {
            ConfigError("config \(place(key)): \(key) \(problem)")
        }
        /// A setting's number of seconds: above 0 (or 0 itself when `zero`), and at most
        /// `longestWait`. TOML's `inf` and `1e30` are numbers too, and every consumer turns
        /// the seconds into whole milliseconds or nanoseconds, a conversion that traps on them.
        func seconds(_ value: any TOMLValueConvertible, _ key: String, zero: Bool = false) throws(ConfigError) -> Double {
            guard let seconds = value.double ?? value.int.map(Double.init), zero ? seconds >= 0 : seconds > 0, seconds <= Config.longestWait else {
                throw fail(key, "must be \(zero ? "a" : "a positive") number of seconds, at most \(Int(Config.longestWait)) (a week)")
            }
            return seconds
        }
        var config = Config()
        // A key the host does not know is a typo that would otherwise be silently ignored.
        for (section, known) in hostKeys {
            guard let inner = table[section]?.table else { continue }
            for key in inner.keys where !known.contains(key) {
                let hint = Suggest.closest(to: key, in: known).map { " (did you mean '\(section).\($0)'?)" } ?? ""
                throw fail("\(section).\(key)", "is not a setting coordsh knows\(hint); [\(section)] has \(known.map { "\(section).\($0)" }.joined(separator: ", "))")
            }
        }
        if let plugins = table["plugins"] {
            guard let pluginTable = plugins.table else { throw fail("plugins", "must be a table ([plugins])") }
            if let dirs = pluginTable["dirs"] {
                guard let array = dirs.array, array.allSatisfy({ $0.string != nil }) else {
                    throw fail("plugins.dirs", "must be an array of strings")
                }
                config.pluginDirectories = array.compactMap(\.string)
            }
            if let allow = pluginTable["allow"] {
                let hashes = allow.array?.compactMap { $0.string?.lowercased() } ?? []
                guard let array = allow.array, hashes.count == array.count,
                      hashes.allSatisfy({ $0.count == 64 && $0.allSatisfy(\.isHexDigit) }) else {
                    throw fail("plugins.allow", "must be an array of SHA-256 hashes (64 hex digits each)")
                }
                config.pluginAllowList = Set(hashes)
            }
            if let value = pluginTable["grants"] {
                guard let grants = value.table else {
                    throw fail("plugins.grants", "must be a table ([plugins.grants]) of plugin names")
                }
                for name in grants.keys {
                    let texts = grants[name]?.array?.compactMap(\.string) ?? []
                    let capabilities = texts.compactMap(Capability.init)
                    guard let array = grants[name]?.array, capabilities.count == array.count else {
                        let bad = texts.first { Capability($0) == nil }.map { ": '\($0)' is not one" } ?? ""
                        throw fail("plugins.grants.\(name)", "must be an array of capabilities such as \"read products\", \"service accounts\", \"connect host:443\"\(bad)")
                    }
                    config.pluginGrants[name] = capabilities
                }
            }
            if let value = pluginTable["require_sandbox"] {
                guard let flag = value.bool else { throw fail("plugins.require_sandbox", "must be true or false") }
                config.requireSandbox = flag
            }
            if let value = pluginTable["vet_timeout"] {
                config.vetTimeout = try seconds(value, "plugins.vet_timeout")
            }
            if let value = pluginTable["accounting"] {
                guard let flag = value.bool else { throw fail("plugins.accounting", "must be true or false") }
                config.accounting = flag
            }
            if let value = pluginTable["slow_handler"] {
                guard let seconds = value.double ?? value.int.map(Double.init), seconds >= 0, seconds.isFinite else {
                    throw fail("plugins.slow_handler", "must be a number of seconds, 0 or more")
                }
                config.slowHandler = seconds
            }
        }
        if let shell = table["shell"] {
            guard let shellTable = shell.table else { throw fail("shell", "must be a table ([shell])") }
            if let home = shellTable["home"] {
                guard let string = home.string else { throw fail("shell.home", "must be a string") }
                config.home = string.isEmpty ? nil : string
            }
            if let history = shellTable["history"] {
                guard let string = history.string, !string.isEmpty else { throw fail("shell.history", "must be a non-empty string") }
                config.historyPath = string
            }
            if let value = shellTable["worker_timeout"] {
                config.workerTimeout = try seconds(value, "shell.worker_timeout")
            }
        }
        if let data = table["data"] {
            guard let dataTable = data.table else { throw fail("data", "must be a table ([data])") }
            if let value = dataTable["path"] {
                guard let string = value.string, !string.isEmpty else { throw fail("data.path", "must be a non-empty string") }
                config.databasePath = string
            }
            if let value = dataTable["url"] {
                guard let string = value.string, PostgresLocation.isURL(string) else {
                    throw fail("data.url", "must be a postgres:// or postgresql:// URL (a SQLite file is data.path)")
                }
                config.databaseURL = string
            }
            if config.databaseURL != nil, dataTable["path"] != nil {
                throw fail("data.url", "and data.path are both set; keep the one to use")
            }
            if let value = dataTable["statement_timeout"] {
                config.statementTimeout = try seconds(value, "data.statement_timeout")
            }
            if let value = dataTable["busy_timeout"] {
                config.busyTimeout = try seconds(value, "data.busy_timeout", zero: true)
            }
        }
        if let serve = table["serve"] {
            guard let serveTable = serve.table else { throw fail("serve", "must be a table ([serve])") }
            func serveSeconds(_ key: String) throws(ConfigError) -> Double? {
                guard let value = serveTable[key] else { return nil }
                return try seconds(value, "serve.\(key)")
            }
            func count(_ key: String, atLeast minimum: Int) throws(ConfigError) -> Int? {
                guard let value = serveTable[key] else { return nil }
                guard let number = value.int, number >= minimum else {
                    throw fail("serve.\(key)", "must be a whole number, at least \(minimum)")
                }
                return number
            }
            if let n = try count("max_clients", atLeast: 1) { config.serve.maxClients = n }
            // Two whole frames (1 MiB each, with their length): a limit below one would drop a
            // client that reads, at the first large reply.
            if let n = try count("outbound_limit", atLeast: 2 << 20) { config.serve.outboundLimit = n }
            if let s = try serveSeconds("handshake_timeout") { config.serve.handshakeTimeout = s }
            if let s = try serveSeconds("drain_timeout") { config.serve.drainTimeout = s }
            if let value = serveTable["allow_root"] {
                guard let flag = value.bool else { throw fail("serve.allow_root", "must be true or false") }
                config.serve.allowRoot = flag
            }
            if let value = serveTable["metrics_any_address"] {
                guard let flag = value.bool else { throw fail("serve.metrics_any_address", "must be true or false") }
                config.serve.metricsAnyAddress = flag
            }
        }
        for key in table.keys where !hostSections.contains(key) {
            guard let section = table[key]?.table else {
                throw fail(key, "must be a table ([\(tomlKey(key))])")
            }
            // A table with no key sets nothing: its plugin reads the same as with no table (and
            // `config`, which lists keys, shows the whole configuration; found by ./fuzz config).
            if section.keys.isEmpty { continue }
            config.featureSettings[key] = json(section)
            texts(in: section, into: &config.featureTexts)
        }
        return config
    }

    /// The history file with variables expanded.
    public func expandedHistoryPath(environment: [String: String] = Config.pathVariables()) -> String {
        Config.expand(
            historyPath ?? "$XDG_STATE_HOME/coordsh/history",
            configDirectory: source.map { ($0 as NSString).deletingLastPathComponent }, environment: environment)
    }

    /// Where the shop's data is: the `[data] url` server, else the file with variables
    /// expanded.
    public func databaseLocation(environment: [String: String] = Config.pathVariables()) -> String {
        databaseURL ?? expandedDatabasePath(environment: environment)
    }

    /// The database file with variables expanded.
    public func expandedDatabasePath(environment: [String: String] = Config.pathVariables()) -> String {
        guard let databasePath else { return expandedDataDirectory(environment: environment) + "/shop.sqlite" }
        return Config.expand(databasePath, configDirectory: source.map { ($0 as NSString).deletingLastPathComponent }, environment: environment)
    }

    /// Where quarantined plugins are listed: `$XDG_STATE_HOME/coordsh/quarantine.tsv`.
    public func expandedQuarantinePath(environment: [String: String] = Config.pathVariables()) -> String {
        Config.expand("$XDG_STATE_HOME/coordsh/quarantine.tsv", configDirectory: nil, environment: environment)
    }

    /// Where the person's answers to plugins' requests are kept (`GrantStore`):
    /// `$XDG_CONFIG_HOME/coordsh/plugin-grants.tsv`, beside the user's config and, like it,
    /// out of reach of the sandboxed processes' writes.
    public func expandedGrantsPath(environment: [String: String] = Config.pathVariables()) -> String {
        Config.expand("$XDG_CONFIG_HOME/coordsh/plugin-grants.tsv", configDirectory: nil, environment: environment)
    }

    /// Where vetting verdicts are cached: `$XDG_CACHE_HOME/coordsh/plugin-verdicts.tsv`.
    public func expandedVerdictCachePath(environment: [String: String] = Config.pathVariables()) -> String {
        Config.expand("$XDG_CACHE_HOME/coordsh/plugin-verdicts.tsv", configDirectory: nil, environment: environment)
    }

    /// The user's data folder: `$XDG_DATA_HOME/coordsh`.
    public func expandedDataDirectory(environment: [String: String] = Config.pathVariables()) -> String {
        Config.expand("$XDG_DATA_HOME/coordsh", configDirectory: nil, environment: environment)
    }

    /// The plugin folders with every variable expanded.
    public func expandedPluginDirectories(environment: [String: String] = Config.pathVariables()) -> [String] {
        pluginDirectories.map { Config.expand($0, configDirectory: source.map { ($0 as NSString).deletingLastPathComponent }, environment: environment) }
    }

    /// The variables the configuration's paths are made of (`HOME`, the XDG folders, and
    /// `COORDSH_CONFIG` for finding the file), read one by one: Foundation's
    /// `ProcessInfo.environment` copies the whole environment into a dictionary at every call,
    /// which a start paid about ten times over (BENCHMARKS.md, "Issue 41").
    public static func pathVariables() -> [String: String] {
        var variables: [String: String] = [:]
        for name in ["HOME", "XDG_DATA_HOME", "XDG_STATE_HOME", "XDG_CACHE_HOME", "XDG_CONFIG_HOME", "COORDSH_CONFIG"] {
            if let value = getenv(name) { variables[name] = String(cString: value) }
        }
        return variables
    }

    static func expand(_ path: String, configDirectory: String?, environment: [String: String]) -> String {
        let home = environment["HOME"] ?? NSHomeDirectory()
        var result = path
        if result == "~" || result.hasPrefix("~/") { result = home + result.dropFirst() }
        // Most paths name no variable: nothing to look up (each lookup below is a Foundation
        // string search, and the start reads a dozen paths; BENCHMARKS.md, "Issue 41").
        guard result.contains("$") else { return result }
        func xdg(_ name: String, _ fallback: String) -> String {
            environment[name].flatMap { $0.isEmpty ? nil : $0 } ?? home + fallback
        }
        let variables: [(String, () -> String)] = [
            ("$SDK_DIR", sdkDirectory), ("$EXE_DIR", executableDirectory),
            ("$CONFIG_DIR", { configDirectory ?? FileManager.default.currentDirectoryPath }),
            ("$XDG_DATA_HOME", { xdg("XDG_DATA_HOME", "/.local/share") }), ("$XDG_STATE_HOME", { xdg("XDG_STATE_HOME", "/.local/state") }),
            ("$XDG_CACHE_HOME", { xdg("XDG_CACHE_HOME", "/.cache") }), ("$XDG_CONFIG_HOME", { xdg("XDG_CONFIG_HOME", "/.config") }),
        ]
        for (variable, value) in variables {
            result = substituting(variable, in: result, with: value)
        }
        return result
    }

    /// `text` with each `variable` in it, left to right, replaced by `value()` (asked once, and
    /// only when the variable is there). Read as UTF-8 bytes: the names are ASCII. Foundation's
    /// `contains` and `replacingOccurrences` bridge and cast (each cast's first use scans the
    /// conformance tables of every image), and the standard library's generic `replacing`
    /// mapped and ran `_StringProcessing`'s collection algorithms: together ≈ 2.5 % of a start
    /// (BENCHMARKS.md, issue 41).
    static func substituting(_ variable: String, in text: String, with value: () -> String) -> String {
        let needle = Array(variable.utf8), bytes = Array(text.utf8)
        guard let first = needle.first else { return text }
        var result: [UInt8] = []
        var replacement: [UInt8]?
        var index = 0, copied = 0
        while index + needle.count <= bytes.count {
            guard bytes[index] == first, bytes[index..<index + needle.count].elementsEqual(needle) else {
                index += 1
                continue
            }
            let with = replacement ?? Array(value().utf8)
            replacement = with
            result += bytes[copied..<index]
            result += with
            index += needle.count
            copied = index
        }
        guard replacement != nil else { return text }
        result += bytes[copied...]
        return String(decoding: result, as: UTF8.self)
    }

    /// The folder of the running executable, from /proc/self/exe.
    public static func executableDirectory() -> String {
        let path = HostExecutables.current
        guard let slash = path.lastIndex(of: "/") else { return "" }
        return slash == path.startIndex ? "/" : String(path[..<slash])
    }

    /// The folder of the `libCoordSDK.so` this process runs with, as the dynamic loader found
    /// it (symbolic links resolved): the build folder in a build tree,
    /// `PREFIX/lib/coordsh` once installed. The bundled plugins are installed beside it.
    /// Falls back to the executable's folder.
    public static func sdkDirectory() -> String { mappedSDKDirectory }

    /// Found once: where the loader mapped the library does not change while the process runs.
    /// The loader says which file it opened for the library (`dlinfo`); resolved, it is what
    /// /proc/self/maps would show — which used to be read and searched here at every start.
    private static let mappedSDKDirectory: String = {
        if let name = coordsh_loaded_library_path("libCoordSDK.so"), let resolved = realpath(name, nil) {
            defer { free(resolved) }
            let path = String(cString: resolved)
            if path.hasSuffix("/libCoordSDK.so") { return (path as NSString).deletingLastPathComponent }
        }
        return executableDirectory()
    }()
}

/// A configuration that cannot be used, in one line: what the file holds (and toml++'s message
/// about it, which quotes it) is shown with its line breaks and control characters escaped.
public struct ConfigError: Error, CustomStringConvertible {
    public let description: String
    init(_ description: String) { self.description = CoordError.oneLine(description) }
}
