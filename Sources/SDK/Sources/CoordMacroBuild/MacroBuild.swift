// Empty on purpose. A target that depends on this product has the SDK's macro plugin
// (CoordMacroPlugin, on swift-syntax) built from source and handed to the compiler: the way
// for a package that has no prebuilt plugin at hand (coordsh's own bundled plugins, or
// `coordsh plugin new --no-prebuilt`). The declarations themselves are CoordMacros, which
// depends on nothing, so that a plugin given the prebuilt plugin executable
// (`-load-plugin-executable PATH#CoordMacroPlugin`) never compiles swift-syntax.
