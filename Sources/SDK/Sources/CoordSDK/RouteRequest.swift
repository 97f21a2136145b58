internal import Foundation

/// A route as typed, before it is checked against the registered pages:
/// `content/product id=7` or the URL `coordsh://content/product?id=7`.
///
/// Parsing is separate from validation because the text form arrives from users, scripts and
/// deep links before anyone knows whether the feature exists; `FeatureRegistry` turns a request
/// into a typed `Page` and reports what is wrong with it.
public struct RouteRequest: Hashable, Sendable, CustomStringConvertible {
    /// The feature's name (`content`), as the route spells it.
    public var feature: String
    /// The page's name within the feature (`product`).
    public var page: String
    /// `name=text` pairs in the order given.
    public var arguments: [Pair]

    /// One `name=text` argument as typed, before it is checked against the page's parameters.
    public struct Pair: Hashable, Sendable {
        /// The parameter's name.
        public var name: String
        /// Its value as text; the page's parameter type reads it.
        public var text: String
        /// `name=text`.
        public init(_ name: String, _ text: String) { self.name = name; self.text = text }
    }

    /// A request for `feature/page` with arguments; `parse` reads one from text or a URL.
    public init(feature: String, page: String, arguments: [Pair] = []) {
        self.feature = feature
        self.page = page
        self.arguments = arguments
    }

    /// The URL scheme for deep links.
    public static let scheme = "coordsh"

    /// Parses either form: a URL with the `coordsh` scheme, or words `feature/page key=value …`
    /// split as the shell splits a command line, so that what `description` prints (quoted
    /// values included) reads back as the same route when it arrives as one piece of text — a
    /// route-typed argument, a config's `home`, a queued message replayed.
    public static func parse(_ text: String) throws(CoordError) -> RouteRequest {
        let trimmed = trimmingSpaces(text)
        if trimmed.hasPrefix("\(scheme):") { return try parseURL(trimmed) }
        let words: [String]
        do {
            words = try Words.split(trimmed)
        } catch {
            throw .malformedRoute(trimmed, reason: "a quote is not closed")
        }
        return try parse(words: words)
    }

    /// `text` without the spaces and tabs at its ends — what Foundation's
    /// `trimmingCharacters(in: .whitespaces)` removes (tab and Unicode's space separators),
    /// without building its `CharacterSet`: every start parses its home page's route, and that
    /// first use was 1 % of a start (BENCHMARKS.md, issue 41).
    static func trimmingSpaces(_ text: String) -> String {
        func isSpace(_ scalar: Unicode.Scalar) -> Bool { scalar == "\t" || scalar.properties.generalCategory == .spaceSeparator }
        let scalars = text.unicodeScalars
        guard let first = scalars.firstIndex(where: { !isSpace($0) }), let last = scalars.lastIndex(where: { !isSpace($0) }) else { return "" }
        if first == scalars.startIndex, scalars.index(after: last) == scalars.endIndex { return text }
        return String(scalars[first...last])
    }

    /// Parses the words form, already split by the shell (so quoted values may hold spaces).
    public static func parse(words: [String]) throws(CoordError) -> RouteRequest {
        guard let first = words.first else {
            throw .malformedRoute("", reason: "expected feature/page, e.g. content/catalog")
        }
        if first.hasPrefix("\(scheme):") {
            guard words.count == 1 else {
                throw .malformedRoute(words.joined(separator: " "), reason: "a URL takes its parameters after '?'")
            }
            return try parseURL(first)
        }
        let parts = first.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2, isName(parts[0]), isName(parts[1]) else {
            throw .malformedRoute(first, reason: "expected feature/page, e.g. content/catalog")
        }
        var pairs: [Pair] = []
        for word in words.dropFirst() {
            // The first "=" scalar: as characters, "=" followed by a combining mark is not "=".
            let scalars = word.unicodeScalars
            guard let eq = scalars.firstIndex(of: "="), isName(String(scalars[..<eq])) else {
                throw .malformedRoute(
                    words.joined(separator: " "), reason: "expected key=value, got '\(word)'")
            }
            pairs.append(Pair(String(scalars[..<eq]), String(scalars[scalars.index(after: eq)...])))
        }
        return RouteRequest(feature: String(parts[0]), page: String(parts[1]), arguments: pairs)
    }

    static func parseURL(_ text: String) throws(CoordError) -> RouteRequest {
        guard let components = URLComponents(string: text), components.scheme == scheme,
            let host = components.host, isName(host)
        else {
            throw .malformedRoute(text, reason: "expected coordsh://feature/page?key=value")
        }
        let page = components.path.split(separator: "/").map(String.init)
        guard page.count == 1, isName(page[0]) else {
            throw .malformedRoute(text, reason: "expected exactly one page after the feature")
        }
        let pairs = (components.queryItems ?? []).map { Pair($0.name, $0.value ?? "") }
        if let bad = pairs.first(where: { !isName($0.name) }) {
            throw .malformedRoute(text, reason: "'\(bad.name)' is not a parameter name (letters, digits, '_' and '-')")
        }
        return RouteRequest(feature: host, page: page[0], arguments: pairs)
    }

    /// A feature, page or parameter name: ASCII letters, digits, `_` and `-` — what plugins
    /// register (a feature is its prefix, a page an enum case, a parameter a Swift name). Only
    /// the values are free text.
    static func isName<S: StringProtocol>(_ text: S) -> Bool {
        !text.isEmpty && text.unicodeScalars.allSatisfy { $0.isASCII && ($0.properties.isAlphabetic || ("0"..."9").contains($0) || $0 == "_" || $0 == "-") }
    }

    /// `content/product id=7`: what `where` and the prompt show, and what `open` accepts back —
    /// split into words as the shell splits them (quotes, backslashes, a `#` that starts a
    /// comment), it reads back as the same route, whatever the route holds.
    public var description: String {
        ([Self.quoteIfNeeded(feature + "/" + page)] + arguments.map { pair in
            Self.needsQuotes(pair.name) ? Self.quoted("\(pair.name)=\(pair.text)") : "\(pair.name)=\(Self.quoteIfNeeded(pair.text))"
        }).joined(separator: " ")
    }

    /// `coordsh://content/product?id=7`, a deep link that opens this page at start-up.
    public var url: String {
        var components = URLComponents()
        components.scheme = Self.scheme
        components.host = feature
        components.path = "/" + page
        if !arguments.isEmpty { components.queryItems = arguments.map { URLQueryItem(name: $0.name, value: $0.text) } }
        return components.string ?? "\(Self.scheme)://\(feature)/\(page)"
    }

    static func quoteIfNeeded(_ text: String) -> String {
        needsQuotes(text) ? quoted(text) : text
    }

    /// True when the shell would not give `text` back as one word unchanged: empty, or holding
    /// a character its splitter treats specially, or starting a comment.
    static func needsQuotes(_ text: String) -> Bool {
        text.isEmpty || text.unicodeScalars.first == "#"
            || text.unicodeScalars.contains { $0 == " " || $0 == "\t" || $0 == "\"" || $0 == "'" || $0 == "\\" }
    }

    /// In double quotes, with `\` and `"` escaped: the shell's splitter reads it back as is.
    static func quoted(_ text: String) -> String {
        // Scalar by scalar: a quote or a backslash followed by a combining mark is one
        // character, which `replacingOccurrences` would not see.
        var quoted = String.UnicodeScalarView()
        quoted.append("\"")
        for scalar in text.unicodeScalars {
            if scalar == "\\" || scalar == "\"" { quoted.append("\\") }
            quoted.append(scalar)
        }
        quoted.append("\"")
        return String(quoted)
    }
}
