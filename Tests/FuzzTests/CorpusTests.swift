import CoordFuzz
import Foundation
import TestSupport
import Testing

/// The fuzz targets' smoke run in ./test: every input of the committed corpus
/// (`Tests/Fuzz/corpus/TARGET/`: the seeds, and every input that once broke a rule, kept as a
/// regression test) through its target, in process. The long runs are `./fuzz`'s.
@Suite("Fuzz corpus")
struct CorpusTests {
    static let corpus = BuildProducts.packageRoot + "/Tests/Fuzz/corpus"

    @Test("every committed input of every target keeps every rule", arguments: FuzzTarget.all.map(\.name))
    func corpus(_ name: String) throws {
        let target = try #require(FuzzTarget.named(name))
        let folder = Self.corpus + "/" + name
        let files = try FileManager.default.contentsOfDirectory(atPath: folder).sorted()
        #expect(!files.isEmpty, "no corpus for \(name) in \(folder)")
        for file in files {
            let bytes = try #require(FileManager.default.contents(atPath: folder + "/" + file))
            #expect(target.run(Array(bytes)) == nil, "\(name)/\(file)")
        }
    }
}
