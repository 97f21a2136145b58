import Foundation
import TestSupport
import Testing

/// Plugins registered from the registry cache and loaded on first use (issue 19), through the
/// real binary and real `.so` files, looked at from outside in /proc/PID/maps.
@Suite("Plugins loaded on first use")
struct LazyLoadingTests {
    /// A config with the bundled plugins and `directories`; `home` is the page opened at start.
    static func config(_ home: PluginHome, directories: [String] = [], startPage: String = "content/catalog") throws -> String {
        let dirs = ([BuildProducts.directory] + directories).map { "\"\($0)\"" }.joined(separator: ", ")
        let file = home.path + "/coordsh.toml"
        try "[plugins]\ndirs = [\(dirs)]\n[shell]\nhome = \"\(startPage)\"\n".write(toFile: file, atomically: true, encoding: .utf8)
        return file
    }

    /// The first start vets and loads every plugin and writes down what each registered.
    static func warm(_ home: PluginHome, _ config: String) throws {
        let first = try home.coordsh(["--config", config, "--db", home.path + "/shop.sqlite", "-c", "echo warm"])
        #expect(first.status == 0, "\(first.stderr)")
    }

    /// A home whose extra folder holds the crasher fixture (version 1), warmed, and a shell on it.
    static func withCrasher(_ label: String) throws -> (home: PluginHome, extra: String, shell: LiveShell) {
        let home = try PluginHome(label)
        let extra = try home.folder("extra")
        try FixtureBuilder.buildCrasher(output: extra + "/libcrasher.so")
        let config = try Self.config(home, directories: [extra])
        try Self.warm(home, config)
        let shell = try Self.shell(home, config)
        #expect(shell.send("plugins").contains("libcrasher.so  registered, loaded on first use"))
        return (home, extra, shell)
    }

    /// Puts crasher `version` in place the way install(1) does: a new file renamed over the old.
    static func replaceCrasher(in extra: String, version: Int) throws {
        try FixtureBuilder.buildCrasher(output: extra + "/.libcrasher.so.new", version: version)
        #expect(rename(extra + "/.libcrasher.so.new", extra + "/libcrasher.so") == 0)
    }

    /// The first use of the crasher failed with exactly one error line, naming it and its file.
    static func expectOneLineLoadFailure(_ output: String, extra: String) {
        let errors = output.split(separator: "\n").filter { $0.hasPrefix("coordsh: error:") }
        #expect(errors.count == 1 && errors[0].contains("plugin crasher (\(extra)/libcrasher.so) could not be loaded"), "\(output)")
    }

    /// A home with the bundled plugins, warmed, and a shell on it starting at the catalog.
    static func warmedShell(_ label: String) throws -> (PluginHome, LiveShell) {
        let home = try PluginHome(label)
        let config = try Self.config(home)
        try Self.warm(home, config)
        return (home, try Self.shell(home, config))
    }

    static func shell(_ home: PluginHome, _ config: String) throws -> LiveShell {
        // --keep-going: a refused line (a wrong route on purpose) does not end the script.
        try LiveShell(["--config", config, "--db", home.path + "/shop.sqlite", "--keep-going"], environment: home.environment)
    }

    @Test("a cached plugin is not mapped by help, pages, a wrong route or another feature's command; its first message loads it and works")
    func registeredNotLoaded() throws {
        let (home, shell) = try Self.warmedShell("lazy")
        defer { home.remove() }
        defer { _ = shell.finish() }
        #expect(shell.send("help").contains("cart"))
        #expect(shell.send("help cart").contains("add"))
        #expect(shell.send("pages").contains("payment/receipt"))
        #expect(shell.send("open cart/nowhere").contains("unknown page 'cart/nowhere'"))
        #expect(shell.send("cart ad 3").contains("did you mean 'cart add'"))
        #expect(shell.send("content show 3").contains("Leather Boots"))
        var maps = try shell.mappedFiles()
        #expect(maps.contains("libContentPlugin.so"), "the home page's plugin is loaded")
        for name in ["Cart", "Account", "Payment"] {
            #expect(!maps.contains("lib\(name)Plugin.so"), "lib\(name)Plugin.so was mapped before its first use")
        }
        #expect(shell.send("plugins").contains("libCartPlugin.so  registered, loaded on first use"))
        #expect(shell.send("cart add 3").contains("── Cart (1 item) ──"))
        maps = try shell.mappedFiles()
        #expect(maps.contains("libCartPlugin.so"))
        #expect(!maps.contains("libPaymentPlugin.so"))
        let listed = shell.send("plugins")
        #expect(listed.contains("libCartPlugin.so\n") && listed.contains("libPaymentPlugin.so  registered, loaded on first use"), "\(listed)")
        // Asked for by name, a registered plugin is loaded now.
        let payment = BuildProducts.directory + "/libPaymentPlugin.so"
        #expect(shell.send("plugins load \(payment)").contains("loaded plugin payment 0.3.0 from \(payment)"))
        #expect(try shell.mappedFiles().contains("libPaymentPlugin.so"))
    }

