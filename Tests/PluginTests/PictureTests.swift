import Foundation
import TestSupport
import Testing

/// `tree`, `trace` and `map` drawn (`--format dot|mermaid|svg`), through the binary: the DOT is
/// read back by Graphviz itself (`dot -Tplain`, one line per node and edge), the Mermaid is
/// checked for a flowchart's structure, and SVG comes from `dot` or a one-line refusal.
@Suite("The app as pictures")
struct PictureTests {
    /// Graphviz's reading of `dot`: its nodes' labels by name and its edges (tail, head, label).
    struct Plain {
        var labels: [String: String] = [:]
        var edges: [(tail: String, head: String, label: String)] = []
    }

    static func plain(_ dot: String) throws -> Plain {
        let graphviz = try #require(Self.dot, "Graphviz's dot is not installed (scripts/ensure-deps --tests installs it)")
        let result = try run(graphviz, ["-Tplain"], input: dot)
        #expect(result.status == 0, "dot refused the picture: \(result.stderr)\n\(dot)")
        var plain = Plain()
        for line in result.stdout.split(separator: "\n") {
            let words = Self.words(String(line))
            if words.first == "node", words.count > 6 { plain.labels[words[1]] = words[6] }
            if words.first == "edge", words.count > 3 {
                let count = Int(words[3]) ?? 0
                plain.edges.append((words[1], words[2], words.count > 4 + 2 * count ? words[4 + 2 * count] : ""))
            }
        }
        return plain
    }

