@_spi(Host) import CoordSDK

/// A feature the suite registers next to the plugin under test, so that messages can be sent
/// from another feature's page, the way a user types `cart add` on a product page.
enum ProbePage: Page {
    case home
    static let feature = "contractprobe"
    static let cases: [PageCase] = [PageCase("home", summary: "the contract suite's own page") { _ in ProbePage.home }]
    var name: String { "home" }
    var arguments: Arguments { Arguments() }

    static let definition = FeatureDefinition(
        name: feature, prefix: feature, summary: "contract suite probe", pages: ProbePage.self,
        coordinator: { Coordinator(identifier: feature) })
}

/// The key of a service only the suite provides, to watch AppDependency travel down.
let probeKey = ServiceKey<String>("contract.probe")
