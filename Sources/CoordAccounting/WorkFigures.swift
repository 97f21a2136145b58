@_spi(Host) import CoordSDK
import Histogram

/// The figures of one piece of a plugin's work — a message its handlers ran, or a page it
/// rendered — since the counting began or was last reset.
package struct WorkFigures: Sendable {
    /// Times it ran, and how many of those failed (threw); `refusals` are the failures that
    /// were a grant refused (a table, a service, a capability it was not given).
    package private(set) var count: UInt64 = 0
    package private(set) var errors: UInt64 = 0
    package private(set) var refusals: UInt64 = 0
    /// Its whole own time, in nanoseconds (what it sent to other handlers taken out).
    package private(set) var total: UInt64 = 0
    /// Its own time per run (nanoseconds), for the percentiles; nil for a client's share,
    /// which keeps sums only (a histogram is some kilobytes, a served app has many clients).
    package private(set) var time: Histogram<UInt32>?
    /// The statements it ran on its data handle, and their time in nanoseconds.
    package private(set) var statements: UInt64 = 0
    package private(set) var statementNanoseconds: UInt64 = 0
    /// Times a message of it waited in a queue, their total and longest wait (nanoseconds).
    package private(set) var waits: UInt64 = 0
    package private(set) var waitNanoseconds: UInt64 = 0
    package private(set) var longestWait: UInt64 = 0

    /// The shortest and longest time a histogram tells apart (100 ns, an hour): a shorter run
    /// counts as 100 ns, a longer one as an hour; two significant digits in between.
    static let floor: UInt64 = 100
    static let ceiling: UInt64 = 3_600_000_000_000

    package init(percentiles: Bool = true) {
        if percentiles {
            time = Histogram<UInt32>(lowestDiscernibleValue: Self.floor, highestTrackableValue: Self.ceiling, numberOfSignificantValueDigits: .two)
        }
    }

    /// One run that cost `cost`; `refused` when it failed because a grant was missing.
    mutating func record(_ cost: CallCost, failed: Bool, refused: Bool) {
        count &+= 1
        if failed { errors &+= 1 }
        if refused { refusals &+= 1 }
        total &+= cost.nanoseconds
        _ = time?.record(Swift.min(Swift.max(cost.nanoseconds, Self.floor), Self.ceiling))
        statements &+= cost.statements
        statementNanoseconds &+= cost.statementNanoseconds
    }

    mutating func recordWait(_ nanoseconds: UInt64) {
        waits &+= 1
        waitNanoseconds &+= nanoseconds
        longestWait = Swift.max(longestWait, nanoseconds)
    }

    /// The median, 99th percentile and longest of its own time, in nanoseconds (nil without
    /// percentiles or before any run).
    package var p50: UInt64? { count == 0 ? nil : time?.valueAtPercentile(50) }
    package var p99: UInt64? { count == 0 ? nil : time?.valueAtPercentile(99) }
    package var max: UInt64? { count == 0 ? nil : time?.max }

    /// These figures with `other`'s added (a plugin's rows summed); the percentiles are kept
    /// only where both have them.
    package mutating func add(_ other: WorkFigures) {
        count &+= other.count
        errors &+= other.errors
        refusals &+= other.refusals
        total &+= other.total
        if let theirs = other.time { time?.add(theirs) } else { time = nil }
        statements &+= other.statements
        statementNanoseconds &+= other.statementNanoseconds
        waits &+= other.waits
        waitNanoseconds &+= other.waitNanoseconds
        longestWait = Swift.max(longestWait, other.longestWait)
    }
}
