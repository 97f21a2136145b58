import CoordLoading
import CoordRuntime
@_spi(Host) import CoordSDK
import Foundation
import TestSupport
import Testing

@Suite("Loading real plugin .so files", .serialized)
@MainActor
final class LoaderTests {
    /// The bundled plugins loaded into an app with the host's services; the hosts are kept
    /// until the suite ends, since the app holds its tree only weakly from below.
    func loadBundled() throws -> (AppCoordinator, PluginLoader) {
        let host = try TestHost()
        hosts.append(host)
        return (host.app, host.loader)
    }

    var hosts: [TestHost] = []

    isolated deinit {
        for host in hosts { host.close() }
    }

    @Test("the four bundled plugins load and register their features and pages")
    func bundled() throws {
        let (app, loader) = try loadBundled()
        #expect(loader.loaded.map(\.origin.name) == ["content", "account", "cart", "payment"])
        #expect(loader.refused.isEmpty)
        #expect(app.features.routes.count == 15)
        for route in ["content/product", "account/confirmAccount", "cart/offer", "payment/receipt"] {
            #expect(app.features.routes.contains { "\($0.feature.name)/\($0.page.name)" == route }, "\(route)")
        }
    }

    @Test("types are identical across the dlopen boundary")
    func typeIdentity() throws {
        let (app, _) = try loadBundled()
        let scene = app.makeScene(identifier: "t")
        let cart = try #require(app.features.feature(named: "cart"))
        let coordinator: AnyObject = scene.coordinator(for: cart)
        // The plugin's coordinator class is defined in libCartPlugin.so; its superclass must be
        // this image's Coordinator, i.e. the one in the shared libCoordSDK.so.
        #expect(coordinator is Coordinator)
        #expect(type(of: coordinator) != Coordinator.self)
        #expect(Mirror(reflecting: coordinator).superclassMirror?.subjectType == Coordinator.self)
        // And this image's Coordinator is libCoordSDK.so's, not a copy linked into the test
        // binary beside it (which a static product built on the CoordSDK target, not on its
        // product, adds: CoordLoading once did).
        var image: UnsafePointer<CChar>?
        #expect(coordsh_image_base(unsafeBitCast(Coordinator.self as AnyClass, to: UnsafeRawPointer.self), &image) != nil)
        #expect(image.map { String(cString: $0) }?.hasSuffix("/libCoordSDK.so") == true, "\(image.map { String(cString: $0) } ?? "no image")")
        let page: Any = try app.features.page(for: RouteRequest.parse("cart/offer code=SPRING"))
        #expect(page is any Page)
        #expect((page as? any Page)?.route.description == "cart/offer code=SPRING")
    }

    @Test("a message from a product page bubbles to the root and reaches the Cart plugin")
    func crossPluginMessage() throws {
        let (app, _) = try loadBundled()
        let scene = app.makeScene(identifier: "t")
        try scene.display(app.features.page(for: RouteRequest.parse("content/product id=7")))
        let view = try #require(scene.currentView)
        let trace = DispatchTrace(message: "cartAdd")
        #expect(try view.send(Message(MessageName("cartAdd"), from: view), trace: trace) == .handled)
        #expect(trace.hops.map(\.level) == ["page content/product id=7", "coordinator content", "scene t", "app", "coordinator cart"])
        #expect(scene.currentView?.render().title == "Cart (1 item)")
        #expect(scene.currentView?.render().lines.first?.contains("#7") == true)
    }

