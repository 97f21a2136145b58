import Foundation
import TestSupport
import Testing

@Suite("Broken and hostile plugins are refused with a named reason; the shell serves the rest")
struct CorpusTests {
    @Test("a corpus of 20 kinds of broken plugin, refused at start-up, then not vetted again")
    func corpus() throws {
        let home = try PluginHome("corpus")
        defer { home.remove() }
        let corpus = try home.folder("corpus")
        try FixtureBuilder.buildHandshakeCorpus(into: corpus)
        try FixtureBuilder.buildBrokenFiles(into: corpus)
        try FixtureBuilder.buildC(.segfault, output: corpus + "/libsegv.so")
        try FixtureBuilder.buildC(.hang, output: corpus + "/libhang.so")
        for (variant, file) in [
            ("FATAL_ENTRY", "libfatal.so"), ("PAGE_CRASH", "libpagecrash.so"), ("DUPNAME", "libdupname.so"),
            ("DUPROUTE", "libduproute.so"), ("UNMET", "libunmet.so"),
        ] {
            try FixtureBuilder.buildProbe(variant, output: corpus + "/" + file)
        }
        try FixtureBuilder.buildProbe(output: corpus + "/libworldwritable.so")
        chmod(corpus + "/libworldwritable.so", 0o666)
        try FixtureBuilder.buildProbe(output: corpus + "/libstranger.so")
        // Another owner needs root to arrange; CI runs as root, a developer may not.
        let asRoot = getuid() == 0 && chown(corpus + "/libstranger.so", 65534, 65534) == 0
        if !asRoot { try FileManager.default.removeItem(atPath: corpus + "/libstranger.so") }

        let config = try home.config(directories: [corpus], extra: "vet_timeout = 2")
        let started = Date()
        let (json, stderr) = try home.plugins(config: config)
        let firstStart = Date().timeIntervalSince(started)
        #expect(json.loadedNames == ["account", "cart", "content", "payment"])
        var expected: [String: (String, [String])] = [
            "libX.so": ("not_elf", ["not an ELF file"]),
            "libempty.so": ("empty_file", ["empty file (0 bytes)"]),
            "libtruncated.so": ("truncated_elf", ["truncated ELF file: 4096 bytes, but its headers say it is at least"]),
            "libforeign.so": ("wrong_machine", ["built for ", ", this machine is "]),
            "libnoentry.so": ("no_entry_symbol", ["no entry symbol 'coordsh_plugin_entry'"]),
            "libentryerror.so": ("entry_failed", ["entry returned 3: database credentials missing"]),
            "libsegv.so": ("crashed", ["crashed with SIGSEGV (Segmentation fault) in its entry point"]),
            "libfatal.so": ("crashed", ["crashed with SIG", "in its entry point", "Fatal error: probe refuses to start"]),
            "libhang.so": ("hung", ["hung: no answer for 2 s in its entry point; killed"]),
            "libbadmagic.so": ("bad_magic", ["host expects 0x434F4F52, plugin has 0xDEADBEEF"]),
            "libfutureabi.so": ("abi_version_mismatch", ["plugin ABI version mismatch — host speaks 1 (Swift) and 2 (C), plugin is 99"]),
            "libothersdk.so": ("sdk_version_mismatch", ["plugin was built against CoordSDK 0.0.1, this coordsh has \(FixtureBuilder.sdkVersion) — another major version"]),
            "libothercompiler.so": ("compiler_mismatch", ["plugin with 5.9; on Linux the Swift runtime the host and every plugin share has no stable ABI"]),
            "libdupname.so": ("duplicate", ["duplicate plugin name 'cart': already loaded from \(BuildProducts.plugin("Cart"))"]),
            "libduplicateprefix.so": ("duplicate", ["duplicate prefix 'cart': already used by feature 'cart'"]),
            "libothershop.so": ("library_version_mismatch", ["CoordShop version mismatch — plugin was built against CoordShop 0.0.1, this coordsh has 3.0.0"]),
            "libnofarm.so": ("library_version_mismatch", ["built against CoordFarm 2.0.0 but is not linked with libCoordFarm.so"]),
            "libduproute.so": ("duplicate", ["duplicate route 'probe/home'"]),
            "libunmet.so": ("unmet_dependency", ["needs 'warpdrive', which neither the host nor any loaded plugin provides"]),
            "libpagecrash.so": ("crashed", ["while opening its pages", "Fatal error: probe page cannot render"]),
            "libworldwritable.so": ("insecure_permissions", ["writable by group and others (mode 666)", "chmod go-w \(corpus)/libworldwritable.so"]),
        ]
        if asRoot { expected["libstranger.so"] = ("wrong_owner", ["owned by nobody (uid 65534), not by you"]) }
        let refused = json.refusedByFile
        #expect(Set(refused.keys) == Set(expected.keys))
        for (file, (kind, fragments)) in expected {
            let refusal = try #require(refused[file], "\(file) was not refused")
            #expect(refusal.kind == kind, "\(file): \(refusal)")
            for fragment in fragments { #expect(refusal.reason.contains(fragment), "\(file): \(refusal.reason)") }
            #expect(stderr.contains("coordsh: refused plugin \(corpus)/\(file): \(refusal.reason)\n"), "\(file)")
        }
        #expect(json["vetting_processes"] as? Int == 4 + expected.count - (asRoot ? 6 : 5))

        // An ordinary start: every verdict is cached, so no child runs and the hang is not
        // waited for again; the refusals stay the same.
        let again = Date()
        let (second, _) = try home.plugins(config: config)
        #expect(second["vetting_processes"] as? Int == 0)
        #expect(second.loadedNames == json.loadedNames)
        #expect(second.refusedByFile.mapValues(\.reason) == refused.mapValues(\.reason))
        #expect(Date().timeIntervalSince(again) < firstStart, "a cached start should not wait for the hanging plugin")
    }

    @Test("with an allow-list only listed hashes load, and a refusal prints the hash to add")
    func allowList() throws {
        let home = try PluginHome("allow")
        defer { home.remove() }
        let extra = try home.folder("extra")
        let probe = extra + "/libprobe.so"
        try FixtureBuilder.buildProbe(output: probe)
        let bundled = try BuildProducts.bundledPlugins.map { try sha256(BuildProducts.plugin($0)) }
        let list = bundled.map { "\"\($0)\"" }.joined(separator: ", ")
        var config = try home.config(directories: [extra], extra: "allow = [\(list)]")
        let (json, _) = try home.plugins(config: config)
        #expect(json.loadedNames == ["account", "cart", "content", "payment"])
        let hash = try sha256(probe)
        let refusal = try #require(json.refusedByFile["libprobe.so"])
        #expect(refusal.kind == "not_on_allow_list")
        #expect(refusal.reason == "not on the allow-list: sha256 \(hash); if you trust it, add \"\(hash)\" to [plugins] allow in \(config)")

        config = try home.config(directories: [extra], extra: "allow = [\(list), \"\(hash)\"]")
        #expect(try home.plugins(config: config).json.loadedNames == ["account", "cart", "content", "payment", "probe"])
    }

    @Test("a plugin folder its group can write to is refused, naming the folder and the fix")
    func groupWritableFolder() throws {
        let home = try PluginHome("perms")
        defer { home.remove() }
        let shared = try home.folder("shared")
        try FixtureBuilder.buildProbe(output: shared + "/libprobe.so")
        chmod(shared, 0o775)
        let (json, _) = try home.plugins(config: home.config(directories: [shared]))
        let refusal = try #require(json.refusedByFile["libprobe.so"])
        #expect(refusal.kind == "insecure_permissions")
        #expect(refusal.reason.hasPrefix("its folder \(shared) is writable by its group (mode 775)"))
        #expect(refusal.reason.hasSuffix("fix with: chmod go-w \(shared)"))
    }

    @Test("a verdict is reused until the file changes; then it is vetted again")
    func cacheFollowsTheFile() throws {
        let home = try PluginHome("cache")
        defer { home.remove() }
        let extra = try home.folder("extra")
        let probe = extra + "/libprobe.so"
        try FixtureBuilder.buildProbe(output: probe)
        let config = try home.config(directories: [extra])
        let first = try home.plugins(config: config).json
        #expect(first["vetting_processes"] as? Int == 5)
        #expect(first.loadedNames.contains("probe"))
        #expect(try home.plugins(config: config).json["vetting_processes"] as? Int == 0)
        // Same bytes, new times: the file is not what was vetted any more.
        let later = Date().addingTimeInterval(5)
        try FileManager.default.setAttributes([.modificationDate: later], ofItemAtPath: probe)
        let third = try home.plugins(config: config).json
        #expect(third["vetting_processes"] as? Int == 1)
        #expect(third.loadedNames.contains("probe"))

        // Other bytes of the same size written into the same file, and its old modification
        // time put back: size and mtime match the cached verdict, the change time and the
        // hash do not. Vetted again, and refused: the entry symbol's name no longer matches.
        let before = try #require(try FileManager.default.attributesOfItem(atPath: probe)[.modificationDate] as? Date)
        var bytes = try Data(contentsOf: URL(fileURLWithPath: probe))
        let size = bytes.count
        let name = Data("coordsh_plugin_entry\0".utf8)
        var renamed = 0
        while let range = bytes.range(of: name) {
            bytes[range.upperBound - 2] = UInt8(ascii: "x")
            renamed += 1
        }
        #expect(renamed >= 1)
        let handle = try FileHandle(forUpdating: URL(fileURLWithPath: probe))
        try handle.write(contentsOf: bytes)
        try handle.close()
        try FileManager.default.setAttributes([.modificationDate: before], ofItemAtPath: probe)
        #expect(try Data(contentsOf: URL(fileURLWithPath: probe)).count == size)
        let fourth = try home.plugins(config: config).json
        #expect(fourth["vetting_processes"] as? Int == 1)
        #expect(!fourth.loadedNames.contains("probe"))
        #expect(fourth.refusedByFile["libprobe.so"]?.kind == "no_entry_symbol")
    }

    private func sha256(_ path: String) throws -> String {
        let result = try run("/usr/bin/sha256sum", [path])
        return String(result.stdout.prefix(64))
    }
}
