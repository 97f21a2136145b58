@_spi(Host) import CoordSDK
import CoordShop
import Foundation
import TestSupport
import Testing

/// Properties of every registered page of the four bundled plugins (their real `.so` files,
/// loaded by the real loader), over random parameter values: a page printed as a route and as
/// a URL reads back as the same page, and a wrong value is a usage error, never a crash.
///
/// The values come from a seeded generator; a failure names the seed, and
/// `COORDSH_PROPERTY_SEED=N swift test --filter RoutePropertyTests` repeats that run.
@Suite("Route properties of the bundled pages", .serialized)
@MainActor
final class RoutePropertyTests {
    let host: TestHost
    let seed: UInt64
    var random: SeededRandom

    init() throws {
        host = try TestHost()
        seed = ProcessInfo.processInfo.environment["COORDSH_PROPERTY_SEED"].flatMap { UInt64($0) } ?? UInt64.random(in: 1...UInt64.max)
        random = SeededRandom(seed: seed)
    }

    isolated deinit { host.close() }

    var routes: [(feature: Feature, page: PageCase)] { host.app.features.routes }

    @Test("page → route → words → page and page → URL → page, 200 random values for every page of the four plugins")
    func roundTrip() throws {
        #expect(Set(routes.map(\.feature.name)) == ["content", "account", "cart", "payment"])
        var checked = 0
        for (feature, pageCase) in routes {
            for _ in 0..<200 {
                let arguments = validArguments(for: pageCase.parameters)
                let request = RouteRequest(feature: feature.name, page: pageCase.name, arguments: arguments.values.map { .init($0.name, $0.value.description) })
                let page: any Page
                do {
                    page = try host.app.features.page(for: request)
                } catch {
                    Issue.record("seed \(seed): valid values for \(feature.name)/\(pageCase.name) were refused: \(error.message) (\(request.arguments))")
                    return
                }
                // The constructor kept every value it was given, typed as given.
                #expect(page.arguments == arguments, "seed \(seed): \(request.description)")

                let line = page.route.description
                let words = try #require(try? Words.split(line), "seed \(seed): \(line.debugDescription) does not split")
                let fromWords = try host.app.features.page(for: RouteRequest.parse(words: words))
                #expect(fromWords.route == page.route, "seed \(seed): printed as \(line.debugDescription)")
                #expect(fromWords.arguments == arguments, "seed \(seed): printed as \(line.debugDescription)")

                let url = page.route.url
                let fromURL = try host.app.features.page(for: RouteRequest.parse(url))
                #expect(fromURL.route == page.route, "seed \(seed): as the URL \(url.debugDescription)")
                #expect(fromURL.arguments == arguments, "seed \(seed): as the URL \(url.debugDescription)")
                checked += 1
            }
        }
        #expect(checked == routes.count * 200)
    }

    @Test("a number with a fraction reads back as the same number from its text, from a command line's words and from a URL; 2000 of them, the extremes among them")
    func doublesRoundTrip() throws {
        for _ in 0..<2000 {
            let number = double()
            let value = Value.double(number)
            #expect(ValueType.double.parse(value.description) == value, "seed \(seed): \(number) printed as \(value.description)")
            let request = RouteRequest(feature: "map", page: "point", arguments: [.init("x", value.description)])
            let words = try Words.split(request.description)
            let fromWords = try RouteRequest.parse(words: words)
            #expect(fromWords.arguments.first.flatMap { ValueType.double.parse($0.text) } == value, "seed \(seed): \(request.description)")
            let fromURL = try RouteRequest.parse(request.url)
            #expect(fromURL.arguments.first.flatMap { ValueType.double.parse($0.text) } == value, "seed \(seed): \(request.url)")
            #expect(ValueType.double.parse(badText(for: .double)) == nil)
        }
    }

    @Test("a wrong value, a missing or doubled parameter, an unknown one: refused in one line, 200 times for every page")
    func invalidRefused() throws {
        var checked = 0
        for (feature, pageCase) in routes {
            for _ in 0..<200 {
                let (request, why) = invalidRequest(feature: feature.name, pageCase)
                do {
                    let page = try host.app.features.page(for: request)
                    Issue.record("seed \(seed): \(why) was accepted as \(page.route): \(request.arguments)")
                } catch {
                    #expect(!error.message.contains("\n") && !error.message.contains("\r"), "seed \(seed): \(why): \(error.message.debugDescription)")
                    #expect(Self.usageCodes.contains(error.code), "seed \(seed): \(why) gave \(error.code)")
                }
                checked += 1
            }
        }
        #expect(checked == routes.count * 200)
    }

