import Foundation
import TestSupport
import Testing

/// How coordsh finds its configuration, through the real binary: from any folder with no
/// options, in the documented order, a partial file keeping every other default, and bad
/// files refused in one line.
@Suite("configuration discovery: the binary alone is a working shop")
struct ConfigDiscoveryTests {
    /// A private HOME with no config in it, and the environment that points there.
    struct Home {
        let path: String
        init() throws { path = try makeTemporaryDirectory("config") }
        var environment: [String: String] {
            ["HOME": path, "XDG_DATA_HOME": path + "/data", "XDG_CACHE_HOME": path + "/cache", "NO_COLOR": "1"]
        }
        /// Writes `text` to `relative` inside HOME and returns its path.
        func write(_ relative: String, _ text: String) throws -> String {
            let file = path + "/" + relative
            try FileManager.default.createDirectory(atPath: (file as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try text.write(toFile: file, atomically: true, encoding: .utf8)
            return file
        }
        func remove() { try? FileManager.default.removeItem(atPath: path) }
    }

    static let shop = ["-c", "open content/catalog", "-c", "content show 9", "-c", "cart add", "-c", "cart offer WELCOME10"]

    @Test("a copy of the binary with its plugins, run from / with no config anywhere, lists 60 products and takes WELCOME10")
    func binaryAlone() throws {
        let home = try Home()
        defer { home.remove() }
        let coordsh = try BuildProducts.copyBinaryAlone(to: home.path + "/bin")
        // $XDG_CONFIG_HOME names a folder that does not exist: the defaults, and no error.
        var environment = home.environment
        environment["XDG_CONFIG_HOME"] = home.path + "/no/such/folder"
        let result = try run(coordsh, Self.shop + ["-c", "config"], environment: environment, directory: "/")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "")
        #expect(result.stdout.contains("── Catalog (60 products) ──"))
        #expect(result.stdout.contains("offer WELCOME10 −4.50 EUR"))
        #expect(result.stdout.contains("config file: none: the built-in defaults"))
        #expect(result.stdout.contains("\(home.path)/no/such/folder/coordsh/coordsh.toml  (none there)"))
        #expect(result.stdout.contains("  plugin folders     \(home.path)/bin, \(home.path)/data/coordsh/plugins"))
    }

