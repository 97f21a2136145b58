// swift-tools-version:6.0
// The coordsh plugin SDK: everything the host and the plugins both use.
//
// It is its own package with a `.dynamic` product on purpose. When a target is linked
// statically into both the host and a plugin, each image carries its own copy of the type
// metadata and `pluginObject is CoordPlugin` is false across the dlopen boundary. Depending
// on this product from host, plugins and tests makes every process load exactly one
// `libCoordSDK.so`, so there is exactly one copy of every shared type.
//
// What opens a plugin file and runs the ABI handshake (CoordLoading) and the plugin contract
// suite (CoordContract) are not products of this package: they live in the package nested in
// ContractKit/, which depends on this one's CoordSDK *product*. A static product here would
// link the CoordSDK *target* it depends on into every executable that used it — the front, the
// server and each plugin author's test binary all carried a second copy of every SDK type, and
// casts held only while the executable's own copy happened to be first in the loader's scope.
//
// CoordMacros is how a plugin declares its pages and messages once, as Swift enums
// (`@Page(feature:)`, `@Messages(prefix:)`): macros run by the compiler (swift-syntax), so
// they add nothing to libCoordSDK.so or to the ABI; what they generate calls CoordSDK's
// public API, which hand-written conformances use alike. The declarations depend on nothing;
// the implementation, CoordMacroPlugin, is an executable the compiler runs: a plugin package
// is given the one the coordsh build made (`-load-plugin-executable`, as `coordsh plugin new`
// writes it), or depends on CoordMacroBuild to build it from swift-syntax itself.
import CompilerPluginSupport
import Foundation
import PackageDescription

// ./test runs the SDK's unit tests under AddressSanitizer in a build of this package alone;
// COORDSH_SDK_CORE_ONLY=1 leaves the macros (and so swift-syntax) out of that build, which
// would otherwise compile swift-syntax a second time, instrumented, for nothing.
let coreOnly = ProcessInfo.processInfo.environment["COORDSH_SDK_CORE_ONLY"] == "1"

let package = Package(
    name: "CoordSDK",
    products: [
        .library(name: "CoordSDK", type: .dynamic, targets: ["CoordSDK"]),
        // The macro declarations a plugin imports (`@Page`, `@Messages`); static, empty at run
        // time, and dependent on nothing: the implementation is the CoordMacroPlugin executable,
        // prebuilt (see CoordMacroBuild) or built from source.
        .library(name: "CoordMacros", targets: ["CoordMacros"]),
    ],
    targets: [
        .target(name: "CCoordABI"),
        // Built for library evolution: a plugin compiled against this release keeps loading in
        // every later release of the same major version (PLUGIN-GUIDE.md, "Which SDK a plugin
        // needs"). The compiler then also writes CoordSDK.swiftinterface, the text form of the
        // public face that scripts/sdk-api compares with the last release's.
        // The processor's tick counter the accounting clock reads (FeatureClock), header-only.
        .target(name: "CCycleCounter"),
        .target(name: "CoordSDK", dependencies: ["CCoordABI", "CCycleCounter"], swiftSettings: [.unsafeFlags(["-enable-library-evolution", "-no-verify-emitted-module-interface"])]),
        // Only the two declarations: the compiler's one warning here is that their plugin is
        // not loaded while they are declared, which is the point (it is loaded where they are
        // used), so the module is compiled without warnings.
        .target(name: "CoordMacros", swiftSettings: [.unsafeFlags(["-suppress-warnings"])]),
        // Unit tests of the SDK without any dlopen: the tree, propagation, queues, the chain and
        // its executor. ./test runs them under AddressSanitizer (the dispatch fast path reads
        // unretained references, so a use after free must be caught, not hoped against).
        .testTarget(name: "CoordSDKTests", dependencies: ["CoordSDK"]),
    ]
)

if !coreOnly {
    package.dependencies += [.package(url: "https://github.com/swiftlang/swift-syntax", exact: "603.0.1")]
    let syntax = { (name: String) in Target.Dependency.product(name: name, package: "swift-syntax") }
    package.products += [
        // The macro plugin built from source (on swift-syntax), for a package with no prebuilt
        // one: depending on it hands the built plugin to the compiler.
        .library(name: "CoordMacroBuild", targets: ["CoordMacroBuild"]),
        // The expansions as plain code, for the macro expansion tests (coordsh's MacroTests).
        .library(name: "CoordMacroExpansion", targets: ["CoordMacroExpansion"]),
    ]
    package.targets += [
        .target(name: "CoordMacroExpansion", dependencies: [
            syntax("SwiftSyntax"), syntax("SwiftSyntaxBuilder"), syntax("SwiftSyntaxMacros"), syntax("SwiftDiagnostics"),
        ]),
        .macro(name: "CoordMacroPlugin", dependencies: ["CoordMacroExpansion", syntax("SwiftCompilerPlugin")]),
        .target(name: "CoordMacroBuild", dependencies: ["CoordMacroPlugin"]),
    ]
}

// Start-up: concrete generic metadata from the compiler's accessors, not demangled at run time
// (why: coordsh's root Package.swift, `metadataAccessors`). Only code generation changes: the
// interface a plugin compiles against is the same.
for target in package.targets where target.type == .regular {
    target.swiftSettings = (target.swiftSettings ?? []) + [.unsafeFlags(["-Xfrontend", "-disable-concrete-type-metadata-mangled-name-accessors"])]
}
