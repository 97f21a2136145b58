import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The median of some samples.
func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.isEmpty ? .nan : sorted[sorted.count / 2]
}

/// Monotonic nanoseconds.
func now() -> UInt64 { DispatchTime.now().uptimeNanoseconds }

/// Wall time and exit status of one run of a program.
struct ProcessSample {
    let seconds: Double
    let status: Int32
}

/// Runs `executable` to completion with stdout and stderr discarded (or `output` as stdout),
/// and times it.
func runMeasured(_ executable: String, _ arguments: [String], environment: [String: String], output: String = "/dev/null") -> ProcessSample {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let argv = ([executable] + arguments).map { strdup($0) } + [nil]
    let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
    defer { for p in argv + envp { free(p) } }
    var pid: pid_t = 0
    let start = now()
    guard posix_spawn(&pid, executable, &actions, nil, argv, envp) == 0 else {
        fatalError("cannot start \(executable)")
    }
    var status: Int32 = 0
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    let elapsed = Double(now() - start) / 1e9
    return ProcessSample(seconds: elapsed, status: (status >> 8) & 0xFF)
}

/// The peak resident memory (VmHWM, KiB) of a program that reads commands on stdin, read from
/// /proc once it has answered `echo ready`: after its start-up and first command, while it
/// still runs. (wait4's ru_maxrss cannot be used: a child made with vfork inherits the
/// parent's high-water mark.)
func peakMemoryKiB(_ executable: String, _ arguments: [String], environment: [String: String]) -> Int {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = environment
    let input = Pipe(), output = Pipe()
    process.standardInput = input
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    guard (try? process.run()) != nil else { fatalError("cannot start \(executable)") }
    input.fileHandleForWriting.write(Data("echo ready\n".utf8))
    var seen = Data()
    while !seen.contains(Data("ready\n".utf8)) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        seen.append(chunk)
    }
    let status = (try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8)) ?? ""
    try? input.fileHandleForWriting.close()
    process.waitUntilExit()
    let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
    return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
}

/// Runs each command `rounds` times, interleaved (A B C A B C …) so that drift on a shared
/// machine hits every one alike, and returns the samples of each.
func interleaved(_ rounds: Int, _ commands: [() -> ProcessSample]) -> [[ProcessSample]] {
    var samples = [[ProcessSample]](repeating: [], count: commands.count)
    for _ in 0..<rounds {
        for (index, command) in commands.enumerated() { samples[index].append(command()) }
    }
    return samples
}

/// One line of the results table.
struct ResultRow {
    let measurement: String
    let figure: String
    let baseline: String
    let ratio: String
    let goal: String
    let verdict: String?

    static func header() -> String {
        line("measurement", "median", "baseline (same run)", "ratio", "goal", "")
    }

    static func line(_ a: String, _ b: String, _ c: String, _ d: String, _ e: String, _ f: String) -> String {
        pad(a, 40) + pad(b, 13) + pad(c, 34) + pad(d, 34) + pad(e, 26) + f
    }

    var text: String { ResultRow.line(measurement, figure, baseline, ratio, goal, verdict ?? "") }

    static func pad(_ s: String, _ width: Int) -> String {
        s.count >= width ? s + " " : s + String(repeating: " ", count: width - s.count)
    }
}

func ms(_ seconds: Double) -> String { String(format: "%.1f ms", seconds * 1000) }
func ns(_ value: Double) -> String { String(format: "%.2f ns", value) }
func times(_ value: Double) -> String { String(format: "%.2f×", value) }
func met(_ ok: Bool) -> String { ok ? "met" : "MISSED" }

/// A benchmark that could not measure (a server that did not start, a build that failed):
/// the run stops with this line rather than print a figure of something else.
struct BenchFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
