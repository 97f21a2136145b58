@_spi(Host) import CoordSDK
#if canImport(Glibc)
import Glibc
#endif

/// A C plugin's feature (ABI version 2) as the host keeps it: everything `coordsh_feature`
/// said, read once, checked and copied, so that nothing later reads the plugin's memory but
/// its functions.
///
/// Reading is where bad input stops: a string that is not UTF-8, a parameter type the host
/// does not know, a missing render function or handler, a count out of bounds — each is a
/// one-line refusal naming the page, message or parameter, and the plugin does not load.
struct CFeatureDescription {
    /// How a declared value is passed to a handler (see `coordsh_plugin.h`).
    enum Kind: Equatable, Hashable {
        case int, bool, string, route, double

        var valueType: ValueType {
            switch self {
            case .int: .int
            case .bool: .bool
            case .string: .string
            case .route: .route
            case .double: .double
            }
        }
    }

    struct Param: Equatable, Hashable {
        let name: String
        let kind: Kind
        let optional: Bool
        let summary: String

        var parameter: Parameter { Parameter(name, kind.valueType, optional: optional, summary: summary) }
    }

    struct PageDescription {
        let name: String
        let params: [Param]
        let summary: String
        let render: coordsh_render_fn
    }

    struct MessageDescription {
        let verb: String
        let params: [Param]
        let summary: String
        let needs: [String]
        let waiting: String?
        let handler: coordsh_handler_fn
    }

    let name: String
    let prefix: String
    let summary: String
    let pages: [PageDescription]
    let messages: [MessageDescription]
    let uses: [Capability]
    let migrations: [String]
    /// Offers values for a parameter (Tab); nil when the plugin offers none.
    let complete: (@convention(c) (UnsafeMutablePointer<coordsh_ctx>?, UnsafePointer<CChar>?) -> Int32)?

    /// The first version's `coordsh_feature` ends where `complete` begins: what a plugin that
    /// leaves `feature_size` at 0 (or was built before it) has.
    static let firstVersionSize = MemoryLayout<coordsh_feature>.offset(of: \coordsh_feature.complete) ?? MemoryLayout<coordsh_feature>.size

    /// Counts above these are a malformed descriptor, not a big feature.
    static let maxItems = 256

    struct Invalid: Error {
        let reason: String
    }

