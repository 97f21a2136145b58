@_spi(Host) import CoordSDK
import Testing

@Suite("Feature registry")
@MainActor
struct RegistryTests {
    @Test("a duplicate name or prefix is refused and the first registration stays")
    func duplicates() throws {
        let app = AppCoordinator()
        try app.register([shopDefinition(Recorder())], origin: nil)
        #expect(throws: CoordError.self) { try app.register([shopDefinition(Recorder())], origin: nil) }
        #expect(app.features.features.count == 1)
    }

    @Test("the global prefix is reserved")
    func reserved() {
        let app = AppCoordinator()
        #expect(throws: CoordError.registration("prefix 'global' is reserved for the app")) {
            try app.register([shopDefinition(Recorder(), prefix: "global")], origin: nil)
        }
    }

    @Test("a prefix is lower-case ASCII letters and digits, starting with a letter: anything else is refused in one line, nothing registered")
    func identifiers() throws {
        for bad in ["Shop", "sHop", "1shop", "shöp", "shop-x", "sh op", "", "\u{FF53}hop", "shop\u{301}", "shop\r\n", "shop_"] {
            let app = AppCoordinator()
            #expect(throws: CoordError.registration("prefix '\(bad)' must be lower-case letters and digits, starting with a letter")) {
                try app.register([shopDefinition(Recorder(), prefix: bad)], origin: nil)
            }
            #expect(app.features.features.isEmpty)
        }
        for good in ["s", "shop2", "a1b2c3"] {
            let app = AppCoordinator()
            try app.register([shopDefinition(Recorder(), prefix: good)], origin: nil)
            #expect(app.features.features.count == 1, "\(good)")
        }
    }

    @Test("a feature needing a service nobody provides is reported")
    func unmetNeeds() {
        let app = AppCoordinator()
        let needs = DependencyKey("payments")
        #expect(app.unmetNeeds(of: [shopDefinition(Recorder(), needs: [needs])]) == [needs])
        app.provide(ServiceKey<Int>("payments"), 1)
        #expect(app.unmetNeeds(of: [shopDefinition(Recorder(), needs: [needs])]).isEmpty)
    }

    @Test("the SDK version a plugin writes into its descriptor is the version of the library")
    func versionsMove() {
        // Two literals (one read from libCoordSDK.so, one emitted into each plugin) that a
        // version bump must change together, or every bundled plugin is refused.
        #expect(CoordSDKVersion.compiledAgainst == CoordSDKVersion.library)
    }
}
