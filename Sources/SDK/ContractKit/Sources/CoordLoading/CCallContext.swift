@_spi(Host) import CoordSDK
#if canImport(Glibc)
import Glibc
#endif

/// One call into a C plugin (a handler, a render function, a completion): what the host
/// functions it calls may reach — the level it runs at, the arguments, the services — and
/// what it said.
///
/// Its `coordsh_ctx` is the plugin's only handle on it: `ctx.host_private` points at it
/// unretained, and a host function called with the idle context's ctx between calls (a
/// plugin that kept one) finds `inCall` false and does nothing. The strings lent to the
/// plugin during a call (an argument, a setting) are freed when the call ends, as the header
/// says. A feature keeps one idle context for its next call (`CFeature.run`), so that a call
/// allocates nothing; a call made during a call (a handler that sends to its own feature)
/// gets its own.
///
/// Everything that changes from call to call is one value, `state`, changed once as a call
/// begins and once as it ends: each access to a class's stored property is checked for
/// exclusivity at run time, and a call is a few hundred nanoseconds.
/// Not isolated to the main actor as a type (its end would then check the executor), but
/// used only there: made by a main-actor call and handed to C for that call's length.
final class CCallContext: @unchecked Sendable {
    /// Lines a render function may add, and bytes of one line: more is cut, with a note.
    static let maxLines = 2000
    static let maxLineBytes = 4096

    /// What the plugin said during a call.
    struct Said {
        var title: String?
        var lines: [String] = []
        var error: String?
        var notes: [String] = []
        var cut = false
    }

    private struct State {
        /// The level the call runs at (held until the call ends); nil for a completion,
        /// which runs at no level and has `services` only.
        var level: Responder?
        /// The arguments and services, held by the SDK (resilient types, see `CallScope`).
        let scope = CallScope()
        var said = Said()
        /// True from `begin` to `end`: a host function called otherwise is refused.
        var inCall = false
        var lent: [UnsafeMutablePointer<CChar>] = []

        /// Readies the state for a call, field by field (assigning a whole new state would
        /// destroy the old one through its value witness, the dearest step of a call).
        mutating func start(level: Responder?, arguments: Arguments, services: AppDependency?) {
            self.level = level
            scope.begin(arguments: arguments, services: services)
            inCall = true
        }

        /// Empties the state after a call: what was said, and what was lent, to be freed.
        mutating func finish() -> (said: Said, lent: [UnsafeMutablePointer<CChar>]) {
            defer {
                level = nil
                scope.end()
                said = Said()
                inCall = false
                if !lent.isEmpty { lent = [] }
            }
            return (said, lent)
        }
    }

    /// The feature outlives every context it makes (it keeps the idle one).
    unowned let feature: CFeature
    private var state = State()
    /// The `coordsh_ctx` handed to the plugin, one per context, made once.
    let ctx: UnsafeMutablePointer<coordsh_ctx>

    /// The feature's name and prefix, for the lines the host writes.
    let name: String
    let prefix: String

    @MainActor
    init(feature: CFeature) {
        self.feature = feature
        name = feature.name
        prefix = feature.prefix
        ctx = .allocate(capacity: 1)
        ctx.initialize(to: coordsh_ctx(host: CHostTable.table, host_private: nil))
        ctx.pointee.host_private = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { ctx.deallocate() }

    /// Starts a call at `level` (or, with none, with `services`).
    func begin(level: Responder?, arguments: Arguments, services: AppDependency?) {
        state.start(level: level, arguments: arguments, services: services)
    }

    /// Ends the call: frees what was lent and gives what the plugin said.
    func end() -> Said {
        let (said, lent) = state.finish()
        for pointer in lent { free(pointer) }
        return said
    }

    var inCall: Bool { state.inCall }
    var level: Responder? { state.level }
    var arguments: CallScope { state.scope }
    /// The services the call's level sees (or a completion was given).
    @MainActor var dependencies: AppDependency? { state.level?.dependencies ?? state.scope.services }
    var title: String? {
        get { state.said.title }
        set { state.said.title = newValue }
    }
    var error: String? {
        get { state.said.error }
        set { state.said.error = newValue }
    }
    var lineCount: Int { state.said.lines.count }
    func addLine(_ line: String) { state.said.lines.append(line) }
    func addNote(_ line: String) { state.said.notes.append(line) }
    func markCut() { state.said.cut = true }

    /// A copy of `text` the plugin may read until the call returns.
    func lend(_ text: String) -> UnsafePointer<CChar>? {
        guard let copy = strdup(text) else { return nil }
        state.lent.append(copy)
        return UnsafePointer(copy)
    }

    /// Text from the plugin, or nil after recording why it cannot be read.
    func text(_ pointer: UnsafePointer<CChar>?, _ what: String) -> String? {
        guard let pointer else {
            error = error ?? "\(name): \(what): NULL where text was expected"
            return nil
        }
        guard let value = CText.read(pointer, limit: Self.maxLineBytes) else {
            error = error ?? "\(name): \(what) is not UTF-8 text (or longer than \(Self.maxLineBytes) bytes)"
            return nil
        }
        return value
    }

    func fail(_ message: String) -> Int32 {
        error = error ?? message
        return -1
    }
}

/// A value from C (a pointer the plugin passed, or one lent back to it) that never leaves the
/// main thread it arrived on, handed through `MainActor.assumeIsolated`.
struct Unsent<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
