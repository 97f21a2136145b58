import Foundation
import GRDB

/// The statements one SQLite connection ran last, found again by their text's bytes before
/// GRDB's statement cache is asked.
///
/// GRDB keys its cache by `String`, so each of a command's statements paid for hashing its whole
/// text (SipHash over a cart query's 150 bytes, and its `SAVEPOINT`s): 2.6 % of a `-1` batch
/// script. Here the text is looked up in `TextSlots` first; a miss asks GRDB as before.
///
/// Nothing here decides whether a statement exists: the memo holds statements weakly, and GRDB's
/// cache is their owner. When GRDB lets one go — the schema changed, the statement failed, the
/// connection closed — the memo's slot is empty the next time it is read, and GRDB compiles the
/// text again. Texts are compared as bytes, so two texts Swift calls equal and SQLite reads as
/// two (`café` written two ways) are two statements here, as in `Connection.compiled`.
///
/// One per connection — the data manager makes a new one each time it opens the file — and
/// used only inside that connection's accesses, which it makes from the main actor, one at a
/// time.
final class StatementMemo {
    /// A statement, weakly: GRDB's cache owns it.
    private final class Held {
        weak var statement: Statement?
        init(_ statement: Statement) { self.statement = statement }
    }

    // Unchecked: looked up or filled in one step, never across a call (GRDB's compile is made
    // between the two); the access check cost a third of a lookup.
    @exclusivity(unchecked) private var slots = TextSlots<Held>()

    /// The statement kept for `sql`, if it is still kept (GRDB's cache owns it). A text is kept
    /// only by `statement(_:on:)`, whose texts are ASCII: a text found here is too.
    func known(_ sql: String) -> Statement? {
        slots.value(for: sql)?.statement
    }

    /// GRDB's compiled statement for `sql`, which must be ASCII (see `Connection.compiled`), on
    /// `db`, always the memo's own connection.
    func statement(_ sql: String, on db: Database) throws -> Statement {
        if let statement = slots.value(for: sql)?.statement { return statement }
        let statement = try db.cachedStatement(sql: sql)
        slots.keep(Held(statement), for: sql)
        return statement
    }
}
