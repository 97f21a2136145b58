import CoordContract
import Foundation
import Testing
import TestSupport

/// PLUGIN-GUIDE.md cannot rot: its Swift is the code of examples the tests build as an author
/// would, and its worked example (the wishlist) is checked and driven through the binary.
@Suite("the plugin guide")
struct GuideTests {
    static let guide = BuildProducts.packageRoot + "/PLUGIN-GUIDE.md"
    static let examples = ["Weather", "Wishlist"]

    /// A fenced Swift block of the guide: where it starts, and its lines without the fence's
    /// indentation.
    struct Block {
        let line: Int
        let code: [String]
    }

    static func swiftBlocks(_ text: String) -> [Block] { blocks(text, language: "swift") }

    static func blocks(_ text: String, language: String) -> [Block] {
        var blocks: [Block] = []
        var open: (line: Int, indent: Int, lines: [String])?
        for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if var current = open {
                if trimmed == "```" {
                    blocks.append(Block(line: current.line, code: current.lines))
                    open = nil
                } else {
                    current.lines.append(String(line))
                    open = current
                }
            } else if trimmed == "```" + language {
                open = (index + 1, line.prefix { $0 == " " }.count, [])
            }
        }
        return blocks
    }

    /// The lines that matter for "is this block in that file": trimmed, blank ones dropped.
    static func meaningful(_ lines: [String]) -> [String] {
        lines.map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func contains(_ file: [String], _ block: [String]) -> Bool {
        guard !block.isEmpty, block.count <= file.count else { return false }
        return (0...(file.count - block.count)).contains { Array(file[$0..<($0 + block.count)]) == block }
    }

    @Test("every Swift block of PLUGIN-GUIDE.md is code the tests build: lines of a file of an example, or of this test")
    func everyBlockIsBuilt() throws {
        let blocks = Self.swiftBlocks(try String(contentsOfFile: Self.guide, encoding: .utf8))
        #expect(blocks.count >= 8, "the guide's Swift blocks were not found")
        let files = try Self.examples.flatMap { try FixtureBuilder.exampleSources($0) } + [#filePath]
        let sources = try files.map { Self.meaningful(try String(contentsOfFile: $0, encoding: .utf8).components(separatedBy: "\n")) }
        for block in blocks {
            let code = Self.meaningful(block.code)
            #expect(sources.contains { Self.contains($0, code) },
                    "PLUGIN-GUIDE.md:\(block.line): this Swift block is in no file of Examples/ (nor in GuideTests): change the example with the guide, or the guide with the example")
        }
    }

    @Test("every C and Rust block of PLUGIN-GUIDE.md is lines of a file of Examples/C or Examples/Rust, which the tests build")
    func everyCAndRustBlockIsBuilt() throws {
        let text = try String(contentsOfFile: Self.guide, encoding: .utf8)
        let root = BuildProducts.packageRoot + "/Examples/"
        let files = ["C/hello.c", "C/notes.c", "Rust/src/lib.rs"].map { root + $0 } + [BuildProducts.packageRoot + "/Sources/SDK/Rust/coordsh-sys/src/lib.rs"]
        let sources = try files.map { Self.meaningful(try String(contentsOfFile: $0, encoding: .utf8).components(separatedBy: "\n")) }
        let blocks = Self.blocks(text, language: "c") + Self.blocks(text, language: "rust")
        #expect(blocks.count >= 2)
        for block in blocks {
            #expect(sources.contains { Self.contains($0, Self.meaningful(block.code)) }, "PLUGIN-GUIDE.md:\(block.line): this block is in no file of Examples/C or Examples/Rust")
        }
    }

    @MainActor
    @Test("the guide's examples build as an author builds them and pass plugin check; the wishlist runs through coordsh as wishlist.t says, on a config that grants its declared read")
    func examplesBuildCheckAndRun() throws {
        let folder = try makeTemporaryDirectory("guide")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        for example in Self.examples {
            let directory = folder + "/" + example
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            let plugin = directory + "/lib\(example.lowercased()).so"
            try FixtureBuilder.buildExample(example, output: plugin, libraries: example == "Wishlist" ? ["CoordShop"] : [])
            // Twice: the second finds the bundled plugins in the registry cache, loaded on
            // first use — and a message that waits for a login still says what it waits for.
            for _ in 1...2 {
                let check = try run(BuildProducts.coordsh, ["plugin", "check", plugin], environment: ["HOME": folder, "NO_COLOR": "1"])
                #expect(check.status == 0 && check.stdout.contains("18 passed, 0 failed"), "\(example): \(check.stdout)\(check.stderr)")
                if example == "Wishlist" {
                    #expect(check.stdout.contains("every message it declares is handled — add: queued, waiting for 'user' (its declared needs; it replays once provided); remove: queued"), "\(check.stdout)")
                }
            }
        }
        // The same contract suite, in this process, as the guide tells an author to run it.
        let path = folder + "/Weather/libweather.so"
        let results = ContractSuite(pluginAt: path).runAll()
        for result in results where !result.passed { Issue.record("\(result)") }
        #expect(results.count == ContractSuite.checks.count)

        let config = folder + "/coordsh.toml"
        try "[plugins.grants]\nwishlist = [\"read products\"]\n".write(toFile: config, atomically: true, encoding: .utf8)
        var transcript = try Transcript(path: BuildProducts.packageRoot + "/Examples/Wishlist/wishlist.t")
        transcript.arguments += ["--plugin-dir", folder + "/Wishlist"]
        try transcript.verify(config: config)
    }
}