    @Test(
        "a script's home page is opened when a command first needs the scene: help, pages, help cart, plugins, config and echo map no plugin image; where opens it — in one process and in a supervised shell's app process",
        arguments: [false, true])
    func startPageDeferred(supervised: Bool) throws {
        let home = try PluginHome(supervised ? "lazyhomesup" : "lazyhome")
        let config = try Self.config(home)
        try Self.warm(home, config)
        let shell = try LiveShell(
            (supervised ? ["--supervised"] : []) + ["--config", config, "--db", home.path + "/shop.sqlite", "--keep-going"], environment: home.environment)
        defer { home.remove() }
        defer { _ = shell.finish() }
        #expect(shell.send("help").contains("cart"))
        #expect(shell.send("pages").contains("content/catalog"))
        #expect(shell.send("help cart").contains("add"))
        #expect(shell.send("config").contains("shell.home = 'content/catalog'"))
        #expect(shell.send("echo still nothing") == "still nothing\n")
        let listed = shell.send("plugins")
        for name in ["Content", "Account", "Cart", "Payment"] {
            #expect(listed.contains("lib\(name)Plugin.so  registered, loaded on first use"), "\(listed)")
        }
        var maps = try shell.mappedFiles(appProcess: supervised)
        for name in ["Content", "Account", "Cart", "Payment"] {
            #expect(!maps.contains("lib\(name)Plugin.so"), "lib\(name)Plugin.so was mapped by commands that read only the registry")
        }
        // The first command that needs the scene finds it on the home page, as before.
        #expect(shell.send("where").contains("content/catalog"))
        maps = try shell.mappedFiles(appProcess: supervised)
        #expect(maps.contains("libContentPlugin.so") && !maps.contains("libCartPlugin.so"))
    }

