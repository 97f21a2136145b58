@_spi(Host) import CoordSDK
@testable import CoordRuntime
import Testing

/// The plugin registry cache's two text forms, read at every start with plugins: a plugin's
/// manifests packed into one field (`ManifestPacking`) and the verdict file's lines
/// (`VerdictCache`). What is read back must be exactly what was written — a plugin registered
/// from the cache shows the pages, parameters and capabilities it declared — and anything
/// else must read as nothing, so that its plugin is loaded and looked at instead of misread.
@Suite struct RegistryCacheFormatTests {
    static let manifests = [
        FeatureManifest(
            name: "cart", prefix: "cart", summary: "the basket — prices in €",
            pages: [
                .init(name: "basket", summary: "", parameters: []),
                .init(name: "line", summary: "one line", parameters: [
                    Parameter("id", .int, summary: "the line's number"), Parameter("note", .string, optional: true),
                ]),
            ],
            messages: [
                MessageSpec("add", [Parameter("id", .int), Parameter("qty", .int, optional: true)], summary: "adds a product"),
                MessageSpec("pay", [Parameter("card", .string, secret: true), Parameter("when", .double, optional: true, secret: true)]),
                MessageSpec("clear"),
            ],
            needs: ["session", "catalog"], provides: ["cart"], guarded: ["cart"], uses: ["read products", "write cart_lines", "service session"]),
        FeatureManifest(
            name: "wishlist", prefix: "wish", summary: "", pages: [.init(name: "home", summary: "", parameters: [Parameter("go", .route)])],
            messages: [MessageSpec("keep", [Parameter("flag", .bool)])], needs: [], provides: [], guarded: [], uses: []),
    ]

    @Test("manifests of every shape come back from the cache exactly as they were packed")
    func roundTrip() throws {
        let packed = try #require(ManifestPacking.pack(Self.manifests))
        #expect(ManifestPacking.unpack(packed) == Self.manifests)
        for manifest in Self.manifests {
            #expect(ManifestPacking.unpack(try #require(ManifestPacking.pack([manifest]))) == [manifest])
        }
    }

    @Test("a packed field that is not exactly what pack writes reads as nothing")
    func notPacked() throws {
        let packed = try #require(ManifestPacking.pack(Self.manifests))
        let (feature, part, entry, field, parameter) = ("\u{1C}", "\u{1D}", "\u{1E}", "\u{1F}", "\u{1A}")
        let broken = [
            "",
            "\t" + packed,
            packed + "\n",
            packed.replacingOccurrences(of: "\r", with: "") + "\r",
            // Five parts: a cache from before capabilities.
            packed.split(separator: Character(feature)).map { $0.split(separator: Character(part), omittingEmptySubsequences: false).prefix(5).joined(separator: part) }
                .joined(separator: feature),
            packed.replacingOccurrences(of: "id\(field)int\(field)0\(field)0", with: "id\(field)int\(field)2\(field)0"),
            packed.replacingOccurrences(of: "note\(field)string\(field)1\(field)0", with: "note\(field)string\(field)1\(field)yes"),
            packed.replacingOccurrences(of: "\(field)int\(field)", with: "\(field)integer\(field)"),
            packed.replacingOccurrences(of: "read products", with: "read"),
            packed.replacingOccurrences(of: "the basket", with: "the\(entry)basket"),
            packed.replacingOccurrences(of: "session\(entry)catalog", with: "session\(field)catalog"),
            packed.replacingOccurrences(of: "basket\(field)", with: "bas\(parameter)ket\(field)"),
            packed.replacingOccurrences(of: "the line's number", with: "the line's number\(field)extra"),
        ]
        for text in broken {
            #expect(text != packed)
            #expect(ManifestPacking.unpack(text) == nil, "read back: \(text.debugDescription)")
        }
        // A separator inside a string cannot be packed at all.
        var odd = Self.manifests[1]
        odd.summary = "a\(field)b"
        #expect(ManifestPacking.pack([odd]) == nil)
    }

    static func entry(manifests: String) -> VerdictCache.Entry {
        VerdictCache.Entry(
            size: 45_224, modified: 1_795_726_321_905_108_807, changed: -1, inode: 16_220_259, device: 65_024, sha256: String(repeating: "c6", count: 32),
            host: VerdictCache.host, verdict: PluginVerdict(name: "cart", version: "1.0.0", refusal: nil, reason: nil), manifests: manifests)
    }

