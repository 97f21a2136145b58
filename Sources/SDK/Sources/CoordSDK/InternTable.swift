import Synchronization

/// A process-wide table that maps strings to small dense integers and back.
///
/// Interning happens at registration and parse time so that the dispatch hot path compares and
/// indexes by integer instead of hashing strings at every hop. Lookups by id never take the
/// lock's slow path in practice; the table only grows.
final class InternTable: Sendable {
    private struct State {
        var ids: [String: Int32] = [:]
        var strings: [String] = []
    }

    private let state = Mutex(State())

    init(preloaded: [String] = []) {
        for string in preloaded { _ = intern(string) }
    }

    func intern(_ string: String) -> Int32 {
        state.withLock { state in
            if let id = state.ids[string] { return id }
            let id = Int32(state.strings.count)
            state.strings.append(string)
            state.ids[string] = id
            return id
        }
    }

    func lookup(_ string: String) -> Int32? {
        state.withLock { $0.ids[string] }
    }

    func string(for id: Int32) -> String {
        state.withLock { $0.strings[Int(id)] }
    }
}
