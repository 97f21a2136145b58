// swift-tools-version:6.0
// The coordsh plugin SDK: everything the host and the plugins both use.
//
// It is its own package with a `.dynamic` product on purpose. When a target is linked
// statically into both the host and a plugin, each image carries its own copy of the type
// metadata and `pluginObject is CoordPlugin` is false across the dlopen boundary. Depending
// on this product from host, plugins and tests makes every process load exactly one
// `libCoordSDK.so`, so there is exactly one copy of every shared type.
import PackageDescription

let package = Package(
    name: "CoordSDK",
    products: [
        .library(name: "CoordSDK", type: .dynamic, targets: ["CoordSDK"]),
    ],
    targets: [
        .target(name: "CCoordABI"),
        .target(name: "CoordSDK", dependencies: ["CCoordABI"]),
    ]
)