    /// `-Tplain`'s words: a quoted one may hold spaces.
    static func words(_ line: String) -> [String] {
        var words: [String] = [], current = "", quoted = false
        for character in line {
            if character == "\"" { quoted.toggle(); continue }
            if character == " ", !quoted {
                if !current.isEmpty { words.append(current) }
                current = ""
            } else {
                current.append(character)
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    static let dot: String? = ["/usr/bin/dot", "/usr/local/bin/dot"].first { FileManager.default.isExecutableFile(atPath: $0) }

    /// The edge of `plain` from the node labelled `from…` to the node labelled `to…`.
    static func edge(_ plain: Plain, from: String, to: String) -> String? {
        plain.edges.first { edge in
            (plain.labels[edge.tail] ?? "").hasPrefix(from) && (plain.labels[edge.head] ?? "").hasPrefix(to)
        }?.label
    }

    @Test("map as DOT: every feature with its pages, the message one plugin sent another as it was seen, and a declared use dashed towards its provider")
    func mapAsDot() throws {
        let home = try PluginHome("map")
        defer { home.remove() }
        let plugins = try home.folder("plugins")
        try FixtureBuilder.buildSlowpoke(output: plugins + "/libslowpoke.so")
        try FixtureBuilder.buildSlowpoke(output: plugins + "/libslowpoke2.so", second: true)
        let shell = try home.coordsh(["--plugin-dir", plugins, "-c", "slow relay 1", "-c", "slow relay 2", "-c", "map --format dot"])
        #expect(shell.status == 0, "\(shell.stderr)")
        let plain = try Self.plain(shell.stdout)
        #expect(Self.edge(plain, from: "slowpoke\\nslowpoke 1.0.0", to: "slowpoke2") == "slow2Wait ×2", "\(plain.edges)")
        #expect(Self.edge(plain, from: "cart\\ncart 0.3.0", to: "account\\naccount 0.3.0") == "service accounts", "\(plain.edges)")
        #expect(Self.edge(plain, from: "cart\\ncart 0.3.0", to: "cart/checkout") != nil)
        let pages = Set(plain.labels.values.filter { $0.contains("/") })
        #expect(pages.isSuperset(of: ["content/catalog", "content/product", "cart/cart", "account/login", "payment/receipt", "slowpoke/home"]), "\(pages)")
        // The same links as text, and the declared ones marked.
        let text = try home.coordsh(["--plugin-dir", plugins, "-c", "slow relay 1", "-c", "map"])
        #expect(text.stdout.contains("  slowpoke → slowpoke2: slow2Wait ×1\n") && text.stdout.contains("  cart → account: service accounts (declared)\n"), "\(text.stdout)")
    }

    @Test("trace as DOT: each level the message visited, what it did there, and the route down from the app to the feature")
    func traceAsDot() throws {
        let home = try PluginHome("trace-picture")
        defer { home.remove() }
        let shell = try home.coordsh(["-c", "trace --format dot cart add 3"])
        #expect(shell.status == 0, "\(shell.stderr)")
        let plain = try Self.plain(shell.stdout)
        #expect(Self.edge(plain, from: "page content/catalog\\npassed on", to: "coordinator content\\npassed on") == "1. up", "\(plain.edges)")
        #expect(Self.edge(plain, from: "app\\nrouted to coordinator cart", to: "coordinator cart\\nhandled") == "4. routed down", "\(plain.edges)")
        #expect(plain.edges.count == 4, "\(plain.edges)")
    }

    @Test("tree as Mermaid: a flowchart whose every arrow joins two boxes it declares, the active coordinator marked")
    func treeAsMermaid() throws {
        let home = try PluginHome("tree-picture")
        defer { home.remove() }
        let shell = try home.coordsh(["-c", "cart add 3", "-c", "tree --format=mermaid"])
        #expect(shell.status == 0, "\(shell.stderr)")
        let lines = shell.stdout.split(separator: "\n").map(String.init).drop { $0 != "---" }
        #expect(Array(lines.prefix(4)) == ["---", "title: \"coordsh: the coordinator tree of scene terminal\"", "---", "flowchart TD"], "\(lines)")
        var declared = Set<String>(), joined: [(String, String)] = []
        for line in lines.dropFirst(4) {
            let words = line.split(separator: " ").map(String.init)
            if words.count >= 3, words[1].hasPrefix("--") || words[1].hasPrefix("-.") { joined.append((words[0], words.last ?? "")) } else if let first = words.first, !["style", "subgraph", "end"].contains(first) {
                declared.insert(String(first.prefix { $0.isLetter || $0.isNumber || $0 == "_" }))
            }
        }
        #expect(!joined.isEmpty && joined.allSatisfy { declared.contains($0.0) && declared.contains($0.1) }, "\(lines)")
        #expect(lines.contains { $0.contains("[\"coordinator cart<br/>(active)\"]") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("  style ") && $0.hasSuffix(" stroke-width:3px") })
    }

    @Test("tree as SVG is drawn by Graphviz; without dot on PATH it is one line naming the package; an unknown format is a usage error")
    func svgAndRefusals() throws {
        let home = try PluginHome("svg")
        defer { home.remove() }
        // Drawn by the terminal's process: a supervised shell's front runs no plugin code.
        let svg = try home.coordsh(["--supervised", "-c", "tree --format svg"])
        #expect(svg.status == 0 && svg.stdout.hasPrefix("<?xml") && svg.stdout.contains("<svg") && svg.stdout.contains("coordinator content"), "\(svg.stdout) \(svg.stderr)")
        let json = try home.coordsh(["--supervised", "--json", "-c", "map --format svg"])
        let document = try JSONSerialization.jsonObject(with: Data(json.stdout.utf8)) as? [String: Any]
        let picture = document?["picture"] as? [String: Any]
        #expect(picture?["format"] as? String == "svg" && (picture?["text"] as? String)?.contains("<svg") == true, "\(json.stdout)")
        // A script's shell runs the plugins in its own process, confined to no program of the
        // person's: it says so, and what to do instead.
        let confined = try home.coordsh(["-c", "tree --format svg"])
        #expect(confined.status == 1 && confined.stderr.contains("a shell that runs the plugins in its own process may start no program; run it --supervised, or pipe --format dot to 'dot -Tsvg'"), "\(confined.stderr)")
        var environment = home.environment
        environment["PATH"] = "/nonexistent"
        let none = try run(BuildProducts.coordsh, ["--supervised", "-c", "tree --format svg", "-c", "echo after"], environment: environment)
        #expect(none.status == 1)
        #expect(none.stderr == "coordsh: error: --format svg needs Graphviz's dot, which is not installed (Debian: apt-get install graphviz); --format dot prints what it would draw\n", "\(none.stderr)")
        let wrong = try home.coordsh(["-c", "map --format png"])
        #expect(wrong.status == 2 && wrong.stderr == "coordsh: error: map: --format takes dot, mermaid or svg, got 'png'\n", "\(wrong.stderr)")
    }
}