    /// Reads `feature`, whose struct the plugin says is `size` bytes (0: the first version's):
    /// only that much of it is read, the fields after it are as if NULL.
    init(_ feature: UnsafePointer<coordsh_feature>, size: UInt32) throws(Invalid) {
        let given = size == 0 ? Self.firstVersionSize : Int(size)
        guard given >= Self.firstVersionSize else {
            throw Invalid(reason: "feature_size \(size) is smaller than the first coordsh_feature (\(Self.firstVersionSize) bytes)")
        }
        var raw = coordsh_feature()
        withUnsafeMutableBytes(of: &raw) { copy in
            copy.copyMemory(from: UnsafeRawBufferPointer(start: feature, count: min(given, copy.count)))
        }
        complete = raw.complete
        name = try Self.text(raw.name, "the feature's name")
        prefix = try Self.text(raw.prefix, "the feature's prefix")
        summary = try Self.optionalText(raw.summary, "the feature's summary") ?? ""
        for (what, value) in [("name", name), ("prefix", prefix)] {
            guard let first = value.first, first.isASCII, first.isLowercase, value.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw Invalid(reason: "the feature's \(what) '\(CoordError.oneLine(value))' must be letters and digits, starting with a lower-case letter")
            }
        }
        let pageItems = try Self.items(raw.pages, raw.page_count, "pages")
        guard !pageItems.isEmpty else { throw Invalid(reason: "feature '\(name)' has no page (a message shows its first page by default)") }
        pages = try pageItems.enumerated().map { index, page throws(Invalid) in
            let pageName = try Self.text(page.name, "page \(index + 1)'s name")
            guard let render = page.render else { throw Invalid(reason: "page '\(pageName)' has no render function") }
            return PageDescription(
                name: pageName, params: try Self.params(page.params, page.param_count, of: "page '\(pageName)'"),
                summary: try Self.optionalText(page.summary, "page '\(pageName)''s summary") ?? "", render: render)
        }
        messages = try Self.items(raw.messages, raw.message_count, "messages").enumerated().map { index, message throws(Invalid) in
            let verb = try Self.text(message.verb, "message \(index + 1)'s verb")
            guard let handler = message.handler else { throw Invalid(reason: "message '\(verb)' has no handler function") }
            let needs = try Self.strings(message.needs, message.need_count, "message '\(verb)''s needs")
            return MessageDescription(
                verb: verb, params: try Self.params(message.params, message.param_count, of: "message '\(verb)'"),
                summary: try Self.optionalText(message.summary, "message '\(verb)''s summary") ?? "", needs: needs,
                waiting: try Self.optionalText(message.waiting, "message '\(verb)''s waiting line"), handler: handler)
        }
        uses = try Self.strings(raw.uses, raw.use_count, "uses").map { text throws(Invalid) in
            guard let capability = Capability(text) else { throw Invalid(reason: "it uses '\(CoordError.oneLine(text))', which is not a capability (e.g. 'read products')") }
            return capability
        }
        migrations = try Self.strings(raw.migrations, raw.migration_count, "migrations")
    }

    /// The rows of a C array, or a refusal for a negative or absurd count or a NULL array.
    private static func items<T>(_ base: UnsafePointer<T>?, _ count: Int32, _ what: String) throws(Invalid) -> [T] {
        guard count >= 0, count <= maxItems else { throw Invalid(reason: "\(what): count \(count) is out of bounds (0 to \(maxItems))") }
        guard count > 0 else { return [] }
        guard let base else { throw Invalid(reason: "\(what): count \(count) but no array") }
        return Array(UnsafeBufferPointer(start: base, count: Int(count)))
    }

    private static func strings(_ base: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int32, _ what: String) throws(Invalid) -> [String] {
        try items(base, count, what).enumerated().map { index, pointer throws(Invalid) in try text(pointer, "\(what) \(index + 1)") }
    }

    private static func params(_ base: UnsafePointer<coordsh_param>?, _ count: Int32, of owner: String) throws(Invalid) -> [Param] {
        var seen = Set<String>()
        return try items(base, count, "\(owner)'s parameters").map { param throws(Invalid) in
            let name = try text(param.name, "a parameter name of \(owner)")
            guard let first = name.first, first.isLetter, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else {
                throw Invalid(reason: "\(owner): parameter name '\(CoordError.oneLine(name))' must be letters and digits")
            }
            guard seen.insert(name).inserted else { throw Invalid(reason: "\(owner) declares parameter '\(name)' twice") }
            let kind: Kind
            switch UInt32(bitPattern: param.type) {
            case UInt32(COORDSH_TYPE_INT): kind = .int
            case UInt32(COORDSH_TYPE_BOOL): kind = .bool
            case UInt32(COORDSH_TYPE_STRING): kind = .string
            case UInt32(COORDSH_TYPE_ROUTE): kind = .route
            case UInt32(COORDSH_TYPE_DOUBLE): kind = .double
            default: throw Invalid(reason: "\(owner): parameter '\(name)' has type \(param.type), which this host does not know (1 int, 2 bool, 3 string, 4 route, 5 double)")
            }
            return Param(name: name, kind: kind, optional: param.optional != 0, summary: try optionalText(param.summary, "parameter '\(name)''s summary") ?? "")
        }
    }

    /// A required string: present, UTF-8, not empty, one line, bounded.
    static func text(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(Invalid) -> String {
        guard let value = try optionalText(pointer, what), !value.isEmpty else { throw Invalid(reason: "\(what) is missing") }
        return value
    }

    static func optionalText(_ pointer: UnsafePointer<CChar>?, _ what: String) throws(Invalid) -> String? {
        guard let pointer else { return nil }
        guard let value = CText.read(pointer, limit: 4096) else { throw Invalid(reason: "\(what) is not UTF-8 text (or longer than 4096 bytes)") }
        return value
    }
}

/// Text a C plugin hands over: read only as UTF-8 and only up to a bound, never trusted to
/// be either.
enum CText {
    /// The string at `pointer`, or nil when it is not valid UTF-8 or has no NUL within
    /// `limit` bytes.
    static func read(_ pointer: UnsafePointer<CChar>, limit: Int) -> String? {
        let length = strnlen(pointer, limit + 1)
        guard length <= limit else { return nil }
        let bytes = UnsafeRawBufferPointer(start: pointer, count: length)
        return String(validating: bytes, as: UTF8.self)
    }
}
