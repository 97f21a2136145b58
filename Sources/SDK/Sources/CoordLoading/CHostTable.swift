import CCoordABI
@_spi(Host) import CoordSDK
import Foundation

/// One call into a C plugin (a handler or a render function): what the host functions it
/// calls may reach — the level it runs at, the arguments — and what it said.
///
/// Its `coordsh_ctx` is the plugin's only handle on it: `ctx.host_private` points at it
/// unretained, and a host function called with the idle context's ctx between calls (a
/// plugin that kept one) finds `inCall` false and does nothing. The strings handed to the plugin during a call (an
/// argument, a setting) are freed when the call returns, as the header says. A feature keeps
/// one idle context for its next call (`CFeature.withCall`), so that a call allocates
/// nothing; a call made during a call (a handler that sends to its own feature) gets its own.
/// Not isolated to the main actor as a type (its end would then check the executor), but
/// used only there: made by a main-actor call and handed to C for that call's length.
final class CCallContext: @unchecked Sendable {
    /// Lines a render function may add, and bytes of one line: more is cut, with a note.
    static let maxLines = 2000
    static let maxLineBytes = 4096

    /// The feature outlives every context it makes (it keeps the idle one).
    unowned let feature: CFeature
    /// The level the call runs at; the caller holds it for the call's length. Nil for a
    /// completion, which runs at no level: it has `services` only.
    unowned var level: Responder?
    /// The scene's services for a call at no level (a completion).
    private var services: AppDependency?
    /// The services the call's level sees (or a completion was given).
    @MainActor var dependencies: AppDependency? { level?.dependencies ?? services }
    var arguments: Arguments
    /// What the plugin said during the call: one value, so that readying a context for the
    /// next call is one write.
    private var said = Said()
    private struct Said {
        var title: String?
        var lines: [String] = []
        var error: String?
        var notes: [String] = []
        var cut = false
    }
    var title: String? {
        get { said.title }
        set { said.title = newValue }
    }
    var lines: [String] { said.lines }
    var error: String? {
        get { said.error }
        set { said.error = newValue }
    }
    var notes: [String] { said.notes }
    func addLine(_ line: String) { said.lines.append(line) }
    func addNote(_ line: String) { said.notes.append(line) }
    var cut: Bool {
        get { said.cut }
        set { said.cut = newValue }
    }
    /// True between `with`'s start and end: a host function called otherwise is refused.
    private(set) var inCall = false
    private var lent: [UnsafeMutablePointer<CChar>] = []
    /// The `coordsh_ctx` handed to the plugin, one per context, made once.
    private let ctx: UnsafeMutablePointer<coordsh_ctx>

    /// The feature's name and prefix, for the lines the host writes.
    let name: String
    let prefix: String

    @MainActor
    init(feature: CFeature, level: Responder?, arguments: Arguments, services: AppDependency? = nil) {
        self.feature = feature
        name = feature.name
        prefix = feature.prefix
        self.level = level
        self.arguments = arguments
        self.services = services
        ctx = .allocate(capacity: 1)
        ctx.initialize(to: coordsh_ctx(host: CHostTable.table, host_private: nil))
        ctx.pointee.host_private = Unmanaged.passUnretained(self).toOpaque()
    }

    deinit { ctx.deallocate() }

    /// Readies an idle context for a new call at `level`.
    func reuse(level: Responder, arguments: Arguments) {
        self.level = level
        self.arguments = arguments
        said = Said()
    }

    /// Runs `body` with this call's `coordsh_ctx`, then frees what was lent.
    func with<T>(_ body: (UnsafeMutablePointer<coordsh_ctx>) -> T) -> T {
        inCall = true
        defer {
            inCall = false
            if !lent.isEmpty {
                for pointer in lent { free(pointer) }
                lent.removeAll()
            }
        }
        return body(ctx)
    }