    @Test("every page of every bundled plugin round-trips, and opens or says in one line why not")
    func pagesOpen() throws {
        let (app, _) = try loadBundled()
        let scene = app.makeScene(identifier: "t")
        // Values that exist in the shipped catalog and config.
        let sample = ["id": "7", "code": "WELCOME10", "query": "red", "key": "k1", "orderID": "1"]
        // Pages that need a logged-in user with an order; without one they must refuse.
        let needLogin: Set = ["payment/receipt", "payment/orders"]
        // What each other page shows on a fresh shop with nobody logged in.
        let titles = [
            "account/login": "Log in", "account/createAccount": "Create an account",
            "account/confirmAccount": "Confirm your account", "account/profile": "Not logged in",
            "account/outbox": "Outbox (0)", "cart/cart": "Cart (0 items)",
            "cart/checkout": "Checkout (0 items, 0.00 EUR)", "cart/offer": "Offer WELCOME10",
            "content/catalog": "Catalog (60 products)", "content/list": "All products (60)",
            "content/product": "#7 Slippers", "content/search": "Search: red (5)", "payment/method": "Pay",
        ]
        #expect(app.features.routes.count == titles.count + needLogin.count)
        for (feature, pageCase) in app.features.routes {
            let route = "\(feature.name)/\(pageCase.name)"
            let arguments = pageCase.parameters.filter { !$0.isOptional }.map { RouteRequest.Pair($0.name, sample[$0.name] ?? "1") }
            let request = RouteRequest(feature: feature.name, page: pageCase.name, arguments: arguments)
            let page = try app.features.page(for: request)
            #expect(page.route == request)
            if needLogin.contains(route) {
                let error = #expect(throws: CoordError.self) { try scene.display(page) }
                #expect(error?.message.hasSuffix("nobody is logged in; 'account login EMAIL' first") == true, "\(route): \(String(describing: error))")
                continue
            }
            try scene.display(page)
            #expect(scene.currentView?.page.route == request)
            #expect(scene.currentView?.render().title == titles[route], "\(route)")
        }
    }

    @Test("broken plugins are each refused with a one-line reason naming the file; the rest load")
    func brokenPlugins() throws {
        let directory = try makeTemporaryDirectory("broken")
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FixtureBuilder.buildHandshakeCorpus(into: directory)
        let host = try TestHost(plugins: [])
        defer { host.close() }
        let (app, loader) = (host.app, host.loader)
        let refusals = loader.loadAll(from: [BuildProducts.directory, directory])
        #expect(loader.loaded.map(\.origin.name).sorted() == ["account", "cart", "content", "payment"])
        let byFile = Dictionary(uniqueKeysWithValues: refusals.map { (($0.path as NSString).lastPathComponent, $0) })
        let expected: [(String, PluginRefusal.Kind, String)] = [
            ("libX.so", .notELF, "not an ELF file"),
            ("libnoentry.so", .noEntry, "no entry symbol 'coordsh_plugin_entry'"),
            ("libbadmagic.so", .badMagic, "bad magic number — host expects 0x434F4F52, plugin has 0xDEADBEEF"),
            ("libfutureabi.so", .abiMismatch, "plugin ABI version mismatch — host speaks 1 (Swift) and 2 (C), plugin is 99"),
            ("libentryerror.so", .entryFailed, "entry returned 3: database credentials missing"),
            ("libothersdk.so", .sdkMismatch, "SDK version mismatch — plugin was built against CoordSDK 0.0.1, this coordsh has \(CoordSDKVersion.library) — another major version, whose API and ABI are not promised to match; rebuild the plugin against CoordSDK 1.x"),
            ("libothercompiler.so", .compilerMismatch, "Swift compiler mismatch — host was built with Swift \(CoordSDKVersion.compiler), plugin with 5.9"),
            ("libduplicateprefix.so", .duplicate, "duplicate prefix 'cart': already used by feature 'cart'"),
            ("libothershop.so", .libraryMismatch, "CoordShop version mismatch — plugin was built against CoordShop 0.0.1, this coordsh has 3.0.0 — another major version, whose API and ABI are not promised to match; rebuild the plugin against CoordShop 3.x"),
            ("libnofarm.so", .libraryMismatch, "it was built against CoordFarm 2.0.0 but is not linked with libCoordFarm.so"),
        ]
        #expect(refusals.count == expected.count)
        for (file, kind, reason) in expected {
            let refusal = try #require(byFile[file], "\(file) was not refused")
            #expect(refusal.kind == kind, "\(file)")
            #expect(refusal.reason.hasPrefix(reason), "\(file): \(refusal.reason)")
            #expect(refusal.description.hasPrefix("refused plugin \(directory)/\(file): "))
            #expect(!refusal.description.contains("\n"))
        }
        // The refused duplicate did not disturb the real cart.
        #expect(app.features.feature(prefix: "cart")?.origin?.path == BuildProducts.plugin("Cart"))
    }

    @Test("loading the same file twice says it is already loaded")
    func alreadyLoaded() throws {
        let (_, loader) = try loadBundled()
        #expect(throws: PluginRefusal.self) { try loader.load(BuildProducts.plugin("Cart")) }
        #expect(loader.refused.first?.kind == .alreadyLoaded)
        #expect(loader.refused.first?.reason == "already loaded as plugin 'cart'")
    }
}
