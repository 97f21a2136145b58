import CoordSDK

/// A library's release number, `MAJOR.MINOR.PATCH`, and the promise CoordSDK and CoordShop keep
/// with it: a plugin built against a release loads with every later release of the same major
/// version (while the major is 0, of the same minor), never with an older one.
///
/// Both libraries are built for library evolution, so a later release within the promise only
/// adds (new types, new members, new cases of enums that are not `@frozen`) and a plugin's
/// image keeps working against it; what breaks API or ABI takes a new major, which
/// `scripts/sdk-api check` enforces against the stored releases (`Sources/SDK/Releases`).
public struct ReleaseVersion: Comparable, Sendable, CustomStringConvertible {
    public let major: Int
    public let minor: Int
    public let patch: Int

    public init(major: Int, minor: Int, patch: Int) {
        self.major = major
        self.minor = minor
        self.patch = patch
    }

    /// `"1.4.2"`; nil for anything else (a fourth part, a sign, letters, more than 9 digits).
    public init?(_ text: String) {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        var numbers: [Int] = []
        for part in parts {
            guard !part.isEmpty, part.count <= 9, part.allSatisfy({ $0.isASCII && $0.isNumber }),
                  part == "0" || !part.hasPrefix("0"), let number = Int(part) else { return nil }
            numbers.append(number)
        }
        self.init(major: numbers[0], minor: numbers[1], patch: numbers[2])
    }

    public var description: String { "\(major).\(minor).\(patch)" }

    public static func < (a: ReleaseVersion, b: ReleaseVersion) -> Bool {
        (a.major, a.minor, a.patch) < (b.major, b.minor, b.patch)
    }

    /// The releases this one promises to stand in for: same major and, before 1.0, same minor.
    public func keepsThePromise(of older: ReleaseVersion) -> Bool {
        older <= self && older.major == major && (major > 0 || older.minor == minor)
    }

    /// Why a plugin built against `builtAgainst` may not load with `library` at `loaded`, in
    /// words that name both versions and what to do; nil when it may.
    public static func refusal(library: String, loaded: String, builtAgainst: String) -> String? {
        let shown = CoordError.oneLine(builtAgainst)
        guard let host = ReleaseVersion(loaded) else {
            return "\(library) reports version '\(CoordError.oneLine(loaded))', which is not MAJOR.MINOR.PATCH; reinstall coordsh"
        }
        guard let plugin = ReleaseVersion(builtAgainst) else {
            return "plugin was built against \(library) '\(shown)', which is not a version (MAJOR.MINOR.PATCH); rebuild it against \(library) \(host)"
        }
        if host.keepsThePromise(of: plugin) { return nil }
        if plugin > host, plugin.major == host.major, host.major > 0 || plugin.minor == host.minor {
            return "plugin was built against \(library) \(plugin), newer than this coordsh's \(host); update coordsh to \(library) \(plugin) or later, or rebuild the plugin against \(host)"
        }
        let series = host.major > 0 ? "\(host.major).x" : "0.\(host.minor).x"
        let why = host.major > 0 || plugin.major > 0
            ? "another major version, whose API and ABI are not promised to match"
            : "another 0.x minor (before 1.0 each minor may break)"
        return "plugin was built against \(library) \(plugin), this coordsh has \(host) — \(why); rebuild the plugin against \(library) \(series)"
    }
}
