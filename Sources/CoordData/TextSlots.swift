import Foundation

/// A small memo from a text (a statement, with the feature that runs it) to what was found for
/// it, in front of a slower lookup: a text picks one of 256 slots by its length, its tag's
/// length and its first, middle and last eight bytes, and is compared byte for byte with the
/// copy the slot keeps. A miss, or a slot another text took, goes to the slower lookup, whose
/// answer takes the slot.
///
/// The lookups it fronts hash the statement's text with SipHash at every run — GRDB's statement
/// cache all of it, the statement check's verdicts up to 80 bytes of it and the feature — which
/// cost more than the rest of the lookup for the few statements a command runs thousands of
/// times in a batch script. Texts
/// are compared as bytes, the way SQLite reads them: two texts Swift calls equal (`café` written
/// two ways) are two texts here (see `SQLiteText.swift`).
struct TextSlots<Value> {
    /// A class, so that reading a slot retains it rather than copying what it holds.
    private final class Slot {
        let tag: String
        /// The text, copied: its bytes are what a later text is compared with.
        let bytes: [UInt8]
        let value: Value

        init(tag: String, bytes: [UInt8], value: Value) {
            self.tag = tag
            self.bytes = bytes
            self.value = value
        }
    }

    private static var count: Int { 256 }
    private var slots: [Slot?] = Array(repeating: nil, count: count)

    /// What was kept for `text` under `tag` (a feature's name; "" for none), if its slot holds it.
    func value(for text: String, tag: String = "") -> Value? {
        var text = text
        return text.withUTF8 { bytes in
            guard let slot = slots[Self.slot(of: bytes, tag: tag)], Self.same(slot.bytes, bytes), slot.tag == tag else { return nil }
            return slot.value
        }
    }

    /// Keeps `value` for `text` under `tag`, in place of whatever held its slot.
    mutating func keep(_ value: Value, for text: String, tag: String = "") {
        var text = text
        let index = text.withUTF8 { Self.slot(of: $0, tag: tag) }
        slots[index] = Slot(tag: tag, bytes: Array(text.utf8), value: value)
    }

    /// Forgets everything kept.
    mutating func removeAll() {
        slots = Array(repeating: nil, count: Self.count)
    }

    /// The slot for a text and tag: their lengths and the text's first, middle and last eight
    /// bytes, mixed. The statements a command runs differ in at least one of them.
    static func slot(of bytes: UnsafeBufferPointer<UInt8>, tag: String) -> Int {
        var mixed = UInt64(truncatingIfNeeded: bytes.count &+ tag.utf8.count &* 4099) &* 0x9E37_79B9_7F4A_7C15
        if let base = bytes.baseAddress, bytes.count >= 8 {
            let raw = UnsafeRawPointer(base)
            mixed = (mixed ^ raw.loadUnaligned(as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ raw.loadUnaligned(fromByteOffset: (bytes.count - 8) / 2, as: UInt64.self)) &* 0x94D0_49BB_1331_11EB
            mixed = (mixed ^ raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
        } else {
            for byte in bytes { mixed = (mixed ^ UInt64(byte)) &* 0xBF58_476D_1CE4_E5B9 }
        }
        return Int(truncatingIfNeeded: (mixed ^ (mixed >> 31)) % UInt64(count))
    }

    private static func same(_ kept: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard kept.count == bytes.count else { return false }
        return kept.withUnsafeBufferPointer { kept in
            guard let a = kept.baseAddress, let b = bytes.baseAddress else { return true }
            return memcmp(a, b, bytes.count) == 0
        }
    }
}
