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
