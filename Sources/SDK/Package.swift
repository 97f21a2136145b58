// swift-tools-version:6.0
// The coordsh plugin SDK: everything the host and the plugins both use.
//
// It is its own package with a `.dynamic` product on purpose. When a target is linked
// statically into both the host and a plugin, each image carries its own copy of the type
// metadata and `pluginObject is CoordPlugin` is false across the dlopen boundary. Depending
// on this product from host, plugins and tests makes every process load exactly one
// `libCoordSDK.so`, so there is exactly one copy of every shared type.
//
// Two more products serve plugin authors without pulling in the host: CoordLoading opens a
// plugin file and runs the ABI handshake (the host's loader uses the same code), and
// CoordContract is the plugin contract suite a plugin's own `swift test` can run. Both are
// linked statically into whoever uses them; they define no type that crosses the boundary.
import PackageDescription

let package = Package(
    name: "CoordSDK",
    products: [
        .library(name: "CoordSDK", type: .dynamic, targets: ["CoordSDK"]),
        .library(name: "CoordLoading", targets: ["CoordLoading"]),
        .library(name: "CoordContract", targets: ["CoordContract"]),
    ],
    targets: [
        .target(name: "CCoordABI"),
        .target(name: "CoordSDK", dependencies: ["CCoordABI"]),
        .target(name: "CLibFFI", linkerSettings: [.linkedLibrary("ffi")]),
        .target(name: "CoordLoading", dependencies: ["CoordSDK", "CCoordABI", "CLibFFI"]),
        .target(name: "CoordContract", dependencies: ["CoordSDK", "CoordLoading"]),
        // Unit tests of the SDK without any dlopen: the tree, propagation, queues, the chain and
        // its executor. ./test runs them under AddressSanitizer (the dispatch fast path reads
        // unretained references, so a use after free must be caught, not hoped against).
        .testTarget(name: "CoordSDKTests", dependencies: ["CoordSDK"]),
    ]
)
