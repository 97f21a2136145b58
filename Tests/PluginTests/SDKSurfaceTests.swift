import Foundation
import TestSupport
import Testing

/// What a plugin author's code sees of the SDK: its own API, not the host's plumbing (which
/// is `@_spi(Host)`, imported only by the host). Compiled as an outside author compiles.
@Suite("The SDK's face to plugin authors")
struct SDKSurfaceTests {
    static func compile(_ body: String) throws -> String? {
        let folder = try makeTemporaryDirectory("surface")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let source = folder + "/surface.swift"
        try ("import CoordSDK\n@MainActor func probe() {\n" + body + "\n}\n").write(toFile: source, atomically: true, encoding: .utf8)
        do {
            try FixtureBuilder.buildSwiftPlugin(source, module: "surface", output: folder + "/libsurface.so")
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test("plugin code compiles against what authors use; the registry, the manifest, the staging registrar, grants and dispatch traces are not in its scope")
    func hostPlumbingIsOutOfScope() throws {
        let authors = """
            let key = ServiceKey<any DataManaging>("data")
            let app = AppCoordinator()
            _ = (key, app, Services.visitor, Message(MessageName("cartAdd")), Rendering(title: "t", lines: []))
            """
        #expect(try Self.compile(authors) == nil)
        for (use, type) in [
            ("_ = FeatureRegistry()", "FeatureRegistry"), ("let m: FeatureManifest? = nil; _ = m", "FeatureManifest"),
            ("let t: DispatchTrace? = nil; _ = t", "DispatchTrace"), ("let a: (any FeatureAccess)? = nil; _ = a", "FeatureAccess"),
            ("_ = Words.split(\"a b\")", "Words"), ("_ = AppCoordinator().features", "features"),
        ] {
            let error = try #require(try Self.compile(use), "'\(use)' compiled")
            #expect(error.contains("'\(type)'"), "\(error)")
        }
    }

    @Test("the reference (./docs) builds with no DocC warning, and every public symbol of CoordSDK, CoordShop and CoordContract has a doc comment")
    func referenceIsComplete() throws {
        let out = try makeTemporaryDirectory("docs")
        defer { try? FileManager.default.removeItem(atPath: out) }
        let docs = try run(
            BuildProducts.packageRoot + "/docs", ["--products", BuildProducts.directory, "--out", out, "--check"],
            environment: ProcessInfo.processInfo.environment)
        #expect(docs.status == 0, "\(docs.stderr)")
        #expect(FileManager.default.fileExists(atPath: out + "/CoordSDK/documentation/coordsdk/featurestore/index.html"))
    }
}
