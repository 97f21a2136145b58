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
        return text.withUTF8 { bytes in
            var reader = Unpacker(bytes: bytes)
            return reader.manifests()
        }
    }

    /// Reads what `pack` wrote in one pass over its UTF-8 bytes, front to back: each leaf (a
    /// name, a summary, a type …) runs to the next separator of any kind, which must then be
    /// the one the layout has there, and only the leaves become strings. The separators are
    /// ASCII, so no byte of one is ever inside another character's encoding. Splitting level by
    /// level — features, then parts, then entries, each counted before it was split, each leaf
    /// checked for separators again — went over every byte seven or eight times, ≈ 9 % of what
    /// registering a plugin from the cache cost (BENCHMARKS.md, issue 41).
    private struct Unpacker {
        let bytes: UnsafeBufferPointer<UInt8>
        var position = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
        }

        mutating func manifests() -> [FeatureManifest]? {
            guard !bytes.isEmpty else { return nil }
            var manifests: [FeatureManifest] = []
            repeat {
                guard let manifest = oneFeature() else { return nil }
                manifests.append(manifest)
            } while take(feature)
            return position == bytes.count ? manifests : nil
        }

        /// One feature: seven parts — its name, prefix and summary; its pages; its messages;
        /// needs, provides, guarded, uses. A cache written before capabilities (five parts)
        /// declares nothing about them, which is not the same as declaring nothing, so its
        /// plugin is loaded and looked at.
        private mutating func oneFeature() -> FeatureManifest? {
            guard let name = leaf(), take(field), let prefix = leaf(), take(field), let summary = leaf(), take(part) else { return nil }
            var pages: [FeatureManifest.PageEntry] = []
            if !endsPart {
                repeat {
                    guard let (name, summary, list) = named() else { return nil }
                    pages.append(FeatureManifest.PageEntry(name: name, summary: summary, parameters: list))
                } while take(entry)
            }
            guard take(part) else { return nil }
            var messages: [MessageSpec] = []
            if !endsPart {
                repeat {
                    guard let (verb, summary, list) = named() else { return nil }
                    messages.append(MessageSpec(verb, list, summary: summary))
                } while take(entry)
            }
            guard take(part), let needs = leaves(), take(part), let provides = leaves(), take(part), let guarded = leaves(), take(part),
                let uses = leaves(), uses.allSatisfy({ Capability($0) != nil }), endsFeature
            else { return nil }
            return FeatureManifest(
                name: name, prefix: prefix, summary: summary, pages: pages, messages: messages,
                needs: needs, provides: provides, guarded: guarded, uses: uses)
        }

        /// An entry's name, summary and parameters (`name␟summary␟param␚param…`, each parameter
        /// five `␟`-separated fields; none when the entry ends after the second `␟`).
        private mutating func named() -> (String, String, [Parameter])? {
            guard let name = leaf(), take(field), let summary = leaf(), take(field) else { return nil }
            var list: [Parameter] = []
            if !endsEntry {
                repeat {
                    guard let item = oneParameter() else { return nil }
                    list.append(item)
                } while take(parameter)
            }
            return (name, summary, list)
        }

        private mutating func oneParameter() -> Parameter? {
            guard let name = leaf(), take(field), let typeName = leaf(), let type = ValueType(rawValue: typeName), take(field),
                let optional = flag(), take(field), let secret = flag(), take(field), let summary = leaf()
            else { return nil }
            return Parameter(name, type, optional: optional, secret: secret, summary: summary)
        }

        /// A list of plain strings (needs, provides, …) separated by `␞`; none when the part
        /// is empty.
        private mutating func leaves() -> [String]? {
            var items: [String] = []
            guard !endsPart else { return items }
            repeat {
                guard let item = leaf() else { return nil }
                items.append(item)
            } while take(entry)
            return items
        }

        /// The bytes up to the next separator or the end, as a string; nil at a tab or a line
        /// break, which the cache file cannot hold (so `pack` never writes one).
        private mutating func leaf() -> String? {
            let start = position
            while position < bytes.count {
                let byte = bytes[position]
                if byte < 0x20 {
                    if byte == ManifestPacking.byte(feature) || byte == ManifestPacking.byte(part) || byte == ManifestPacking.byte(entry)
                        || byte == ManifestPacking.byte(field) || byte == ManifestPacking.byte(parameter) { break }
                    if byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") { return nil }
                }
                position += 1
            }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<position]), as: UTF8.self)
        }

        /// `true` for "1", `false` for "0", nil for anything else.
        private mutating func flag() -> Bool? {
            switch leaf() {
            case "1": return true
            case "0": return false
            default: return nil
            }
        }

        /// Steps over `separator` when it is the next byte.
        private mutating func take(_ separator: Unicode.Scalar) -> Bool {
            guard position < bytes.count, bytes[position] == ManifestPacking.byte(separator) else { return false }
            position += 1
            return true
        }

        private var next: UInt8? { position < bytes.count ? bytes[position] : nil }
        /// At the end of a feature: the next one, or the end of the text.
        private var endsFeature: Bool { next.map { $0 == ManifestPacking.byte(feature) } ?? true }
        /// At the end of a part (or of the feature, which a missing part makes wrong later).
        private var endsPart: Bool { endsFeature || next == ManifestPacking.byte(part) }
        /// At the end of an entry of a part.
        private var endsEntry: Bool { endsPart || next == ManifestPacking.byte(entry) }
    }

    /// A separator's one byte (each is an ASCII control character).
    private static func byte(_ separator: Unicode.Scalar) -> UInt8 { UInt8(truncatingIfNeeded: separator.value) }
}
