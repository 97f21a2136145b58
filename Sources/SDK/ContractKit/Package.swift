// swift-tools-version:6.0
// The contract kit: CoordLoading opens a plugin file and runs the ABI handshake (the host's
// loader is built on it), and CoordContract is the plugin contract suite a plugin's own
// `swift test` runs against its `.so`.
//
// A package of its own, nested in the SDK's folder (installed with it), for the reason CoordShop
// is one: both products are static and use CoordSDK's types, and a static product links the
// targets it depends on into whoever uses it. Inside the SDK package they depended on the
// CoordSDK *target*, so the front, the server and every plugin author's test binary carried a
// second copy of each SDK type beside libCoordSDK.so. Depending on the CoordSDK *product* links
// libCoordSDK.so instead: one copy in every process. The plugin ABI's C declarations
// (coordsh_plugin.h, and the host's coordsh_image_base) come through CoordSDK, which re-exports
// them from the one image.
import PackageDescription

let package = Package(
    name: "CoordContractKit",
    products: [
        .library(name: "CoordLoading", targets: ["CoordLoading"]),
        .library(name: "CoordContract", targets: ["CoordContract"]),
    ],
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        // libffi's type globals read through functions (Swift 6 refuses imported mutable globals).
        .target(name: "CLibFFI", linkerSettings: [.linkedLibrary("ffi")]),
        .target(name: "CoordLoading", dependencies: [.product(name: "CoordSDK", package: "SDK"), "CLibFFI"]),
        .target(name: "CoordContract", dependencies: [.product(name: "CoordSDK", package: "SDK"), "CoordLoading"]),
    ]
)

// Start-up: concrete generic metadata from the compiler's accessors, not demangled at run time
// (why: coordsh's root Package.swift, `metadataAccessors`).
for target in package.targets where target.type == .regular {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
}
