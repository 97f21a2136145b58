@_spi(Host) import CoordSDK

/// The manifests of one plugin as one field of the verdict cache, and back.
///
/// JSON was the first form: decoding it was a quarter of what a plugin registered from the
/// cache costs at start-up (≈ 25 µs each; BENCHMARKS.md, issue 19), because Codable builds its
/// containers through generic metadata. This form is a few splits: five separator characters
/// from the C0 range nest features, their parts, entries, parameters and fields. A
/// string that contains one of them (or a tab or line break, which the cache file cannot hold)
/// is not packed: that plugin is then loaded at start-up as before, never misread.
package enum ManifestPacking {
    private static let feature: Unicode.Scalar = "\u{1C}"   // file separator: between features
    private static let part: Unicode.Scalar = "\u{1D}"      // group separator: between a feature's parts
    private static let entry: Unicode.Scalar = "\u{1E}"     // record separator: between entries of a part
    private static let field: Unicode.Scalar = "\u{1F}"     // unit separator: between fields of an entry
    private static let parameter: Unicode.Scalar = "\u{1A}" // between an entry's parameters

    package static func pack(_ manifests: [FeatureManifest]) -> String? {
        let reserved: Set<Unicode.Scalar> = [feature, part, entry, field, parameter, "\t", "\n", "\r"]
        var strings: [String] = []
        for manifest in manifests {
            strings += [manifest.name, manifest.prefix, manifest.summary] + manifest.needs + manifest.provides + manifest.guarded + manifest.uses
            for page in manifest.pages { strings += [page.name, page.summary] + page.parameters.flatMap { [$0.name, $0.summary] } }
            for message in manifest.messages { strings += [message.verb, message.summary] + message.arguments.flatMap { [$0.name, $0.summary] } }
        }
        guard !strings.contains(where: { $0.unicodeScalars.contains(where: reserved.contains) }) else { return nil }
        func parameters(_ list: [Parameter]) -> String {
            list.map { [$0.name, $0.type.rawValue, $0.isOptional ? "1" : "0", $0.isSecret ? "1" : "0", $0.summary].joined(separator: String(field)) }
                .joined(separator: String(parameter))
        }
        return manifests.map { manifest in
            [
                [manifest.name, manifest.prefix, manifest.summary].joined(separator: String(field)),
                manifest.pages.map { [$0.name, $0.summary, parameters($0.parameters)].joined(separator: String(field)) }.joined(separator: String(entry)),
                manifest.messages.map { [$0.verb, $0.summary, parameters($0.arguments)].joined(separator: String(field)) }.joined(separator: String(entry)),
                manifest.needs.joined(separator: String(entry)),
                manifest.provides.joined(separator: String(entry)),
                manifest.guarded.joined(separator: String(entry)),
                manifest.uses.joined(separator: String(entry)),
            ].joined(separator: String(part))
        }.joined(separator: String(feature))
    }

    /// The manifests, or nil for anything that is not exactly what `pack` writes.
    package static func unpack(_ text: String) -> [FeatureManifest]? {
        guard !text.isEmpty, !text.utf8.contains(where: { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") }) else { return nil }
        var manifests: [FeatureManifest] = []
        for packed in split(text, feature) {
            let parts = split(packed, part)
            // Seven parts: a cache written before capabilities (five) declares nothing about them,
            // which is not the same as declaring nothing, so its plugin is loaded and looked at.
            guard parts.count == 7 else { return nil }
            let head = split(parts[0], field)
            guard head.count == 3, head.allSatisfy(isLeaf) else { return nil }
            var pages: [FeatureManifest.PageEntry] = []
            for item in entries(parts[1]) {
                guard let (name, summary, list) = named(item) else { return nil }
                pages.append(FeatureManifest.PageEntry(name: name, summary: summary, parameters: list))
            }
            var messages: [MessageSpec] = []
            for item in entries(parts[2]) {
                guard let (verb, summary, list) = named(item) else { return nil }
                messages.append(MessageSpec(verb, list, summary: summary))
            }
            let needs = entries(parts[3]), provides = entries(parts[4]), guarded = entries(parts[5]), uses = entries(parts[6])
            guard needs.allSatisfy(isLeaf), provides.allSatisfy(isLeaf), guarded.allSatisfy(isLeaf), uses.allSatisfy(isLeaf),
                  uses.allSatisfy({ Capability($0) != nil }) else { return nil }
            manifests.append(FeatureManifest(
                name: head[0], prefix: head[1], summary: head[2], pages: pages, messages: messages,
                needs: needs, provides: provides, guarded: guarded, uses: uses))
        }
        return manifests
    }

    /// An entry's name, summary and parameters (`name␟summary␟param␚param…`, each parameter
    /// five `␟`-separated fields).
    private static func named(_ item: String) -> (String, String, [Parameter])? {
        let fields = split(item, field, maxSplits: 2)
        guard fields.count == 3, isLeaf(fields[0]), isLeaf(fields[1]) else { return nil }
        var list: [Parameter] = []
        for packed in entries(fields[2], by: parameter) {
            let p = split(packed, field)
            guard p.count == 5, let type = ValueType(rawValue: p[1]), p[2] == "0" || p[2] == "1", p[3] == "0" || p[3] == "1" else { return nil }
            list.append(Parameter(p[0], type, optional: p[2] == "1", secret: p[3] == "1", summary: p[4]))
        }
        return (fields[0], fields[1], list)
    }

    /// A name, summary or other plain string: none of the separators inside (only what `pack`
    /// writes unpacks, so that reading and writing agree).
    private static func isLeaf(_ text: String) -> Bool {
        !text.utf8.contains { $0 == byte(feature) || $0 == byte(part) || $0 == byte(entry) || $0 == byte(field) || $0 == byte(parameter) }
    }

    private static func entries(_ text: String, by separator: Unicode.Scalar = entry) -> [String] {
        text.isEmpty ? [] : split(text, separator)
    }

    // Read as UTF-8 bytes, not scalars: the separators are ASCII, so no byte of one is ever
    // inside another character's encoding, and a start with 100 plugins spent 8 % of their
    // registration in the scalar view's splits.
    private static func split(_ text: String, _ separator: Unicode.Scalar, maxSplits: Int = .max) -> [String] {
        text.utf8.split(separator: byte(separator), maxSplits: maxSplits, omittingEmptySubsequences: false)
            .map { String(decoding: $0, as: UTF8.self) }
    }

    /// A separator's one byte (each is an ASCII control character).
    private static func byte(_ separator: Unicode.Scalar) -> UInt8 { UInt8(truncatingIfNeeded: separator.value) }
}