    @Test("the verdict file's entries come back as they were written; an edited, cut or foreign line is left out")
    func verdictLines() throws {
        let packed = try #require(ManifestPacking.pack(Self.manifests))
        let refused = VerdictCache.Entry(
            size: 0, modified: 0, changed: 0, inode: UInt64.max, device: 1, sha256: "", host: "another host",
            verdict: PluginVerdict(name: nil, version: nil, refusal: .noEntry, reason: "no entry point — é"))
        var extremes = Self.entry(manifests: "")
        (extremes.size, extremes.modified, extremes.changed, extremes.device) = (Int64.max, Int64.min, 0, UInt64.max)
        let entries = [
            "/p/libcart.so": Self.entry(manifests: packed), "/p/libé lan.so": refused, "/p/libnone.so": Self.entry(manifests: ""),
            "/p/libedge.so": extremes,
        ]
        let text = VerdictCache.serialize(entries)
        #expect(VerdictCache.parse(text) == entries)
        #expect(VerdictCache.parse(text.replacingOccurrences(of: "\n", with: "\r\n")).isEmpty, "a header with a carriage return is not the header")
        #expect(VerdictCache.parse(String(text.drop { $0 != "\n" })).isEmpty, "no header: nothing")

        var lines = text.split(separator: "\n").map(String.init)
        let cart = try #require(lines.firstIndex { $0.hasPrefix("/p/libcart.so\t") })
        let original = lines[cart]
        let sealAt = try #require(original.lastIndex(of: "\t"))
        for edit in [
            original.replacingOccurrences(of: "\t45224\t", with: "\t45225\t"),  // a field edited: the seal no longer matches
            String(original.dropLast(3)),                                       // cut short
            original + "\textra",                                               // a field too many
            // The last bytes before the seal (the manifests' end), the same length.
            String(original[..<sealAt].dropLast()) + "x" + original[sealAt...],
            original.replacingOccurrences(of: "\t45224\t", with: "\tforty\t"),  // not a number, seal recomputed below
        ] {
            var edited = lines
            edited[cart] = edit
            #expect(VerdictCache.parse(edited.joined(separator: "\n") + "\n")["/p/libcart.so"] == nil, "\(edit)")
            #expect(VerdictCache.parse(edited.joined(separator: "\n") + "\n")["/p/libnone.so"] != nil)
        }
        // A line whose seal matches but whose number or refusal kind does not parse.
        var fields = original.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        for (index, value) in [
            (1, "forty"), (4, "-1"), (10, "not-a-kind"), (1, ""), (2, "-"), (3, "--1"), (1, "+5"), (1, "1 "),
            (1, "9223372036854775808"), (2, "-9223372036854775809"), (5, "18446744073709551616"),
        ] {
            var bad = fields
            bad[index] = value
            bad[13] = VerdictCache.seal(bad.prefix(13))
            lines[cart] = bad.joined(separator: "\t")
            #expect(VerdictCache.parse(lines.joined(separator: "\n") + "\n")["/p/libcart.so"] == nil, "field \(index) = \(value)")
        }
        fields[1] = "45225"
        fields[13] = VerdictCache.seal(fields.prefix(13))
        lines[cart] = fields.joined(separator: "\t")
        #expect(VerdictCache.parse(lines.joined(separator: "\n") + "\n")["/p/libcart.so"]?.size == 45_225, "a line resealed after an edit is read")
        // The seal is read back only as the cache writes it: 16 lower-case hex digits. The same
        // number in capitals, shorter, or with a sign is not a seal.
        let seal = fields[13]
        #expect(seal.count == 16 && seal != seal.uppercased(), "the seal has letters to put in capitals: \(seal)")
        for written in [seal.uppercased(), String(seal.dropFirst()), "+" + seal.dropFirst()] {
            fields[13] = written
            lines[cart] = fields.joined(separator: "\t")
            #expect(VerdictCache.parse(lines.joined(separator: "\n") + "\n")["/p/libcart.so"] == nil, "seal \(written)")
        }
    }
}
