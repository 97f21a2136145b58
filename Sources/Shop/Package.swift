// swift-tools-version:6.0
// CoordShop: the shop's shared model and service keys (Product, Money, the content, accounts,
// carts and payments service protocols, Services.carts …), for the four bundled plugins, any
// outside plugin of the shop, and the host.
//
// Its own package, not a product of the SDK package, for the reason the SDK is one: a dynamic
// product links the targets it depends on into itself, so a CoordShop inside the SDK package
// carried a second copy of every CoordSDK type, and casts across it failed. Depending on the
// SDK's CoordSDK *product* makes libCoordShop.so load libCoordSDK.so instead. It has a version
// of its own (CoordShopVersion), checked at load for the plugins that use it, so a change to
// the shop refuses only those.
import PackageDescription

let package = Package(
    name: "CoordShop",
    products: [
        .library(name: "CoordShop", type: .dynamic, targets: ["CoordShop"]),
    ],
    dependencies: [
        .package(path: "../SDK"),
    ],
    targets: [
        // Built for library evolution, as CoordSDK is: a shop plugin built against CoordShop 3.x
        // keeps loading with every later 3.y.
        .target(name: "CoordShop", dependencies: [.product(name: "CoordSDK", package: "SDK")],
                swiftSettings: [.unsafeFlags(["-enable-library-evolution", "-no-verify-emitted-module-interface"])]),
    ]
)

// Start-up: concrete generic metadata from the compiler's accessors, not demangled at run time
// (why: the root Package.swift, `metadataAccessors`).
for target in package.targets where target.type == .regular {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
}
