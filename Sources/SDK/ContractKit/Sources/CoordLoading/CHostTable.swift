@_spi(Host) import CoordSDK
import Foundation

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
                    guard let name = context.text(name.value, "arg_int's name"), case .int(let given) = context.arguments.cArgument(named: name) else { return 0 }
                    value.value?.pointee = Int64(given)
                    return 1
                }
            },
            arg_string: { ctx, name in
                let name = Unsent(name)
                return call(ctx, failure: nil) { context in
                    guard let name = context.text(name.value, "arg_string's name") else { return nil }
                    switch context.arguments.cArgument(named: name) {
                    case .text(let text): return context.lend(text)
                    case .int(let number): return context.lend(String(number))
                    case .bool(let flag): return context.lend(String(flag))
                    case .double(let number): return context.lend(String(number))
                    case .absent: return nil
                    }
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
                    guard context.lineCount < CCallContext.maxLines else {
                        context.markCut()
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
                    guard let name = context.text(name.value, "arg_double's name"), case .double(let given) = context.arguments.cArgument(named: name) else { return 0 }
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
                // ABI 2 has no blob value (and coordsh_value cannot grow: plugins pass arrays of
                // it): a blob is refused in one line rather than handed over as NULL.
                if let index = result.values.firstIndex(where: { if case .blob = $0 { true } else { false } }) {
                    let column = result.columns.indices.contains(index) ? "'\(result.columns[index])'" : "\(index + 1)"
                    return fail("\(feature.prefix): sql: column \(column) holds a blob, which a C plugin is not handed; select hex(…) or CAST(… AS TEXT)")
                }
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
            case .blob: coordsh_value(type: Int32(COORDSH_SQL_NULL), integer: 0, real: 0, text: nil)  // refused before
            }
        }
        return names.withUnsafeBufferPointer { nameBuffer in
            values.withUnsafeBufferPointer { valueBuffer in
                row(user, Int32(names.count), nameBuffer.baseAddress, valueBuffer.baseAddress)
            }
        }
    }
}