    /// A copy of `text` the plugin may read until the call returns.
    func lend(_ text: String) -> UnsafePointer<CChar>? {
        guard let copy = strdup(text) else { return nil }
        lent.append(copy)
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

/// The table of host functions every C plugin's `ctx->host` points at: one, built once,
/// each entry a C function that finds its call's `CCallContext` through the ctx.
enum CHostTable {
    nonisolated(unsafe) static let table: UnsafeMutablePointer<coordsh_host> = {
        let table = UnsafeMutablePointer<coordsh_host>.allocate(capacity: 1)
        table.initialize(to: coordsh_host(
            size: UInt32(MemoryLayout<coordsh_host>.size),
            set_error: { ctx, message in
                let message = Unsent(message)
                call(ctx) { context in
                    context.error = context.text(message.value, "set_error's message").map { CoordError.oneLine($0) } ?? context.error
                }
            },
            note: { ctx, line in
                let line = Unsent(line)
                call(ctx) { context in
                    if let line = context.text(line.value, "note's line") { context.addNote(CoordError.oneLine(line)) }
                }
            },
            display: { ctx, route in
                let route = Unsent(route)
                return call(ctx, failure: Int32(-1)) { context in
                    guard let route = context.text(route.value, "display's route") else { return -1 }
                    guard let level = context.level else { return context.fail("\(context.name): display \(route): no page can be shown while completing") }
                    do {
                        try level.display(route: route)
                        return 0
                    } catch {
                        return context.fail("\(error)")
                    }
                }
            },
            send: { ctx, name, count, names, values in
                let name = Unsent(name), names = Unsent(names), values = Unsent(values)
                return call(ctx, failure: Int32(-1)) { context in context.send(name.value, count, names.value, values.value) }
            },
            arg_int: { ctx, name, value in
                let name = Unsent(name), value = Unsent(value)
                return call(ctx, failure: Int32(0)) { context in
                    guard let name = context.text(name.value, "arg_int's name"), let given = context.arguments.int(name) else { return 0 }
                    value.value?.pointee = Int64(given)
                    return 1
                }
            },
            arg_string: { ctx, name in
                let name = Unsent(name)
                return call(ctx, failure: nil) { context in
                    guard let name = context.text(name.value, "arg_string's name"), let given = context.arguments[name] else { return nil }
                    return context.lend(given.description)
                }
            },
            set_title: { ctx, title in
                let title = Unsent(title)
                call(ctx) { context in
                    if let title = context.text(title.value, "set_title's title") { context.title = CoordError.oneLine(title) }
                }
            },
            add_line: { ctx, line in
                let line = Unsent(line)
                call(ctx) { context in
                    guard let line = context.text(line.value, "add_line's line") else { return }
                    guard context.lines.count < CCallContext.maxLines else {
                        context.cut = true
                        return
                    }
                    context.addLine(CoordError.oneLine(line))
                }
            },
            sql: { ctx, sql, count, values, row, user in
                let sql = Unsent(sql), values = Unsent(values), row = Unsent(row), user = Unsent(user)
                return call(ctx, failure: Int32(-1)) { context in context.runSQL(sql.value, count, values.value, row.value, user.value) }
            },
            setting: { ctx, key in
                let key = Unsent(key)
                return call(ctx, failure: nil) { context in
                    guard let key = context.text(key.value, "setting's key") else { return nil }
                    return context.setting(key).flatMap(context.lend)
                }
            },
            login: { ctx in
                call(ctx, failure: nil) { context in
                    guard let who = context.dependencies?[Services.loginIdentity] else { return nil }
                    return context.lend(who.loginName)
                }
            },
            arg_double: { ctx, name, value in
                let name = Unsent(name), value = Unsent(value)
                return call(ctx, failure: Int32(0)) { context in
                    guard let name = context.text(name.value, "arg_double's name"), let given = context.arguments[name]?.doubleValue else { return 0 }
                    value.value?.pointee = given
                    return 1
                }
            }))
        return table
    }()

    /// Runs `body` with the call's context, on the main thread the call came on; `failure`
    /// when the ctx is not one the host made (a plugin that kept one past its call).
    private static func call<T>(_ ctx: UnsafeMutablePointer<coordsh_ctx>?, failure: T, _ body: @MainActor (CCallContext) -> T) -> T {
        guard Thread.isMainThread, let raw = ctx?.pointee.host_private else { return failure }
        let context = Unmanaged<CCallContext>.fromOpaque(raw).takeUnretainedValue()
        guard context.inCall else { return failure }
        let unsent = Unsent(context)
        // The result (a pointer lent to the plugin) goes straight back to C on this thread.
        let result = MainActor.assumeIsolated { Unsent(body(unsent.value)) }
        return result.value
    }

    private static func call(_ ctx: UnsafeMutablePointer<coordsh_ctx>?, _ body: @MainActor (CCallContext) -> Void) {
        call(ctx, failure: ()) { body($0) }
    }
}

@MainActor
extension CCallContext {
    /// `host->send`: the arguments as text, typed by the receiving feature's declaration.
    func send(_ name: UnsafePointer<CChar>?, _ count: Int32, _ names: UnsafePointer<UnsafePointer<CChar>?>?, _ values: UnsafePointer<UnsafePointer<CChar>?>?) -> Int32 {
        guard let message = text(name, "send's message name") else { return -1 }
        guard count >= 0, count <= 64, count == 0 || (names != nil && values != nil) else {
            return fail("\(feature.prefix): send \(message): \(count) arguments but no array of them")
        }
        var pairs: [(name: String, text: String)] = []
        for index in 0..<Int(count) {
            guard let key = text(names?[index], "send's argument name"), let value = text(values?[index], "send's argument '\(key)'") else { return -1 }
            pairs.append((key, value))
        }
        let prefix = String(message.prefix { !$0.isUppercase })
        let verb = message.dropFirst(prefix.count).prefix(1).lowercased() + message.dropFirst(prefix.count + 1)
        guard let level else { return fail("\(feature.prefix): send \(message): no message can be sent while completing") }
        var root: Responder? = level
        while let parent = root?.parent { root = parent }
        do {
            let arguments: Arguments
            if let spec = (root as? AppCoordinator)?.features.feature(prefix: prefix)?.message(verb: verb) {
                arguments = try Arguments.validate(pairs, against: spec.arguments, context: message)
            } else {
                arguments = Arguments(pairs.map { ($0.name, Value.string($0.text)) })
            }
            try level.send(Message(MessageName(message), arguments, from: level))
            return 0
        } catch {
            return fail("\(error)")
        }
    }

    /// `host->setting`: a key of the feature's own config table, as text.
    func setting(_ key: String) -> String? {
        guard let environment = dependencies?[HostEnvironment.key], let json = environment.settings[feature.name],
            let table = try? JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any], let value = table[key]
        else { return nil }
        return value as? String ?? "\(value)"
    }

    /// `host->sql`: one statement on the feature's own data, rows handed to `row`.
    func runSQL(
        _ sql: UnsafePointer<CChar>?, _ count: Int32, _ values: UnsafePointer<coordsh_value>?, _ row: coordsh_row_fn?, _ user: UnsafeMutableRawPointer?
    ) -> Int32 {
        guard let statement = text(sql, "sql's statement") else { return -1 }
        guard count >= 0, count <= 999, count == 0 || values != nil else {
            return fail("\(feature.prefix): sql: \(count) values but no array of them")
        }
        var bound: [SQLValue] = []
        for index in 0..<Int(count) {
            guard let value = values?[index] else { return -1 }
            switch UInt32(bitPattern: value.type) {
            case UInt32(COORDSH_SQL_NULL): bound.append(.null)
            case UInt32(COORDSH_SQL_INTEGER): bound.append(.integer(value.integer))
            case UInt32(COORDSH_SQL_REAL): bound.append(.real(value.real))
            case UInt32(COORDSH_SQL_TEXT):
                guard let text = text(value.text, "sql value \(index + 1)") else { return -1 }
                bound.append(.text(text))
            default: return fail("\(feature.prefix): sql value \(index + 1) has type \(value.type), which is not one of COORDSH_SQL_…")
            }
        }
        do {
            let data = try feature.data(dependencies)
            let rows = try data.write { db in try db.rows(statement, bound) }
            guard let row else { return 0 }
            for result in rows {
                let keep = deliver(result, to: row, user)
                if keep != 0 { break }
            }
            return 0
        } catch {
            return fail("\(error)")
        }
    }

    private func deliver(_ result: SQLRow, to row: coordsh_row_fn, _ user: UnsafeMutableRawPointer?) -> Int32 {
        var owned: [UnsafeMutablePointer<CChar>] = []
        defer { for pointer in owned { free(pointer) } }
        func copy(_ text: String) -> UnsafePointer<CChar>? {
            guard let pointer = strdup(text) else { return nil }
            owned.append(pointer)
            return UnsafePointer(pointer)
        }
        let names = result.columns.map(copy)
        let values = result.values.map { value -> coordsh_value in
            switch value {
            case .null: coordsh_value(type: Int32(COORDSH_SQL_NULL), integer: 0, real: 0, text: nil)
            case .integer(let number): coordsh_value(type: Int32(COORDSH_SQL_INTEGER), integer: number, real: 0, text: nil)
            case .real(let number): coordsh_value(type: Int32(COORDSH_SQL_REAL), integer: 0, real: number, text: nil)
            case .text(let text): coordsh_value(type: Int32(COORDSH_SQL_TEXT), integer: 0, real: 0, text: copy(text))
            case .blob: coordsh_value(type: Int32(COORDSH_SQL_NULL), integer: 0, real: 0, text: nil)
            }
        }
        return names.withUnsafeBufferPointer { nameBuffer in
            values.withUnsafeBufferPointer { valueBuffer in
                row(user, Int32(names.count), nameBuffer.baseAddress, valueBuffer.baseAddress)
            }
        }
    }
}

/// A value from C (a pointer the plugin passed, or one lent back to it) that never leaves the
/// main thread it arrived on, handed through `MainActor.assumeIsolated`.
struct Unsent<T>: @unchecked Sendable {
    let value: T
    init(_ value: T) { self.value = value }
}