    @Test("the shell and coordsh-server (a supervised shell's app process) trust each other's verdicts: whichever ran last, the other registers from the cache")
    func shellAndServerShareVerdicts() throws {
        // Either order: the first start vets, the other executable's start finds the verdicts
        // and registers the plugins without loading them (a cache keyed on one executable
        // re-vetted every plugin each time the shell and its worker took turns).
        for supervisedFirst in [true, false] {
            let home = try PluginHome(supervisedFirst ? "sharedsup" : "sharedone")
            defer { home.remove() }
            let config = try Self.config(home, startPage: "")
            let db = ["--db", home.path + "/shop.sqlite"]
            let first = try home.coordsh((supervisedFirst ? ["--supervised"] : []) + ["--config", config] + db + ["-c", "echo warm"])
            #expect(first.status == 0, "\(first.stderr)")
            let second = try home.coordsh((supervisedFirst ? [] : ["--supervised"]) + ["--config", config] + db + ["-c", "plugins"])
            #expect(second.status == 0, "\(second.stderr)")
            for name in ["Content", "Account", "Cart", "Payment"] {
                #expect(second.stdout.contains("lib\(name)Plugin.so  registered, loaded on first use"),
                        "supervised first: \(supervisedFirst)\n\(second.stdout)")
            }
        }
    }

    @Test("a plugin that provides a service another needs is loaded when that service is first needed")
    func providerLoadedOnNeed() throws {
        let home = try PluginHome("lazyneed")
        defer { home.remove() }
        let config = try Self.config(home, startPage: "")
        try Self.warm(home, config)
        let shell = try Self.shell(home, config)
        defer { _ = shell.finish() }
        #expect(shell.send("deps").contains("content  from content  (not loaded yet)"))
        #expect(!(try shell.mappedFiles()).contains("libContentPlugin.so"))
        // Cart prices the line from the catalog: the Content plugin's service.
        #expect(shell.send("cart add 3").contains("#3   Leather Boots"))
        let maps = try shell.mappedFiles()
        #expect(maps.contains("libCartPlugin.so") && maps.contains("libContentPlugin.so"))
        #expect(!maps.contains("libAccountPlugin.so"))
    }

    @Test("a plugin file replaced between start-up and first use is vetted again and the new one loaded, not the cached registration")
    func replacedBeforeFirstUse() throws {
        let (home, extra, shell) = try Self.withCrasher("lazyswap")
        defer { home.remove() }
        defer { _ = shell.finish() }
        #expect(!shell.send("pages").contains("crasher/news"))
        #expect(shell.send("plugins").contains("crasher 1.0.0"))
        try Self.replaceCrasher(in: extra, version: 2)
        let used = shell.send("crash now fine")
        #expect(!used.contains("error"), "\(used)")
        let plugins = shell.send("plugins")
        #expect(plugins.contains("crasher 2.0.0") && !plugins.contains("crasher 1.0.0"), "\(plugins)")
        #expect(shell.send("open crasher/news").contains("version 2 is here"))
    }

    @Test("replaced before first use by a version that traps when loaded: vetted again, refused in one line at first use, the shell goes on")
    func replacedByABrokenVersion() throws {
        let (home, extra, shell) = try Self.withCrasher("lazytrap")
        defer { home.remove() }
        try Self.replaceCrasher(in: extra, version: 3)
        // Loaded on the strength of the old verdict, its entry's trap would end the shell.
        Self.expectOneLineLoadFailure(shell.send("crash now fine"), extra: extra)
        #expect(shell.send("echo still here") == "still here\n")
        #expect(shell.finish() == 1)
    }

    @Test("every check a plugin passes at start-up applies again at its first use: made group-writable, another owner, off the allow-list, quarantined meanwhile — each refused in one line, the shell goes on")
    func startUpChecksAtFirstUse() throws {
        // Made writable by its group between start-up and first use.
        do {
            let (home, extra, shell) = try Self.withCrasher("lazymode")
            defer { home.remove() }
            chmod(extra + "/libcrasher.so", 0o664)
            let used = shell.send("crash now fine")
            Self.expectOneLineLoadFailure(used, extra: extra)
            #expect(used.contains("writable by its group (mode 664)"), "\(used)")
            #expect(shell.send("echo still here") == "still here\n")
            _ = shell.finish()
        }
        // Given to another user (root can; the test needs root for it).
        if getuid() == 0, let nobody = getpwnam("nobody")?.pointee {
            let (home, extra, shell) = try Self.withCrasher("lazyowner")
            defer { home.remove() }
            chown(extra + "/libcrasher.so", nobody.pw_uid, nobody.pw_gid)
            let used = shell.send("crash now fine")
            Self.expectOneLineLoadFailure(used, extra: extra)
            #expect(used.contains("it is owned by nobody (uid \(nobody.pw_uid)), not by you"), "\(used)")
            _ = shell.finish()
        }
        // Replaced by a file that is not on the allow-list: the cached registration was made
        // for the listed one.
        do {
            let home = try PluginHome("lazyallow")
            defer { home.remove() }
            let extra = try home.folder("extra")
            try FixtureBuilder.buildCrasher(output: extra + "/libcrasher.so")
            let listed = try [BuildProducts.plugin("Content"), BuildProducts.plugin("Cart"), BuildProducts.plugin("Account"),
                              BuildProducts.plugin("Payment"), extra + "/libcrasher.so"].map(Self.sha256)
            let config = try Self.config(home, directories: [extra])
            try (String(contentsOfFile: config, encoding: .utf8).replacingOccurrences(
                of: "[plugins]\n", with: "[plugins]\nallow = [\(listed.map { "\"\($0)\"" }.joined(separator: ", "))]\n"))
                .write(toFile: config, atomically: true, encoding: .utf8)
            try Self.warm(home, config)
            let shell = try Self.shell(home, config)
            #expect(shell.send("plugins").contains("libcrasher.so  registered, loaded on first use"))
            try Self.replaceCrasher(in: extra, version: 2)
            let used = shell.send("crash now fine")
            Self.expectOneLineLoadFailure(used, extra: extra)
            #expect(used.contains("not on the allow-list: sha256 \(try Self.sha256(extra + "/libcrasher.so"))"), "\(used)")
            _ = shell.finish()
        }
        // Quarantined by another shell (its crashes) between start-up and first use.
        do {
            let (home, extra, shell) = try Self.withCrasher("lazyquarantine")
            defer { home.remove() }
            let state = home.path + "/.local/state/coordsh"
            try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
            try "crasher\t2 crashes, the last running 'crash now index'\n".write(toFile: state + "/quarantine.tsv", atomically: true, encoding: .utf8)
            let used = shell.send("crash now fine")
            Self.expectOneLineLoadFailure(used, extra: extra)
            #expect(used.contains("quarantined: 2 crashes"), "\(used)")
            _ = shell.finish()
        }
    }

    static func sha256(_ path: String) throws -> String {
        let result = try run("/usr/bin/sha256sum", [path])
        return String(result.stdout.prefix(64))
    }

    @Test("a cache entry edited by hand is found out, the plugin vetted and loaded again, and the entry rebuilt")
    func editedCacheEntry() throws {
        let home = try PluginHome("lazyedit")
        defer { home.remove() }
        let config = try Self.config(home)
        try Self.warm(home, config)
        let cache = home.path + "/cache/coordsh/plugin-verdicts.tsv"
        let text = try String(contentsOfFile: cache, encoding: .utf8)
        // The cart's page `checkout`, as the cache packs it (an entry, then its fields).
        let page = "\u{1E}checkout\u{1F}", edited = "\u{1E}checkoot\u{1F}"
        #expect(text.contains(page))
        try text.replacingOccurrences(of: page, with: edited).write(toFile: cache, atomically: true, encoding: .utf8)
        let after = try home.coordsh(["--config", config, "--db", home.path + "/shop.sqlite", "--json", "-c", "pages", "-c", "plugins"])
        #expect(after.stdout.contains("\"cart/checkout") || after.stdout.contains("checkout key:string"), "\(after.stdout)")
        #expect(!after.stdout.contains("checkoot"))
        #expect(after.stdout.contains("\"vetting_processes\":1"), "only the edited entry is vetted again: \(after.stdout)")
        let rebuilt = try String(contentsOfFile: cache, encoding: .utf8)
        #expect(rebuilt.contains(page) && !rebuilt.contains("checkoot"))
        let third = try home.coordsh(["--config", config, "--db", home.path + "/shop.sqlite", "--json", "-c", "plugins"])
        #expect(third.stdout.contains("\"vetting_processes\":0"), "\(third.stdout)")
    }

    @Test("a plugin folder named through a link and by its real path is one folder: plugins vetted through one are not vetted again through the other")
    func linkedFolderSharesVerdicts() throws {
        let home = try PluginHome("lazylink")
        defer { home.remove() }
        let link = home.path + "/install-link"
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: BuildProducts.directory)
        func start(_ folder: String) throws -> String {
            let config = home.path + "/coordsh.toml"
            try "[plugins]\ndirs = [\"\(folder)\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
            let result = try home.coordsh(["--config", config, "--db", home.path + "/shop.sqlite", "--json", "-c", "plugins"])
            #expect(result.status == 0, "\(result.stderr)")
            return result.stdout
        }
        let throughLink = try start(link)
        #expect(throughLink.contains("\"vetting_processes\":4") && throughLink.contains(link + "/libCartPlugin.so"), "\(throughLink)")
        let byRealPath = try start(BuildProducts.directory)
        #expect(byRealPath.contains("\"vetting_processes\":0"), "the verdicts are the files', whatever the folder was called: \(byRealPath)")
        #expect(byRealPath.contains("registered, loaded on first use") || byRealPath.contains("\"loaded\":false"), "\(byRealPath)")
    }

    @Test("a registered plugin whose file is gone at first use: that command fails in one line, the shell goes on")
    func goneAtFirstUse() throws {
        let (home, extra, shell) = try Self.withCrasher("lazygone")
        defer { home.remove() }
        try FileManager.default.removeItem(atPath: extra + "/libcrasher.so")
        Self.expectOneLineLoadFailure(shell.send("crash now fine"), extra: extra)
        #expect(shell.send("echo after") == "after\n")
        #expect(shell.send("cart add 3").contains("── Cart (1 item) ──"))
        #expect(shell.finish() == 1, "a script with a failed line ends with status 1")
    }
}
