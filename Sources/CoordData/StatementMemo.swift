import Foundation
import GRDB

/// The statements one SQLite connection ran last, found again by their text's bytes before
/// GRDB's statement cache is asked.
///
/// GRDB keys its cache by `String`, so each of a command's statements paid for hashing its whole
/// text (SipHash over a cart query's 150 bytes, and its `SAVEPOINT`s): 2.6 % of a `-1` batch
/// script. Here a text picks one of 256 slots by its length and three of its words, and is
/// compared byte for byte with the copy the slot keeps; a miss, or a slot another text took,
/// asks GRDB as before.
///
/// Nothing here decides whether a statement exists: the memo holds statements weakly, and GRDB's
/// cache is their owner. When GRDB lets one go — the schema changed, the statement failed, the
/// connection closed — the memo's slot is empty the next time it is read, and GRDB compiles the
/// text again. Texts are kept as bytes, so two texts Swift calls equal and SQLite reads as two
/// (`café` written two ways) are two statements here, as in `Connection.compiled`.
///
/// One per connection — the data manager makes a new one each time it opens the file — and
/// used only inside that connection's accesses, which it makes from the main actor, one at a
/// time.
final class StatementMemo {
    /// A class, so that reading a slot retains it rather than copying its weak reference.
    private final class Slot {
        /// The text, copied: its bytes are what a later text is compared with.
        let sql: [UInt8]
        weak var statement: Statement?

        init(sql: [UInt8], statement: Statement) {
            self.sql = sql
            self.statement = statement
        }
    }

    private static let slotCount = 256
    private var slots: [Slot?] = Array(repeating: nil, count: slotCount)

    /// GRDB's compiled statement for `sql`, which must be ASCII (see `Connection.compiled`), on
    /// `db`, always the memo's own connection.
    func statement(_ sql: String, on db: Database) throws -> Statement {
        var sql = sql
        let (index, found) = sql.withUTF8 { bytes -> (Int, Statement?) in
            let index = Self.slot(of: bytes)
            guard let slot = slots[index], let statement = slot.statement, Self.same(slot.sql, bytes) else { return (index, nil) }
            return (index, statement)
        }
        if let found { return found }
        let statement = try db.cachedStatement(sql: sql)
        slots[index] = Slot(sql: Array(sql.utf8), statement: statement)
        return statement
    }

    /// The slot for a text: its length and its first, middle and last eight bytes, mixed. The
    /// statements a command runs differ in at least one of them.
    static func slot(of bytes: UnsafeBufferPointer<UInt8>) -> Int {
        var mixed = UInt64(truncatingIfNeeded: bytes.count) &* 0x9E37_79B9_7F4A_7C15
        if let base = bytes.baseAddress, bytes.count >= 8 {
            let raw = UnsafeRawPointer(base)
            mixed = (mixed ^ raw.loadUnaligned(as: UInt64.self)) &* 0xBF58_476D_1CE4_E5B9
            mixed = (mixed ^ raw.loadUnaligned(fromByteOffset: (bytes.count - 8) / 2, as: UInt64.self)) &* 0x94D0_49BB_1331_11EB
            mixed = (mixed ^ raw.loadUnaligned(fromByteOffset: bytes.count - 8, as: UInt64.self)) &* 0x9E37_79B9_7F4A_7C15
        } else {
            for byte in bytes { mixed = (mixed ^ UInt64(byte)) &* 0xBF58_476D_1CE4_E5B9 }
        }
        return Int(truncatingIfNeeded: (mixed ^ (mixed >> 31)) % UInt64(slotCount))
    }

    private static func same(_ kept: [UInt8], _ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard kept.count == bytes.count else { return false }
        return kept.withUnsafeBufferPointer { kept in
            guard let a = kept.baseAddress, let b = bytes.baseAddress else { return true }
            return memcmp(a, b, bytes.count) == 0
        }
    }
}
