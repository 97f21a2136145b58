@testable import CoordRuntime
import Testing

/// The variables a configuration's paths may name (`$XDG_DATA_HOME`, `$CONFIG_DIR`, `~`…),
/// put in as a user expects wherever they stand in the path, however often, next to any text.
@Suite struct ConfigPathTests {
    let environment = ["HOME": "/home/ana", "XDG_DATA_HOME": "/data/ü", "XDG_STATE_HOME": "", "XDG_CACHE_HOME": "/c"]

    @Test("each variable is replaced everywhere it stands; a path without one is left as written")
    func expand() {
        let cases: [(String, String)] = [
            ("$XDG_DATA_HOME/coordsh/shop.sqlite", "/data/ü/coordsh/shop.sqlite"),
            ("$XDG_DATA_HOME/a/$XDG_DATA_HOME", "/data/ü/a//data/ü"),
            ("/tmp/é/$XDG_STATE_HOME/log", "/tmp/é//home/ana/.local/state/log"),
            ("$XDG_CONFIG_HOME/x", "/home/ana/.config/x"),
            ("$XDG_CACHE_HOMEless", "/cless"),
            ("~/plugins", "/home/ana/plugins"),
            ("~", "/home/ana"),
            ("$CONFIG_DIR/plugins", "/etc/coordsh/plugins"),
            ("/plain/path", "/plain/path"),
            ("/price$5/$UNKNOWN", "/price$5/$UNKNOWN"),
            ("$", "$"),
        ]
        for (path, expected) in cases {
            #expect(Config.expand(path, configDirectory: "/etc/coordsh", environment: environment) == expected, "\(path)")
        }
    }

    @Test("a variable's value is asked for only when the path names it, and once")
    func lazy() {
        var asked = 0
        let value = { () -> String in
            asked += 1
            return "/v"
        }
        #expect(Config.substituting("$A", in: "/x/y", with: value) == "/x/y")
        #expect(asked == 0)
        #expect(Config.substituting("$A", in: "$A/$A$A", with: value) == "/v//v/v")
        #expect(asked == 1)
        #expect(Config.substituting("$AB", in: "$A$AB", with: value) == "$A/v")
    }
}
