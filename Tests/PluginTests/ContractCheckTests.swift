import Foundation
import TestSupport
import Testing

@Suite("coordsh plugin check: the contract suite through the real binary, crash-isolated")
struct ContractCheckTests {
    let config = BuildProducts.packageRoot + "/config/coordsh.toml"

    func check(_ arguments: [String], home: PluginHome) throws -> RunResult {
        try home.coordsh(["plugin", "check"] + arguments)
    }

    @Test("the four bundled plugins pass every check, next to each other", arguments: BuildProducts.bundledPlugins)
    func bundled(_ name: String) throws {
        let home = try PluginHome("check")
        defer { home.remove() }
        let result = try check(["--config", config, BuildProducts.plugin(name)], home: home)
        let lines = result.stdout.split(separator: "\n")
        #expect(result.status == 0, "\(result.stdout)\(result.stderr)")
        #expect(lines.count == 19)
        #expect(lines.dropLast().allSatisfy { $0.hasPrefix("ok   ") })
        #expect(lines.last == "18 passed, 0 failed")
        // With dependencies means the installed companions and the host's services.
        #expect(result.stdout.contains("every page opens and renders with its dependencies — "))
        #expect(result.stdout.contains("(services: accounts, carts, content, data, host, passwords, payments, sceneLogins, secrets)"))
    }

    @Test("--json gives the same results as one document")
    func json() throws {
        let home = try PluginHome("checkjson")
        defer { home.remove() }
        let result = try check(["--json", "--alone", BuildProducts.plugin("Content")], home: home)
        #expect(result.status == 0)
        let document = try #require(try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any])
        #expect(document["passed"] as? Int == 18)
        #expect(document["failed"] as? Int == 0)
        let checks = try #require(document["checks"] as? [[String: Any]])
        #expect(checks.map { $0["id"] as? String ?? "" }.prefix(3) == ["file", "entry", "magic"])
        #expect(checks.allSatisfy { $0["passed"] as? Bool == true })
    }

    @Test("each broken plugin fails the check it breaks, and only that one")
    func brokenPlugins() throws {
        let home = try PluginHome("checkbroken")
        defer { home.remove() }
        let folder = try home.folder("fixtures")
        try FixtureBuilder.buildC(.segfault, output: folder + "/libsegv.so")
        try FixtureBuilder.buildC(.hang, output: folder + "/libhang.so")
        try FixtureBuilder.buildC(.otherSDK, output: folder + "/libothersdk.so")
        for variant in ["PAGE_CRASH", "LEAK", "UNHANDLED", "DUPROUTE"] {
            try FixtureBuilder.buildProbe(variant, output: folder + "/lib\(variant.lowercased()).so")
        }
        try FixtureBuilder.buildProbe(output: folder + "/libprobe.so")

        func failures(_ file: String, _ extra: [String] = []) throws -> (status: Int32, failed: [String: String], last: String) {
            let result = try check(["--alone", "--json"] + extra + [folder + "/" + file], home: home)
            let document = try JSONSerialization.jsonObject(with: Data(result.stdout.utf8)) as? [String: Any] ?? [:]
            var failed: [String: String] = [:]
            for entry in document["checks"] as? [[String: Any]] ?? [] where entry["passed"] as? Bool == false {
                failed[entry["id"] as? String ?? ""] = entry["detail"] as? String ?? ""
            }
            return (result.status, failed, "\(document["passed"] ?? "?") passed, \(document["failed"] ?? "?") failed")
        }

        let good = try failures("libprobe.so")
        #expect(good.status == 0 && good.failed.isEmpty, "\(good.failed)")

        let segv = try failures("libsegv.so")
        #expect(segv.status == 1)
        #expect(segv.failed["entry"] == "crashed with SIGSEGV (Segmentation fault) in its entry point")
        #expect(segv.failed["magic"] == "not run: the plugin crashed while loading")
        #expect(segv.last == "1 passed, 17 failed")

        let hang = try failures("libhang.so", ["--timeout", "1"])
        #expect(hang.failed["entry"] == "hung: no answer for 1 s in its entry point; killed")

        let sdk = try failures("libothersdk.so")
        #expect(sdk.failed["sdk-version"]?.contains("plugin was built against CoordSDK 0.0.1") == true)
        #expect(sdk.failed["magic"] == nil && sdk.failed["abi-version"] == nil)

        // A crash in one check fails that check; a new child goes on with the next.
        let pageCrash = try failures("libpage_crash.so")
        #expect(Set(pageCrash.failed.keys) == ["pages-bare", "pages-full"])
        #expect(pageCrash.failed["pages-bare"]?.contains("while opening its pages: ") == true)
        #expect(pageCrash.failed["pages-bare"]?.contains("Fatal error: probe page cannot render") == true)
        #expect(pageCrash.last == "16 passed, 2 failed")

        let leak = try failures("libleak.so")
        #expect(Set(leak.failed.keys) == ["lifecycle"])
        #expect(leak.failed["lifecycle"]?.hasPrefix("still alive after stop: ProbeCoordinator 'probe'") == true)

        let unhandled = try failures("libunhandled.so")
        #expect(Set(unhandled.failed.keys) == ["messages"])
        #expect(unhandled.failed["messages"]?.hasPrefix("'probe ping' is declared but nobody handles probePing") == true)

        let duplicateRoute = try failures("libduproute.so")
        #expect(duplicateRoute.failed["registers"] == "duplicate route 'probe/home'")
        #expect(duplicateRoute.failed["routes"] == "not run: needs “it registers exactly one feature with a unique prefix”")
    }

    @Test("a check, one whose plugin crashes its child, a start that vets the plugins and a supervised start leave nothing in the temporary folder")
    func nothingLeftInTemporaryFolder() throws {
        let home = try PluginHome("checktmp")
        defer { home.remove() }
        let temporary = try home.folder("tmp")
        let fixtures = try home.folder("fixtures")
        try FixtureBuilder.buildC(.segfault, output: fixtures + "/libsegv.so")
        var environment = home.environment
        environment["TMPDIR"] = temporary
        func left(after arguments: [String]) throws -> [String] {
            let result = try run(BuildProducts.coordsh, arguments, environment: environment)
            #expect(!result.stdout.isEmpty, "coordsh \(arguments): \(result.stderr)")
            return try FileManager.default.contentsOfDirectory(atPath: temporary)
        }
        // The first start vets the four plugins (the verdict cache is empty), each in a child
        // that opens no database.
        let first = try run(BuildProducts.coordsh, ["--config", config, "--json", "-c", "plugins"], environment: environment)
        #expect(first.stdout.contains("\"vetting_processes\":4"), "\(first.stdout)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: temporary) == [])
        // The front's running marker is a memory file, in no folder.
        #expect(try left(after: ["--supervised", "--config", config, "-c", "echo ok"]) == [])
        // Its children are confined: each check's scratch database is the parent's to remove.
        #expect(try left(after: ["plugin", "check", "--config", config, BuildProducts.plugin("Cart")]) == [])
        #expect(try left(after: ["plugin", "check", "--alone", fixtures + "/libsegv.so"]) == [])
    }
}