    @Test("through the real binary, random wrong values for every page: exit 2 and one error line, each")
    func invalidExitTwo() throws {
        let home = try makeTemporaryDirectory("property")
        defer { try? FileManager.default.removeItem(atPath: home) }
        // Two bad `open`s per page, each its own process (≈ 0.1 s each) so that each one's own
        // exit status is seen; `-c` rather than a script, as a value may hold a line break.
        for (feature, pageCase) in routes {
            for _ in 0..<2 {
                let (request, why) = invalidRequest(feature: feature.name, pageCase)
                let line = "open " + Self.words(of: request).map(Words.quote).joined(separator: " ")
                let result = try run(
                    BuildProducts.coordsh, ["--config", BuildProducts.packageRoot + "/config/coordsh.toml", "-c", line],
                    environment: ["HOME": home, "XDG_DATA_HOME": home + "/data", "NO_COLOR": "1"])
                #expect(result.status == 2, "seed \(seed): \(why): \(line.debugDescription) exited \(result.status): \(result.stderr)")
                #expect(result.stderr.hasPrefix("coordsh: error: ") && result.stderr.filter { $0 == "\n" }.count == 1,
                        "seed \(seed): \(why): \(result.stderr.debugDescription)")
                #expect(result.stdout.isEmpty, "seed \(seed): \(why): \(result.stdout)")
            }
        }
    }

    static let usageCodes: Set<String> = [
        "unknown_page", "unknown_parameter", "duplicate_parameter", "missing_parameter", "ill_typed_parameter", "malformed_route",
    ]

    /// The words `open` is given for `request`, as a script would type them.
    static func words(of request: RouteRequest) -> [String] {
        ["\(request.feature)/\(request.page)"] + request.arguments.map { "\($0.name)=\($0.text)" }
    }

    // MARK: Generators

    /// Values of the declared types: every required parameter, each optional one or not.
    func validArguments(for parameters: [Parameter], depth: Int = 0) -> Arguments {
        var arguments = Arguments()
        for parameter in parameters where !parameter.isOptional || random.chance(0.5) {
            arguments.set(parameter.name, value(of: parameter.type, depth: depth))
        }
        return arguments
    }

    func value(of type: ValueType, depth: Int) -> Value {
        switch type {
        case .int: .int(int())
        case .bool: .bool(random.chance(0.5))
        case .string: .string(text())
        case .route: .route(route(depth: depth + 1))
        case .double: .double(double())
        // A new type is a compile-time warning here first (the switch lists every known one).
        @unknown default: preconditionFailure("no generator for \(type)")
        }
    }

    /// Numbers whose shortest text is long, tiny, huge, negative or whole.
    func double() -> Double {
        switch random.below(4) {
        case 0: Double(Int(random.below(2000)) - 1000) / 8
        case 1: [0.1, -0.0, 1e300, Double.leastNonzeroMagnitude, -2.5e-7, 123456789.125, Double.greatestFiniteMagnitude].pick(from: &random)
        case 2: Double(Int(random.below(1_000_000)))
        default: Double(Int(random.below(1 << 30))) / Double(Int(random.below(999)) + 1)
        }
    }

    func int() -> Int {
        switch random.below(5) {
        case 0: Int(random.below(100))
        case 1: -Int(random.below(100))
        case 2: [Int.min, Int.max, 0, -1].pick(from: &random)
        default: Int(truncatingIfNeeded: random.next())
        }
    }

    /// Free text, weighted toward what a splitter, a quoter or a URL encoder treats specially.
    func text() -> String {
        let special: [Unicode.Scalar] = [
            " ", "\t", "'", "\"", "\\", "#", "=", "&", "?", "/", "%", "+", ";", ":", "@",
            "\u{0301}", "é", "🛒", "\u{FFFD}", "\u{00A0}", "\u{200B}", "\n", "\r",
        ]
        var scalars = String.UnicodeScalarView()
        for _ in 0..<random.below(14) {
            if random.chance(0.4) {
                scalars.append(special.pick(from: &random))
            } else {
                scalars.append(Unicode.Scalar(UInt8(0x21 + random.below(0x5e))))
            }
        }
        return String(scalars)
    }

    /// A registered page with valid values (a route argument names a real page), or now and
    /// then any well-formed route: a route value is not checked against the registry.
    func route(depth: Int) -> RouteRequest {
        if depth < 3, random.chance(0.8) {
            let (feature, pageCase) = routes.pick(from: &random)
            let arguments = validArguments(for: pageCase.parameters, depth: depth)
            return RouteRequest(feature: feature.name, page: pageCase.name, arguments: arguments.values.map { .init($0.name, $0.value.description) })
        }
        let name = { (n: Int) in String((0..<n).map { _ in Array("abcxyz_-09")[self.random.below(10)] }) }
        return RouteRequest(feature: "f" + name(random.below(4)), page: "p" + name(random.below(4)), arguments: random.chance(0.5) ? [.init("k", text())] : [])
    }

    /// A request for `pageCase` with one thing wrong, and what.
    func invalidRequest(feature: String, _ pageCase: PageCase) -> (RouteRequest, String) {
        var pairs = validArguments(for: pageCase.parameters).values.map { RouteRequest.Pair($0.name, $0.value.description) }
        let request = { RouteRequest(feature: feature, page: pageCase.name, arguments: pairs) }
        let typed = pageCase.parameters.filter { $0.type != .string }
        let required = pageCase.parameters.filter { !$0.isOptional }
        switch random.below(6) {
        case 0 where !typed.isEmpty:
            let parameter = typed[random.below(typed.count)]
            let bad = badText(for: parameter.type)
            pairs.removeAll { $0.name == parameter.name }
            pairs.append(.init(parameter.name, bad))
            return (request(), "\(parameter.name)=\(bad.debugDescription) for a \(parameter.type.rawValue)")
        case 1 where !required.isEmpty:
            let parameter = required[random.below(required.count)]
            pairs.removeAll { $0.name == parameter.name }
            return (request(), "\(parameter.name) left out")
        case 2 where !pairs.isEmpty:
            let pair = pairs[random.below(pairs.count)]
            pairs.append(pair)
            return (request(), "\(pair.name) given twice")
        case 3:
            return (RouteRequest(feature: feature, page: pageCase.name + "x", arguments: pairs), "an unknown page")
        default:
            let name = "zz" + String(random.below(1000))
            pairs.insert(.init(name, text()), at: random.below(pairs.count + 1))
            return (request(), "the unknown parameter \(name)")
        }
    }

    /// Text that is not a value of `type`.
    func badText(for type: ValueType) -> String {
        switch type {
        case .int:
            ["", "seven", "1.5", "0x10", "9223372036854775808", "-9223372036854775809", "7 ", "1_000", "٣"].pick(from: &random) + (random.chance(0.3) ? "x" : "")
        case .bool:
            ["", "maybe", "2", "ye", "truee", "-1", "nil"].pick(from: &random)
        case .route:
            ["", "content", "a/b/c", "/x", "x/", "content/catalog q", "content/catalog =1", "content/catalog q=\"open", "coordsh://content", "a b/c"].pick(from: &random)
        case .string:
            ""
        case .double:
            ["", "one", "1.5.2", "nan", "inf", "-infinity", "1e999", "0x", "1,5", "--1"].pick(from: &random)
        @unknown default: preconditionFailure("no bad text for \(type)")
        }
    }
}

/// SplitMix64: the same values for the same seed, so that a failing run can be repeated.
struct SeededRandom: RandomNumberGenerator {
    var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    mutating func below(_ n: Int) -> Int { Int(next(using: n)) }

    private mutating func next(using n: Int) -> UInt64 { UInt64.random(in: 0..<UInt64(max(n, 1)), using: &self) }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &self) < p }
}

extension Array {
    /// One element, chosen by `random`; the arrays here are never empty.
    func pick(from random: inout SeededRandom) -> Element { self[random.below(count)] }
}
