/// Messages parked at one level of the chain until that level's dependencies arrive.
///
/// This is the seeds' `enqueueMessage` / `processQueuedMessages`, bounded: a queue that could
/// grow without limit would hide a dependency that never comes. Overflow is refused to the
/// sender and every drop is reported.
@_spi(Host) public struct MessageQueue {
    /// The default bound per level.
    public static let defaultCapacity = 32

    struct Entry {
        let message: Message
        let needs: DependencySet
        /// What it lacked when last looked at, to tell the waiting handler about changes only.
        var missing: [DependencyKey]
        /// Delivered here by the root: its replay ends at this level.
        var routed = false
        /// When it was queued (`FeatureClock.now()`), while the host counts; 0 otherwise.
        var queuedAt: UInt64 = 0
    }

    var entries: [Entry] = []
    /// The most messages this level will hold.
    public var capacity: Int

    public init(capacity: Int = MessageQueue.defaultCapacity) { self.capacity = capacity }

    public var count: Int { entries.count }
    public var isEmpty: Bool { entries.isEmpty }

    /// Each queued message with the keys it is still waiting for, given `available`.
    public func waiting(given available: DependencySet) -> [(message: Message, waitingFor: [DependencyKey])] {
        entries.map { ($0.message, available.missing(from: $0.needs)) }
    }
}
