import Foundation
import Testing
import TestSupport

/// Plugins in plain C (ABI version 2): the examples built with the system's `cc` against the
/// header alone, checked by `plugin check` and driven through coordsh; and C plugins that get
/// something wrong, each refused or reported in one line while the host lives.
@Suite("plugins in C (ABI 2)")
struct CPluginTests {
    static var examples: String { BuildProducts.packageRoot + "/Examples/C" }

    @Test("the C examples build with cc, pass plugin check, and run through coordsh: hello's handler gets its string, notes keeps a table per person and waits for a login")
    func examplesRun() throws {
        let folder = try makeTemporaryDirectory("cplugins")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for name in ["hello", "notes"] {
            try FixtureBuilder.buildCPlugin(Self.examples + "/\(name).c", output: folder + "/lib\(name).so")
            let check = try run(BuildProducts.coordsh, ["plugin", "check", folder + "/lib\(name).so"], environment: ["HOME": folder, "NO_COLOR": "1"])
            #expect(check.status == 0 && check.stdout.hasSuffix("18 passed, 0 failed\n"), "\(name): \(check.stdout)\(check.stderr)")
        }
        let lines = try String(contentsOfFile: Self.examples + "/hello.c", encoding: .utf8).split(separator: "\n")
        #expect(lines.count <= 15, "the hello plugin is \(lines.count) lines")

        let hello = try run(
            BuildProducts.coordsh, ["--plugin-dir", folder, "-c", "hello say 'dear world'", "-c", "help hello"],
            environment: ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "NO_COLOR": "1"])
        #expect(hello.status == 0, "\(hello.stderr)")
        #expect(hello.stdout.hasPrefix("note: dear world\n"), "\(hello.stdout)")
        #expect(hello.stdout.contains("hello say NAME                     greet someone"), "\(hello.stdout)")

