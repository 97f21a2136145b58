@_spi(Host) import CoordSDK
import CoordSession

/// What a person or a script types: the shell's word splitter (quotes, escapes, comments) and
/// routes in both forms (`feature/page k=v …` and `coordsh://feature/page?k=v`).
enum ShellTargets {
    static let all = [
        FuzzTarget("words", "a command line split into words: quotes, backslashes, comments", run: words),
        FuzzTarget("routes", "a route in words or as a coordsh:// URL (percent-escapes, repeated and empty keys)", run: routes),
        FuzzTarget("arguments", "a message's arguments against a spec of every type: positional, name=value, --name value, the rest of the line", run: arguments),
    ]

    /// A spec with every parameter type; the last string takes the rest of the line.
    static let spec = [
        Parameter("id", .int), Parameter("page", .route, optional: true), Parameter("flag", .bool, optional: true),
        Parameter("text", .string, optional: true),
    ]

    /// Accepted: written back as `name=value` words (as a supervised front replays a queued
    /// message), the same arguments. Refused: one line.
    static func arguments(_ bytes: [UInt8]) -> String? {
        guard let words = try? Words.split(bytes.text) else { return nil }
        let parsed: Arguments
        do {
            parsed = try Session.parseArguments(words, spec, context: "fuzz verb")
        } catch {
            return Rule.oneLine("\(error)", "arguments refused")
        }
        let line = parsed.values.map { Words.quote("\($0.name)=\($0.value)") }.joined(separator: " ")
        do {
            guard let again = try? Words.split(line) else { return "arguments written as \(line.debugDescription) do not split" }
            return Rule.same(parsed, try Session.parseArguments(again, spec, context: "fuzz verb"), "arguments written as name=value and read again")
        } catch {
            return "arguments written as \(line.debugDescription) are refused when read again: \(error)"
        }
    }

    /// Split, each word quoted back, split again: the same words.
    static func words(_ bytes: [UInt8]) -> String? {
        guard let words = try? Words.split(bytes.text) else { return nil }  // the shell says "unterminated quote"
        let line = words.map(Words.quote).joined(separator: " ")
        guard let again = try? Words.split(line) else { return "words \(words) quoted as \(line.debugDescription) no longer split" }
        return Rule.same(words, again, "words quoted and split again")
    }

    /// A route read as the shell reads `open`'s words, and as `--open` reads a URL; printed
    /// back (`where`, the prompt, a supervised front's restore) and as a URL (a deep link),
    /// each must read back as the same route.
    static func routes(_ bytes: [UInt8]) -> String? {
        let text = bytes.text
        var parsed: [RouteRequest] = []
        do {
            parsed.append(try RouteRequest.parse(text))
        } catch {
            if let broken = Rule.oneLine(error.description, "route refused") { return broken }
        }
        if let words = try? Words.split(text), !words.isEmpty {
            do {
                parsed.append(try RouteRequest.parse(words: words))
            } catch {
                if let broken = Rule.oneLine(error.description, "route words refused") { return broken }
            }
        }
        for route in parsed {
            guard let words = try? Words.split(route.description) else {
                return "route \(route) printed as \(route.description.debugDescription) does not split into words"
            }
            do {
                if let broken = Rule.same(route, try RouteRequest.parse(words: words), "route printed and read again") { return broken }
            } catch {
                return "route printed as \(route.description.debugDescription) is refused when read again: \(error)"
            }
            do {
                if let broken = Rule.same(route, try RouteRequest.parse(route.url), "route as a URL and read again") { return broken }
            } catch {
                return "route as the URL \(route.url.debugDescription) is refused when read again: \(error)"
            }
        }
        return nil
    }
}