    @Test("a user config that changes one key keeps every other default, and `config` says where each value came from")
    func partialConfigKeepsDefaults() throws {
        let home = try Home()
        defer { home.remove() }
        let file = try home.write(".config/coordsh/coordsh.toml", """
            [cart]
            offers = [{ code = "ONLYMINE", percent = 50, expires = "2099-12-31" }]
            [weather]
            unit = "C"
            "eu.unit" = "F"
            ["weather.eu"]
            unit = "K"
            [shell]
            history = "~/my-history"
            """)
        let result = try run(
            BuildProducts.coordsh, ["--keep-going", "--json"] + Self.shop + ["-c", "cart offer ONLYMINE", "-c", "config"],
            environment: home.environment, directory: "/")
        let documents = result.stdout.split(separator: "\n").compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]
        }
        #expect(documents.count == 6)
        let catalog = (documents.first?["page"] as? [String: Any])?["title"] as? String
        #expect(catalog == "Catalog (60 products)")
        // WELCOME10 is a default offer, replaced by the file's list: refused.
        #expect((documents[3]["error"] as? [String: Any])?["message"] as? String == "cart offer: unknown promo code 'WELCOME10'")
        #expect(documents[4]["ok"] as? Bool == true)
        let config = documents[5]
        #expect(config["file"] as? String == file)
        #expect(config["foundAt"] as? String == "$XDG_CONFIG_HOME/coordsh/coordsh.toml")
        let sources = Dictionary(
            uniqueKeysWithValues: ((config["values"] as? [[String: Any]]) ?? []).compactMap { value in
                (value["key"] as? String).map { ($0, value["source"] as? String ?? "") }
            })
        #expect(sources["cart.offers"] == file)
        #expect(sources["weather.unit"] == file, "a table the defaults do not have is kept")
        // A dot inside a table's or key's name: each key is shown as a TOML dotted key, so the two
        // below are told apart (both were `weather.eu.unit`).
        let values = ((config["values"] as? [[String: Any]]) ?? []).compactMap { value in
            (value["key"] as? String).map { "\($0) = \(value["value"] as? String ?? "")" }
        }
        #expect(values.contains("weather.\"eu.unit\" = 'F'"), "\(values)")
        #expect(values.contains("\"weather.eu\".unit = 'K'"), "\(values)")
        #expect(sources["shell.history"] == file)
        #expect(sources["shell.home"] == "built-in", "the other key of a table the file sets keeps its default")
        #expect(sources["plugins.dirs"] == "built-in")
        #expect(result.status == 1)
    }

    @Test("--config beats $COORDSH_CONFIG, which beats $XDG_CONFIG_HOME, which beats the checkout's file")
    func order() throws {
        let home = try Home()
        defer { home.remove() }
        func homePage(_ route: String) -> String { "[shell]\nhome = \"\(route)\"\n" }
        let user = try home.write(".config/coordsh/coordsh.toml", homePage("content/search query=user"))
        let named = try home.write("named.toml", homePage("content/search query=named"))
        let given = try home.write("given.toml", homePage("content/search query=given"))
        func start(_ arguments: [String], _ extra: [String: String] = [:]) throws -> String {
            let result = try run(
                BuildProducts.coordsh, arguments + ["-c", "where"], environment: home.environment.merging(extra) { $1 }, directory: "/")
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout.split(separator: "\n").first.map { String($0.dropFirst("route: ".count)) } ?? ""
        }
        #expect(try start(["--config", given], ["COORDSH_CONFIG": named]) == "content/search query=given")
        #expect(try start([], ["COORDSH_CONFIG": named]) == "content/search query=named")
        #expect(try start([]) == "content/search query=user")
        try FileManager.default.removeItem(atPath: user)
        // The build tree's binary falls back to the checkout's config/coordsh.toml.
        #expect(try start([]) == "content/catalog")
        let config = try run(BuildProducts.coordsh, ["-c", "config"], environment: home.environment, directory: "/")
        #expect(config.stdout.contains("config file: \(BuildProducts.packageRoot)/config/coordsh.toml (the checkout this binary was built from)"))
    }

    /// Each key the host reads, set wrongly on line 3 of a file: (file text, the error after
    /// `config FILE:3: `).
    static let wrongKeys: [(String, String)] = [
        ("# x\n\nplugins = 1\n", "plugins must be a table ([plugins])"),
        ("[plugins]\n# x\ndirs = \"one\"\n", "plugins.dirs must be an array of strings"),
        ("[plugins]\n\ndirs = [\"a\", 2]\n", "plugins.dirs must be an array of strings"),
        ("[plugins]\n\nallow = [\"abc\"]\n", "plugins.allow must be an array of SHA-256 hashes (64 hex digits each)"),
        ("[plugins]\n\nallow = \"\(String(repeating: "a", count: 64))\"\n", "plugins.allow must be an array of SHA-256 hashes (64 hex digits each)"),
        ("[plugins]\n\nvet_timeout = 0\n", "plugins.vet_timeout must be a positive number of seconds, at most 604800 (a week)"),
        ("[serve]\n\nhandshake_timeout = inf\n", "serve.handshake_timeout must be a positive number of seconds, at most 604800 (a week)"),
        ("[shell]\n\nworker_timeout = 1e30\n", "shell.worker_timeout must be a positive number of seconds, at most 604800 (a week)"),
        ("[data]\n\nstatement_timeout = nan\n", "data.statement_timeout must be a positive number of seconds, at most 604800 (a week)"),
        ("[serve]\n\noutbound_limit = 65536\n", "serve.outbound_limit must be a whole number, at least 2097152"),
        ("[shell]\n\nhome = 3\n", "shell.home must be a string"),
        ("[shell]\n\nhistory = \"\"\n", "shell.history must be a non-empty string"),
        ("[data]\n\npath = \"\"\n", "data.path must be a non-empty string"),
        ("[data]\n\nbusy_timeout = -1\n", "data.busy_timeout must be a number of seconds, at most 604800 (a week)"),
        ("[data]\n\nbusy_timeout = \"soon\"\n", "data.busy_timeout must be a number of seconds, at most 604800 (a week)"),
        ("[data]\n\nbusy_timeout = inf\n", "data.busy_timeout must be a number of seconds, at most 604800 (a week)"),
        ("\n\ncart = \"cheap\"\n", "cart must be a table ([cart])"),
        ("[plugins]\n\ndirz = []\n", "plugins.dirz is not a setting coordsh knows (did you mean 'plugins.dirs'?); [plugins] has plugins.dirs, plugins.allow, plugins.vet_timeout, plugins.require_sandbox, plugins.grants, plugins.accounting, plugins.slow_handler"),
        ("[data]\n\ncolour = 1\n", "data.colour is not a setting coordsh knows; [data] has data.path, data.url, data.busy_timeout, data.statement_timeout"),
        ("[data]\nbusy_timeout = 1\nbusy_timeout = 2\n", "DUPLICATE"),
    ]

    @Test("a wrong value names the file, the line and the key, in one line; exit 2, nothing runs", arguments: wrongKeys.indices)
    func wrongKey(index: Int) throws {
        let home = try Home()
        defer { home.remove() }
        let (text, problem) = Self.wrongKeys[index]
        let file = try home.write("bad.toml", text)
        let result = try run(BuildProducts.coordsh, ["--config", file, "-c", "echo ran"], environment: home.environment)
        #expect(result.status == 2)
        #expect(result.stdout == "")
        if problem == "DUPLICATE" {
            // TOML's own rule, reported by the parser with its line.
            #expect(result.stderr.hasPrefix("coordsh: error: config \(file):3: "), "\(result.stderr)")
            #expect(result.stderr.filter { $0 == "\n" }.count == 1)
        } else {
            #expect(result.stderr == "coordsh: error: config \(file):3: \(problem)\n")
        }
    }

    @Test("the right values for the same keys load, and the shell uses them")
    func rightKeys() throws {
        let home = try Home()
        defer { home.remove() }
        let file = try home.write("good.toml", """
            [plugins]
            vet_timeout = 0.5
            allow = []
            [shell]
            home = ""
            history = "~/h"
            [data]
            path = "$CONFIG_DIR/shop.db"
            busy_timeout = 0
            [cart]
            """)
        let result = try run(BuildProducts.coordsh, ["--config", file, "-c", "config", "-c", "plugins"], environment: home.environment)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stdout.contains("  database           \(home.path)/shop.db  (data.path)"))
        #expect(result.stdout.contains("  history            \(home.path)/h"))
        // An empty allow-list loads nothing; each plugin is refused with its hash.
        #expect(result.stdout.contains("no plugins loaded"))
        #expect(result.stderr.components(separatedBy: "not on the allow-list: sha256 ").count == 5, "\(result.stderr)")
    }

    /// A plugin's own section, or the catalog file it names, that does not fit: (config text,
    /// a file to write beside it, the command, the error after `coordsh: error: `).
    static let badPluginSettings: [(String, String?, String, String)] = [
        ("[content]\ncatalog = \"c.json\"\n", #"{"currency": "EUR", "products": [{"id": 1, "category": "x", "price": 5}]}"#,
         "content list", "catalog $HOME/c.json: products[0].name: missing"),
        ("[content]\ncatalog = \"c.json\"\n", #"{"currency": "EUR", "products": [{"id": 1, "name": "n", "category": "x", "price": "5"}]}"#,
         "content list", "catalog $HOME/c.json: products[0].price: expected Int, found a string"),
        ("[content]\ncatalog = \"c.json\"\n", "not json", "content list", "catalog $HOME/c.json: The given data was not valid JSON."),
        ("[content]\ncatalog = \"gone.json\"\n", nil, "content list",
         "catalog $HOME/gone.json: no such file ([content] catalog in the config names it; remove the key for the built-in catalog)"),
        ("[content]\ncatalog = 7\n", nil, "content list", "config [content] catalog: expected String, found number"),
        ("[cart]\noffers = \"cheap\"\n", nil, "cart offer X", "config [cart] offers: expected Array<Any>, found a string"),
        ("[cart]\noffers = [{ code = \"X\", percent = 5 }]\n", nil, "cart offer X", "config [cart] offers[0].expires: missing"),
    ]

    @Test("a plugin's section or catalog that does not fit: the command that needs it fails in one line naming the file or section and the key", arguments: badPluginSettings.indices)
    func badPluginSetting(index: Int) throws {
        let home = try Home()
        defer { home.remove() }
        let (text, file, command, message) = Self.badPluginSettings[index]
        if let file { _ = try home.write("c.json", file) }
        let config = try home.write("coordsh.toml", text)
        let result = try run(BuildProducts.coordsh, ["--config", config, "-c", command, "-c", "help"], environment: home.environment)
        #expect(result.status == 1)
        #expect(result.stderr == "coordsh: error: \(message.replacingOccurrences(of: "$HOME", with: home.path))\n")
        #expect(!result.stdout.contains("Commands:"), "the batch stopped at the failing command")
    }

    @Test("a config that is not TOML, cannot be read, or is named but missing: one line naming it, exit 2")
    func badConfigs() throws {
        let home = try Home()
        defer { home.remove() }
        let broken = try home.write(".config/coordsh/coordsh.toml", "[cart]\noffers = [\n[shell\n")
        let notToml = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(notToml.status == 2)
        #expect(notToml.stderr.hasPrefix("coordsh: error: config \(broken):3: "))
        #expect(notToml.stderr.filter { $0 == "\n" }.count == 1)
        #expect(notToml.stdout == "")

        try FileManager.default.removeItem(atPath: broken)
        try FileManager.default.createDirectory(atPath: broken, withIntermediateDirectories: true)
        let unreadable = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(unreadable.status == 2)
        #expect(unreadable.stderr.hasPrefix("coordsh: error: cannot read config \(broken): "))
        #expect(unreadable.stderr.filter { $0 == "\n" }.count == 1)
        try FileManager.default.removeItem(atPath: broken)

        // A table name starting with a character no key may start with: toml++ asserted and
        // the shell aborted (found by ./fuzz config).
        try "[ \u{FFFD}]\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let badHeader = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(badHeader.status == 2)
        #expect(badHeader.stderr == "coordsh: error: config \(broken):1: a table name must start with a letter, a digit, '_', '-' or a quote\n", "\(badHeader.stderr)")
        try FileManager.default.removeItem(atPath: broken)

        // The same inside a text that is TOML up to it: lines starting with '[' inside a
        // multi-line array or string are not headers and stay accepted; the header after them is
        // refused (`[+shell]` aborted coordsh too). And an array closed by '}' (`dirs = [}`)
        // aborted it in toml++'s value parser.
        let tricky = "[notes]\ngrid = [\n  [+1, 2], # [+\n  [-3, 4],\n]\ntext = \"\"\"\n[+ not a header\n\"\"\"\n"
        try tricky.write(toFile: broken, atomically: true, encoding: .utf8)
        let accepted = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(accepted.status == 0, "\(accepted.stderr)")
        try (tricky + "[+shell]\n").write(toFile: broken, atomically: true, encoding: .utf8)
        let lateHeader = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(lateHeader.status == 2)
        #expect(lateHeader.stderr == "coordsh: error: config \(broken):9: a table name must start with a letter, a digit, '_', '-' or a quote\n", "\(lateHeader.stderr)")
        try "[plugins]\ndirs = [\n}\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let wrongCloser = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(wrongCloser.status == 2)
        #expect(wrongCloser.stderr == "coordsh: error: config \(broken):3: a bracket closed by the wrong kind ('[' by '}' or '{' by ']')\n", "\(wrongCloser.stderr)")
        // toml++ quotes what it saw, line break included: the error is still one line.
        try "[serve]\nallow_root = fal\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let quoted = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(quoted.status == 2)
        #expect(quoted.stderr.hasPrefix("coordsh: error: config \(broken):2: "))
        #expect(quoted.stderr.filter { $0 == "\n" }.count == 1, "\(quoted.stderr)")
        // An empty key is TOML; finding its line trapped coordsh (found by ./fuzz config).
        try "# a comment\n'' = 5\n".write(toFile: broken, atomically: true, encoding: .utf8)
        let emptyKey = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(emptyKey.status == 2)
        #expect(emptyKey.stderr == "coordsh: error: config \(broken): \"\" must be a table ([\"\"])\n", "\(emptyKey.stderr)")
        try FileManager.default.removeItem(atPath: broken)

        try Data([0x5B, 0x63, 0x61, 0x72, 0x74, 0x5D, 0x0A, 0xFF, 0xFE, 0x0A]).write(to: URL(fileURLWithPath: broken))
        let binary = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment)
        #expect(binary.status == 2)
        #expect(binary.stderr == "coordsh: error: cannot read config \(broken): not UTF-8 text\n")
        try FileManager.default.removeItem(atPath: broken)

        let missing = home.path + "/typo.toml"
        let named = try run(BuildProducts.coordsh, ["-c", "where"], environment: home.environment.merging(["COORDSH_CONFIG": missing]) { $1 })
        #expect(named.status == 2)
        #expect(named.stderr == "coordsh: error: cannot read config \(missing): No such file or directory (named by $COORDSH_CONFIG)\n")
        let wrongType = try home.write("wrong.toml", "[data]\nbusy_timeout = \"soon\"\n")
        let typed = try run(BuildProducts.coordsh, ["--config", wrongType, "-c", "where"], environment: home.environment)
        #expect(typed.status == 2)
        #expect(typed.stderr == "coordsh: error: config \(wrongType):2: data.busy_timeout must be a number of seconds, at most 604800 (a week)\n")
    }
}
