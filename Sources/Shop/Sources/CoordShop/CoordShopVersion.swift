import CoordSDK

/// The version of the shop's shared model and service protocols, which moves on its own: a
/// plugin that does not use the shop is never refused because the shop changed. It keeps the
/// SDK's promise (see `CoordSDKVersion`): a shop plugin built against `3.m.p` loads with every
/// later `3.x.y`. 3.0.0 is the first release built for library evolution.
///
/// A plugin built against CoordShop says so with `CoordPlugin.libraries`
/// (`[CoordShopVersion.requirement]`); the loader compares it with the version of the
/// `libCoordShop.so` the plugin was loaded with (`coordsh_library_version_CoordShop`) before
/// it calls anything of the plugin that could touch a shop type.
public enum CoordShopVersion {
    /// The version of the CoordShop library loaded in this process.
    public static let library = "3.0.0"

    /// The version the caller was compiled against, baked into the caller's image.
    @_alwaysEmitIntoClient
    public static var compiledAgainst: String { "3.0.0" }  // always the same as `library`

    /// What a shop plugin declares in `CoordPlugin.libraries`.
    @_alwaysEmitIntoClient
    public static var requirement: LibraryRequirement { LibraryRequirement(name: "CoordShop", version: compiledAgainst) }
}

/// The version of this image, for the loader (see `LibraryRequirement`): a C symbol, so that
/// it can be read before any Swift type of the library is trusted.
@_cdecl("coordsh_library_version_CoordShop")
public func coordshLibraryVersionCoordShop() -> UnsafePointer<CChar> {
    UnsafeRawPointer(libraryVersionText.utf8Start).assumingMemoryBound(to: CChar.self)
}

private let libraryVersionText: StaticString = "3.0.0"