        var transcript = try Transcript(path: Self.examples + "/notes.t")
        transcript.arguments += ["--plugin-dir", folder]
        try transcript.verify()
    }

    @Test("a C plugin that gets its descriptor or a call wrong is refused or reported in one line, and the host lives", arguments: [
        (1, "refused plugin", "message 'say': parameter 'text' has type 9, which this host does not know (1 int, 2 bool, 3 string, 4 route, 5 double)"),
        (12, "refused plugin", "feature_size 8 is smaller than the first coordsh_feature (88 bytes)"),
        (13, "error", "bad: sql: column 'data' holds a blob, which a C plugin is not handed; select hex(…) or CAST(… AS TEXT)"),
        (2, "refused plugin", "message 'say' has no handler function"),
        (3, "refused plugin", "the feature's summary is not UTF-8 text (or longer than 4096 bytes)"),
        (8, "refused plugin", "pages: count -1 is out of bounds (0 to 256)"),
        (4, "error", "bad say: the plugin returned 3 without saying why"),
        (5, "error", "bad: set_error's message: NULL where text was expected"),
        (7, "error", "bad: note's line is not UTF-8 text (or longer than 4096 bytes)"),
        (9, "error", "cartAdd: parameter 'productID' must be an int, got 'seven'"),
        (11, "error", "bad: reading table 'products' of feature 'content': refused 'read products': the plugin 'bad' must declare it and be granted it ('plugins grant bad read products' at a terminal, or the config's [plugins.grants] bad = [\"read products\"])"),
    ])
    func brokenPlugins(kind: Int, what: String, line: String) throws {
        let folder = try makeTemporaryDirectory("cbad\(kind)")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        try FixtureBuilder.buildBrokenCPlugin(kind: kind, output: folder + "/plugins/libbad.so")
        let result = try run(
            BuildProducts.coordsh, ["--plugin-dir", folder + "/plugins", "-c", "bad say hi", "-c", "echo unreachable"],
            environment: ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "NO_COLOR": "1"])
        let said = result.stderr.split(separator: "\n").map(String.init)
        if what == "refused plugin" {
            #expect(said.contains("coordsh: refused plugin \(folder)/plugins/libbad.so: \(line)"), "\(result.stderr)")
            #expect(said.contains("coordsh: error: unknown command 'bad'; 'help' lists the commands"), "\(result.stderr)")
            // The shell runs on without it: its command is unknown (a usage error, status 2).
            #expect(result.status == 2, "\(result.status): \(result.stderr)")
        } else {
            #expect(said == ["coordsh: error: \(line)"], "\(result.stderr)")
            // A one-line failure of the command, not a crash: batch mode stops with status 1.
            #expect(result.status == 1, "\(result.status): \(result.stderr)")
        }
    }

    @Test("every type reaches a C handler as the header says (a double among them, each required and optional), a page reads its numbers, a handler sending to one of the same signature keeps its own arguments, --json, a deep link and plugin check see the C feature as a Swift one")
    func everyTypeArrives() throws {
        let folder = try makeTemporaryDirectory("ctypes")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        let library = folder + "/plugins/libtyped.so"
        try FixtureBuilder.buildCPlugin(FixtureBuilder.sources + "/c_types.c", output: library)
        let environment = ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "NO_COLOR": "1"]
        let check = try run(BuildProducts.coordsh, ["plugin", "check", library], environment: environment)
        #expect(check.status == 0 && check.stdout.hasSuffix("18 passed, 0 failed\n"), "\(check.stdout)\(check.stderr)")
        #expect(check.stdout.contains("5 functions (1 render, 3 handlers, 1 completion), all in the plugin's image"), "\(check.stdout)")

        func shell(_ arguments: [String]) throws -> RunResult {
            try run(BuildProducts.coordsh, ["--plugin-dir", folder + "/plugins"] + arguments, environment: environment)
        }
        let typed = try shell([
            "-c", "typed every 7 yes 'two words' 2.5 content/catalog",
            "-c", "typed every count=-3 flag=no text=x amount=-0.125 route='cart/cart' maybeCount=9 maybeFlag=on maybeText=y maybeAmount=1e3",
            "-c", "open typed/point x=1.5 y=-2", "-c", "open typed/point x=0.1", "-c", "typed relay outer 5",
        ])
        #expect(typed.stdout == """
            note: count=7 flag=1 text=two words amount=2.5 route=content/catalog | - - - -
            note: count=-3 flag=0 text=x amount=-0.125 route=cart/cart | 9 1 y 1000
            ── Point ──
            x=1.5 y=-2
            ── Point ──
            x=0.1
            note: echo: inner 2
            note: relayed, still: outer 5

            """, "\(typed.stdout)\(typed.stderr)")
        #expect(typed.status == 0, "\(typed.stderr)")

        // A number that is not one is refused at the feature's door, before the plugin runs.
        let bad = try shell(["-c", "typed every 1 yes t nan content/catalog"])
        #expect(bad.status == 2 && bad.stdout.isEmpty, "\(bad.stdout)")
        #expect(bad.stderr.hasPrefix("coordsh: error: typed every: ") && bad.stderr.contains("amount") && bad.stderr.filter { $0 == "\n" }.count == 1,
                "\(bad.stderr)")

        let json = try shell(["--json", "-c", "open typed/point x=1.5"])
        let document = try #require(try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any], "\(json.stdout)")
        let page = try #require(document["page"] as? [String: Any], "\(json.stdout)")
        #expect(page["route"] as? String == "typed/point x=1.5" && page["url"] as? String == "coordsh://typed/point?x=1.5", "\(json.stdout)")
        #expect(page["lines"] as? [String] == ["x=1.5"], "\(json.stdout)")

        let link = try shell(["--open", "coordsh://typed/point?x=2.25&y=4", "-c", "where"])
        #expect(link.status == 0 && link.stdout.contains("typed/point x=2.25 y=4"), "\(link.stdout)\(link.stderr)")
    }

    @Test("a C page that writes more than the host keeps is cut, and says so")
    func longPageIsCut() throws {
        let folder = try makeTemporaryDirectory("cbadlong")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FixtureBuilder.buildBrokenCPlugin(kind: 6, output: folder + "/libbad.so")
        let result = try run(BuildProducts.coordsh, ["--plugin-dir", folder, "-c", "open bad/home"], environment: ["HOME": folder, "NO_COLOR": "1"])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdout.split(separator: "\n")
        #expect(lines.count == 2002 && lines.first == "── Bad ──" && lines.last == "(more than 2000 lines: the rest was cut)", "\(lines.count) lines")
    }

    @Test("a C plugin is registered from the cache at the next start and loaded on first use; a SIGSEGV in its handler under --supervised costs one command and names the plugin and the line; a second quarantines it until 'plugins allow'")
    func lazyAndSupervised() throws {
        let folder = try makeTemporaryDirectory("clazy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        try FixtureBuilder.buildCPlugin(Self.examples + "/hello.c", output: folder + "/plugins/libhello.so")
        let environment = ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_CACHE_HOME": folder + "/cache", "NO_COLOR": "1"]
        for round in 1...2 {
            let result = try run(BuildProducts.coordsh, ["--plugin-dir", folder + "/plugins", "-c", "plugins", "-c", "hello say again", "-c", "open hello/home"], environment: environment)
            #expect(result.status == 0 && result.stdout.contains("note: again"), "\(result.stdout)\(result.stderr)")
            let listed = "hello 1.0.0  prefix hello  1 page  \(folder)/plugins/libhello.so" + (round == 2 ? "  registered, loaded on first use" : "")
            #expect(result.stdout.contains(listed + "\n"), "round \(round): \(result.stdout)")
        }

        try FileManager.default.createDirectory(atPath: folder + "/crash", withIntermediateDirectories: true)
        try FixtureBuilder.buildBrokenCPlugin(kind: 10, output: folder + "/crash/libbad.so")
        let crash = try run(
            BuildProducts.coordsh, ["--supervised", "--plugin-dir", folder + "/crash", "-c", "bad say hi"], environment: environment)
        #expect(crash.status == 1)
        #expect(crash.stderr.contains("coordsh: error: the app process crashed running 'bad say hi' in plugin bad: SIGSEGV (Segmentation fault); restarted"), "\(crash.stderr)")

        // A second crash in one session quarantines it, as a Swift plugin; 'plugins allow' lets it in again.
        let twice = try run(
            BuildProducts.coordsh, ["--supervised", "--keep-going", "--plugin-dir", folder + "/crash"],
            input: "bad say hi\nbad say again\nplugins\nplugins allow bad\n", environment: environment, timeout: 120)
        #expect(twice.stderr.contains("'bad say again' in plugin bad: SIGSEGV (Segmentation fault); plugin bad quarantined after 2 crashes ('plugins allow bad' lets it load again)"), "\(twice.stderr)")
        #expect(twice.stdout.contains("refused \(folder)/crash/libbad.so: quarantined: 2 crashes, the last running 'bad say again'"), "\(twice.stdout)")
        #expect(twice.stdout.contains("plugin bad is no longer quarantined\nloaded plugin bad 1.0.0 from \(folder)/crash/libbad.so"), "\(twice.stdout)")
    }

    @Test("a Rust plugin (Examples/Rust, on the SDK's coordsh-sys: the header in Rust) builds with cargo offline, passes plugin check and runs through coordsh",
          .enabled(if: FixtureBuilder.cargo != nil, "cargo is not installed (rustup puts it in ~/.cargo/bin)"))
    func rustPluginRuns() throws {
        let folder = try makeTemporaryDirectory("rust")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let build = try FixtureBuilder.cargoBuild(manifest: BuildProducts.packageRoot + "/Examples/Rust/Cargo.toml", target: folder + "/target")
        #expect(build.status == 0, "\(build.stdout)")
        try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: folder + "/target/debug/libgreet.so", toPath: folder + "/plugins/libgreet.so")
        let check = try run(BuildProducts.coordsh, ["plugin", "check", folder + "/plugins/libgreet.so"], environment: ["HOME": folder, "NO_COLOR": "1"])
        #expect(check.status == 0 && check.stdout.hasSuffix("18 passed, 0 failed\n"), "\(check.stdout)\(check.stderr)")
        let shell = try run(
            BuildProducts.coordsh, ["--plugin-dir", folder + "/plugins", "-c", "greet hello Ann 2", "-c", "greet hello Bob 9"],
            environment: ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "NO_COLOR": "1"])
        #expect(shell.stdout == "note: hello, Ann, from Rust\nnote: hello, Ann, from Rust\n", "\(shell.stdout)")
        #expect(shell.stderr == "coordsh: error: greet hello: TIMES is 1 to 5\n" && shell.status == 1, "\(shell.stderr)")
    }

    @Test("coordsh-sys, the header written out in Rust, has the header's layout: every struct's size and every field's offset as the C compiler lays them out",
          .enabled(if: FixtureBuilder.cargo != nil, "cargo is not installed"))
    func rustDeclarationsMatchTheHeader() throws {
        let folder = try makeTemporaryDirectory("layout")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let program = folder + "/abi_layout"
        let header = BuildProducts.packageRoot + "/Sources/SDK/Sources/CCoordABI/include"
        let compiled = try run("/usr/bin/cc", ["-I", header, "-o", program, FixtureBuilder.sources + "/abi_layout.c"], environment: ProcessInfo.processInfo.environment)
        #expect(compiled.status == 0, "\(compiled.stderr)")
        let c = try run(program, [], environment: [:]).stdout.split(separator: "\n").map(String.init)
        let tested = try FixtureBuilder.cargo(
            ["test", "--offline", "--quiet", "--manifest-path", BuildProducts.packageRoot + "/Sources/SDK/Rust/coordsh-sys/Cargo.toml", "--", "--nocapture"],
            target: folder + "/target", mergeOutput: false)
        #expect(tested.status == 0, "\(tested.stdout)\(tested.stderr)")
        let rust = tested.stdout.split(separator: "\n").map(String.init).filter { $0.hasPrefix("layout ") }
        #expect(c.count > 50)
        #expect(rust == c, "\(rust.difference(from: c).map { "\($0)" }.joined(separator: "\n"))")
    }
}
