@_spi(Host) import CoordSDK

/// Told each figure as `PluginStats` counts it: what exports them as they happen (the
/// Prometheus metrics of `serve --metrics`, which a reset of `plugins stats` must not set back,
/// and whose histograms are fixed buckets, not HdrHistogram's).
///
/// Called on the main actor, inside the counted call's report: keep it to updating
/// instruments. `slot` is the row's index, the same for the row's whole life, so that a sink
/// finds its instruments without hashing the key's strings.
package protocol FigureSink: AnyObject {
    /// The row `key` ran once at `cost`; `failed` when it threw, `refused` when that was a
    /// grant refused.
    func ran(_ key: PluginStats.Key, slot: Int, cost: CallCost, failed: Bool, refused: Bool)
    /// A message of the row `key` waited `nanoseconds` in a queue.
    func waited(_ key: PluginStats.Key, slot: Int, nanoseconds: UInt64)
}
