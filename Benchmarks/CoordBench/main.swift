// coordsh's benchmarks, run in release mode by ./bench: message dispatch, start-up (plain and
// with 10/100/500 plugins), AppDependency propagation, batch throughput against plain GRDB
// (and on PostgreSQL against plain libpq, one and four shells),
// peak memory, commands through `coordsh serve`'s socket against the same in-process, what
// counting each plugin's code costs (accounting), and a
// plugin author's first build (plugin-build). Every figure is a median of repeated runs, and each is measured next to
// its baseline in the same run and reported as a ratio: on a shared machine absolute times
// drift, ratios hold better. BENCHMARKS.md records a run and what the figures mean.
// The shop's shared image, mapped as coordsh maps it, for the apps run in this process.
import CoordShop
import Foundation

let environment = try BenchEnvironment()
defer { environment.remove() }
let only = Set(CommandLine.arguments.dropFirst())

func section(_ name: String, _ body: () throws -> [ResultRow]) rethrows {
    guard only.isEmpty || only.contains(name) else { return }
    let start = now()
    let rows = try body()
    for row in rows { print(row.text) }
    FileHandle.standardError.write(Data(String(format: "(%@: %.0f s)\n", name, Double(now() - start) / 1e9).utf8))
}

var info = utsname()
uname(&info)
let machine = withUnsafeBytes(of: &info.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
print("coordsh benchmarks — \(Date().formatted(date: .abbreviated, time: .shortened)), \(machine), \(ProcessInfo.processInfo.activeProcessorCount) cores, \(ProcessInfo.processInfo.physicalMemory >> 30) GiB, release build")
print(ResultRow.header())
try MainActor.assumeIsolated {
    try section("dispatch") { try DispatchBench.run() }
    section("dependencies") { DependencyBench.run() }
    try section("c-dispatch") { try CDispatchBench.run(environment) }
}
try section("startup") { try StartupBench.run(environment) }
try section("batch") { try BatchBench.run(environment) }
try section("postgres") { try PostgresBench.run(environment) }
try MainActor.assumeIsolated {
    try section("serve") { try ServeBench.run(environment) }
    try section("scoping") { try GuardBench.run(environment) }
    try section("accounting") { try AccountingBench.run(environment) }
}
try section("plugin-build") { try PluginBuildBench.run(environment) }
