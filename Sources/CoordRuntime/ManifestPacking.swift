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
        var text = text
        return text.withUTF8 { Unpacker(bytes: $0).manifests() }
    }

    /// Reads what `pack` wrote as ranges of its UTF-8 bytes, and makes strings only of the
    /// leaves. The separators are ASCII, so no byte of one is ever inside another character's
    /// encoding. A start with 100 plugins spent a fifth of their registration splitting each
    /// level into strings through the UTF-8 view's generic `split` (BENCHMARKS.md, issue 41).
    private struct Unpacker {
        let bytes: UnsafeBufferPointer<UInt8>

        func manifests() -> [FeatureManifest]? {
            guard !bytes.isEmpty, !bytes.contains(where: { $0 == UInt8(ascii: "\t") || $0 == UInt8(ascii: "\n") || $0 == UInt8(ascii: "\r") })
            else { return nil }
            var manifests: [FeatureManifest] = []
            for packed in split(0..<bytes.count, feature) {
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
                guard let needs = leaves(parts[3]), let provides = leaves(parts[4]), let guarded = leaves(parts[5]),
                      let uses = leaves(parts[6]), uses.allSatisfy({ Capability($0) != nil }) else { return nil }
                manifests.append(FeatureManifest(
                    name: string(head[0]), prefix: string(head[1]), summary: string(head[2]), pages: pages, messages: messages,
                    needs: needs, provides: provides, guarded: guarded, uses: uses))
            }
            return manifests
        }

        /// An entry's name, summary and parameters (`name␟summary␟param␚param…`, each parameter
        /// five `␟`-separated fields).
        private func named(_ item: Range<Int>) -> (String, String, [Parameter])? {
            let fields = split(item, field, maxSplits: 2)
            guard fields.count == 3, isLeaf(fields[0]), isLeaf(fields[1]) else { return nil }
            var list: [Parameter] = []
            for packed in entries(fields[2], by: parameter) {
                let p = split(packed, field)
                guard p.count == 5, let type = ValueType(rawValue: string(p[1])), let optional = flag(p[2]), let secret = flag(p[3])
                else { return nil }
                list.append(Parameter(string(p[0]), type, optional: optional, secret: secret, summary: string(p[4])))
            }
            return (string(fields[0]), string(fields[1]), list)
        }

        /// A list of plain strings (needs, provides, …), or nil when one holds a separator.
        private func leaves(_ range: Range<Int>) -> [String]? {
            let items = entries(range)
            guard items.allSatisfy(isLeaf) else { return nil }
            return items.map(string)
        }

        /// A name, summary or other plain string: none of the separators inside (only what `pack`
        /// writes unpacks, so that reading and writing agree).
        private func isLeaf(_ range: Range<Int>) -> Bool {
            !range.contains { index in
                let b = bytes[index]
                return b == byte(feature) || b == byte(part) || b == byte(entry) || b == byte(field) || b == byte(parameter)
            }
        }

        /// `true` for "1", `false` for "0", nil for anything else.
        private func flag(_ range: Range<Int>) -> Bool? {
            guard range.count == 1 else { return nil }
            switch bytes[range.lowerBound] {
            case UInt8(ascii: "1"): return true
            case UInt8(ascii: "0"): return false
            default: return nil
            }
        }

        private func entries(_ range: Range<Int>, by separator: Unicode.Scalar = entry) -> [Range<Int>] {
            range.isEmpty ? [] : split(range, separator)
        }

        /// The pieces of `range` between `separator`s, empty ones included, at most
        /// `maxSplits + 1` of them.
        private func split(_ range: Range<Int>, _ separator: Unicode.Scalar, maxSplits: Int = .max) -> [Range<Int>] {
            let separator = byte(separator)
            // Counted first, so that the pieces take one allocation (grown append by append,
            // they took four or five: a tenth of what registering a plugin from the cache cost).
            var pieces: [Range<Int>] = []
            pieces.reserveCapacity(min(range.count { bytes[$0] == separator }, maxSplits) + 1)
            var start = range.lowerBound
            for index in range where bytes[index] == separator && pieces.count < maxSplits {
                pieces.append(start..<index)
                start = index + 1
            }
            pieces.append(start..<range.upperBound)
            return pieces
        }

        private func string(_ range: Range<Int>) -> String {
            String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
        }
    }

    /// A separator's one byte (each is an ASCII control character).
    private static func byte(_ separator: Unicode.Scalar) -> UInt8 { UInt8(truncatingIfNeeded: separator.value) }
}
