import CoordFuzz
import Foundation

#if COORDSH_LIBFUZZER
/// The target libFuzzer drives: `COORDSH_FUZZ_TARGET` (`./fuzz` sets it).
let selected: FuzzTarget = {
    let name = ProcessInfo.processInfo.environment["COORDSH_FUZZ_TARGET"] ?? ""
    guard let target = FuzzTarget.named(name) else {
        FileHandle.standardError.write(Data("CoordFuzzer: COORDSH_FUZZ_TARGET must be one of \(FuzzTarget.all.map(\.name).joined(separator: ", "))\n".utf8))
        exit(2)
    }
    return target
}()

/// libFuzzer's driver (compiler-rt, LLVM 12 on), for a program that has its own `main`.
@_silgen_name("LLVMFuzzerRunDriver")
func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<Int32>, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>?, Int) -> Int32
) -> Int32

/// The program's entry. SwiftPM links an executable target with `main` defined as
/// `<module>_main`, so libFuzzer's own `main` is never linked in; this one hands over to its
/// driver, which reads libFuzzer's options and runs `fuzzOne`.
@_cdecl("CoordFuzzer_main")
public func fuzzerMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    if CommandLine.arguments.dropFirst().first == "--list" {  // `./fuzz --list`
        print(FuzzTarget.listing)
        return 0
    }
    var count = argc
    var vector = argv
    return LLVMFuzzerRunDriver(&count, &vector) { data, size in fuzzOne(data, size) }
}

/// libFuzzer's entry: one input. A broken rule is a crash, so that libFuzzer keeps the input
/// (`crash-…`) and stops; `./fuzz` says how to turn it into a regression test.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzOne(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {
    let bytes = data.map { Array(UnsafeBufferPointer(start: $0, count: size)) } ?? []
    if let broken = selected.run(bytes) { fatalError("\(selected.name): \(broken)") }
    return 0
}
#else
/// Without libFuzzer: `CoordFuzzer TARGET PATH…` runs the target over files (a folder: each
/// file in it) and names each input that breaks a rule — how a crash file is looked at.
@main
enum CorpusRunner {
    static func main() {
        let arguments = Array(CommandLine.arguments.dropFirst())
        guard let name = arguments.first, let target = FuzzTarget.named(name) else {
            print("usage: CoordFuzzer TARGET PATH…; targets:")
            print(FuzzTarget.listing)
            exit(2)
        }
        var failures = 0, runs = 0
        for path in arguments.dropFirst() {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isFolder) else {
                print("\(path): no such file")
                failures += 1
                continue
            }
            let files = isFolder.boolValue
                ? ((try? FileManager.default.contentsOfDirectory(atPath: path)) ?? []).sorted().map { path + "/" + $0 } : [path]
            for file in files {
                guard let data = FileManager.default.contents(atPath: file) else { continue }
                runs += 1
                if let broken = target.run(Array(data)) {
                    failures += 1
                    print("\(file): \(broken)")
                }
            }
        }
        print("\(target.name): \(runs) inputs, \(failures) broke a rule")
        exit(failures == 0 ? 0 : 1)
    }
}
#endif
