import CoordLoading
import Testing

/// The handshake's version rule (PLUGIN-GUIDE.md, "Which SDK a plugin needs"): a plugin built
/// against an older release of the same major loads; a newer one, another major, or before 1.0
/// another minor is refused with both versions and what to do.
@Suite struct VersionPromiseTests {
    @Test("within a major, older releases load and newer ones are refused; before 1.0, within a minor")
    func promise() {
        let loads = [("1.4.2", "1.4.2"), ("1.4.2", "1.4.0"), ("1.4.2", "1.0.0"), ("1.4.2", "1.3.9"), ("0.11.3", "0.11.0"), ("3.0.0", "3.0.0")]
        for (host, plugin) in loads {
            #expect(ReleaseVersion.refusal(library: "CoordSDK", loaded: host, builtAgainst: plugin) == nil, "\(plugin) in \(host)")
        }
        let refused: [(String, String, String)] = [
            ("1.4.2", "1.5.0", "plugin was built against CoordSDK 1.5.0, newer than this coordsh's 1.4.2; update coordsh to CoordSDK 1.5.0 or later, or rebuild the plugin against 1.4.2"),
            ("1.4.2", "1.4.3", "plugin was built against CoordSDK 1.4.3, newer than this coordsh's 1.4.2"),
            ("2.0.0", "1.9.0", "plugin was built against CoordSDK 1.9.0, this coordsh has 2.0.0 — another major version, whose API and ABI are not promised to match; rebuild the plugin against CoordSDK 2.x"),
            ("1.0.0", "2.0.0", "plugin was built against CoordSDK 2.0.0, this coordsh has 1.0.0 — another major version"),
            ("1.0.0", "0.11.0", "plugin was built against CoordSDK 0.11.0, this coordsh has 1.0.0 — another major version"),
            ("0.12.0", "0.11.0", "plugin was built against CoordSDK 0.11.0, this coordsh has 0.12.0 — another 0.x minor (before 1.0 each minor may break); rebuild the plugin against CoordSDK 0.12.x"),
            ("0.11.0", "0.11.1", "newer than this coordsh's 0.11.0"),
            ("1.0.0", "1.0", "plugin was built against CoordSDK '1.0', which is not a version (MAJOR.MINOR.PATCH); rebuild it against CoordSDK 1.0.0"),
            ("1.0.0", "1.0.0-beta", "which is not a version"),
            ("1.0.0", "01.0.0", "which is not a version"),
            ("1.0.0", "1.0.0\u{1B}[2J", "'1.0.0\\u{1B}[2J', which is not a version"),
            ("1.0.0", "", "plugin was built against CoordSDK '', which is not a version"),
        ]
        for (host, plugin, reason) in refused {
            let why = ReleaseVersion.refusal(library: "CoordSDK", loaded: host, builtAgainst: plugin)
            #expect(why?.contains(reason) == true, "\(plugin) in \(host): \(why ?? "loads")")
        }
    }
}
