import Foundation
import TestSupport
import Testing

/// Grants, through the real binary and a real outside plugin (the intruder fixture): what it
/// declared and the person granted in `[plugins.grants]` it gets — exactly that; declared and
/// not granted, or granted and not declared, it does not. `plugins intruder` and
/// `plugin check` show what it declares.
@Suite("Grants to an outside plugin", .serialized)
struct GrantTests {
    final class Setup {
        let folder: String
        let config: String
        init(declares: Bool, grants: [String]?) throws {
            folder = try makeTemporaryDirectory("grants")
            try FileManager.default.createDirectory(atPath: folder + "/plugins", withIntermediateDirectories: true)
            chmod(folder + "/plugins", 0o755)
            try FixtureBuilder.buildIntruder(output: folder + "/plugins/libintruder.so", declares: declares)
            config = folder + "/coordsh.toml"
            var text = "[plugins]\ndirs = [\"$SDK_DIR\", \"\(folder)/plugins\"]\n"
            if let grants { text += "\n[plugins.grants]\nintruder = [\(grants.map { "\"\($0)\"" }.joined(separator: ", "))]\n" }
            try text.write(toFile: config, atomically: true, encoding: .utf8)
        }
        deinit { try? FileManager.default.removeItem(atPath: folder) }

        var environment: [String: String] {
            ["HOME": folder + "/home", "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state",
             "XDG_CACHE_HOME": folder + "/cache", "XDG_RUNTIME_DIR": folder + "/run", "SHOP_PW": "correct horse battery"]
        }

        func shell(_ mode: String, _ script: String) throws -> RunResult {
            try run(BuildProducts.coordsh, [mode, "--keep-going", "--config", config, "--password-env", "SHOP_PW"],
                    input: script, environment: environment, timeout: 120)
        }
    }

    static let script = """
        content list
        intrude sql 'SELECT name FROM products WHERE id = 1'
        intrude secret 'Password for the intruder'
        intrude sql 'SELECT count(*) FROM users'
        echo done

        """

    @Test("declared and granted: exactly that (a table read, the prompt); what it was not granted is still refused")
    func grantedGetsExactlyThat() throws {
        let setup = try Setup(declares: true, grants: ["read products", "service secrets"])
        for mode in ["--single-process", "--supervised"] {
            let result = try setup.shell(mode, Self.script)
            #expect(result.stdout.contains("1 rows: Trail Running Shoes"), "\(mode): \(result.stdout)\(result.stderr)")
            #expect(result.stdout.contains("the person said: correct horse battery"), "\(mode): \(result.stdout)\(result.stderr)")
            #expect(result.stderr.contains("refused 'read users'"), "\(mode): \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "\(mode): one refusal: \(result.stderr)")
            #expect(result.stdout.hasSuffix("done\n") && result.status == 1, "\(mode)")
        }
    }

    @Test("declared, not granted: refused, naming the grant; the --password-env value never reaches its prompt")
    func declaredNotGranted() throws {
        let setup = try Setup(declares: true, grants: nil)
        for mode in ["--single-process", "--supervised"] {
            let result = try setup.shell(mode, Self.script)
            #expect(result.stderr.contains("refused 'read products': the plugin 'intruder' must declare it and be granted it ('plugins grant intruder read products' at a terminal, or the config's [plugins.grants] intruder = [\"read products\"])"), "\(mode): \(result.stderr)")
            #expect(result.stderr.contains("intrude secret: refused 'service secrets'"), "\(mode): \(result.stderr)")
            #expect(!result.stdout.contains("correct horse") && !result.stderr.contains("correct horse"), "\(mode)")
            #expect(result.stderr.split(separator: "\n").count == 3, "\(mode): \(result.stderr)")
        }
    }

    @Test("granted, not declared: refused — a grant covers only what the plugin says it uses")
    func grantedNotDeclared() throws {
        let setup = try Setup(declares: false, grants: ["read products", "service secrets"])
        let result = try setup.shell("--single-process", Self.script)
        #expect(result.stderr.contains("refused 'read products'"), "\(result.stderr)")
        #expect(result.stderr.contains("refused 'service secrets'"), "\(result.stderr)")
        #expect(!result.stdout.contains("correct horse"))
    }

    @Test("a grant that is no capability is a one-line config error")
    func badGrant() throws {
        let setup = try Setup(declares: true, grants: ["read"])
        let result = try setup.shell("--single-process", "echo hi\n")
        #expect(result.status != 0)
        #expect(result.stderr.contains("plugins.grants.intruder") && result.stderr.contains("'read' is not one"), "\(result.stderr)")
    }

    @Test("a copy of Cart outside the install is an outside plugin: its checkout waiting for accounts is refused in one line when Account loads, and goes on once granted; a link to the bundled Cart, or to the install's folder, is bundled")
    func outsideCopyOfCart() throws {
        let folder = try makeTemporaryDirectory("cartcopy")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let copies = folder + "/copies", links = folder + "/links"
        for dir in [copies, links] { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) }
        for name in ["Content", "Cart", "Payment"] {
            try FileManager.default.copyItem(atPath: BuildProducts.plugin(name), toPath: copies + "/lib\(name)Plugin.so")
            try FileManager.default.createSymbolicLink(atPath: links + "/lib\(name)Plugin.so", withDestinationPath: BuildProducts.plugin(name))
        }
        func checkout(_ dir: String, grants: String = "") throws -> RunResult {
            let config = folder + "/coordsh.toml"
            try "[plugins]\ndirs = [\"\(dir)\"]\n\(grants)".write(toFile: config, atomically: true, encoding: .utf8)
            return try run(
                BuildProducts.coordsh, ["--config", config, "--password-env", "PW", "--db", folder + "/shop-\(grants.isEmpty).sqlite"],
                input: "cart add 9\ncart checkout\nplugins load \(BuildProducts.plugin("Account"))\n",
                environment: ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_CACHE_HOME": folder + "/cache", "PW": "long enough password"])
        }
        let refused = try checkout(copies)
        #expect(refused.stderr.contains("cartCheckout() dropped at coordinator cart: cartCheckout: refused 'service accounts': the plugin 'cart' must declare it and be granted it ('plugins grant cart service accounts' at a terminal, or the config's [plugins.grants] cart = [\"service accounts\"])"), "\(refused.stderr)")
        #expect(!refused.stdout.contains("── Log in ──"))
        let granted = try checkout(copies, grants: "[plugins.grants]\ncart = [\"service accounts\"]\n")
        #expect(granted.stdout.contains("log in to continue the checkout"), "\(granted.stdout)\(granted.stderr)")
        let linked = try checkout(links)
        #expect(linked.stdout.contains("log in to continue the checkout"), "\(linked.stdout)\(linked.stderr)")
        // A plugin folder that is a link to the install: its plugins are known by their real
        // paths, so they are the bundled ones.
        let linkedFolder = folder + "/linked-install"
        try FileManager.default.createSymbolicLink(atPath: linkedFolder, withDestinationPath: BuildProducts.directory)
        let throughFolder = try checkout(linkedFolder)
        #expect(throughFolder.stdout.contains("log in to continue the checkout"), "\(throughFolder.stdout)\(throughFolder.stderr)")
    }

    @Test("plugins grant and revoke: checked against what the plugin declares, kept in the person's config folder, in force at once and in the next shell; a --single-process shell cannot write them")
    func grantAndRevoke() throws {
        let setup = try Setup(declares: true, grants: nil)
        let granted = try setup.shell("--supervised", """
            plugins grant intruder read products
            intrude sql 'SELECT name FROM products WHERE id = 1'
            intrude secret 'Password for the intruder'
            plugins grant intruder read users
            plugins grant nobody
            plugins grant cart
            plugins grant intruder bogus

            """)
        #expect(granted.stdout.contains("granted intruder: read products\n"), "\(granted.stdout)\(granted.stderr)")
        #expect(granted.stdout.contains("note: the session was handed over to a new app process, which holds the grants as they are now"))
        #expect(granted.stdout.contains("1 rows: Trail Running Shoes"), "\(granted.stdout)\(granted.stderr)")
        let errors = granted.stderr.split(separator: "\n")
        #expect(errors.count == 5, "\(granted.stderr)")
        #expect(granted.stderr.contains("intrude secret: refused 'service secrets'"))
        #expect(granted.stderr.contains("plugins grant: 'intruder' does not declare 'read users' (it declares read products, service secrets)"))
        #expect(granted.stderr.contains("plugins grant: no plugin named 'nobody' is loaded"))
        #expect(granted.stderr.contains("plugins grant: 'cart' is bundled with coordsh: what it declares is granted"))
        #expect(granted.stderr.contains("'bogus' is not a capability"))
        let file = setup.folder + "/home/.config/coordsh/plugin-grants.tsv"
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("intruder\t-\tgranted\tread products\n"))

        // The next shell, in one process, holds it; it cannot change it.
        let next = try setup.shell("--single-process", """
            intrude sql 'SELECT name FROM products WHERE id = 1'
            plugins grant intruder service secrets

            """)
        #expect(next.stdout.contains("1 rows: Trail Running Shoes"), "\(next.stdout)\(next.stderr)")
        #expect(next.stderr.contains("plugins grant: \(file) cannot be written from this process (it runs plugin code)"), "\(next.stderr)")

        let revoked = try setup.shell("--supervised", """
            plugins revoke intruder
            intrude sql 'SELECT name FROM products WHERE id = 1'

            """)
        #expect(revoked.stdout.contains("revoked from intruder: read products\n"), "\(revoked.stdout)\(revoked.stderr)")
        #expect(revoked.stderr.contains("refused 'read products'"), "\(revoked.stderr)")
        // Taken back counts as refused for this file: not asked about again until it changes.
        let sum = try run("/usr/bin/sha256sum", [setup.folder + "/plugins/libintruder.so"], environment: [:])
        let sha256 = String(sum.stdout.prefix(64))
        #expect(try String(contentsOfFile: file, encoding: .utf8).contains("intruder\t\(sha256)\trefused\tread products\n"))
    }

    @Test("plugin check fails a plugin that uses what it did not declare, naming it and how to declare it; declared, it passes")
    func checkNamesUndeclared() throws {
        for declares in [false, true] {
            let setup = try Setup(declares: declares, grants: nil)
            let result = try run(BuildProducts.coordsh, ["plugin", "check", "--alone", setup.folder + "/plugins/libintruder.so"],
                                 environment: setup.environment, timeout: 120)
            if declares {
                #expect(result.status == 0 && result.stdout.hasSuffix("18 passed, 0 failed\n"), "\(result.stdout)\(result.stderr)")
            } else {
                #expect(result.status != 0, "\(result.stdout)")
                #expect(result.stdout.contains("FAIL every message it declares is handled — 'intrude secret' uses 'service secrets', which the plugin does not declare (FeatureDefinition uses: [.service(\"secrets\")])"), "\(result.stdout)")
                #expect(result.stdout.hasSuffix("17 passed, 1 failed\n"), "\(result.stdout)")
            }
        }
    }
}
