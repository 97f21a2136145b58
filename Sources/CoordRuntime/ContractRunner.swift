import CoordContract
import CoordLoading
import Foundation

/// Runs the contract suite, or the loader's vetting part of it, in child processes of the
/// coordsh binary (`coordsh plugin check --child`), so that a plugin that crashes or hangs
/// fails the check it was in while the caller goes on.
///
/// The child prints one JSON object per line: `{"begin": ID}` before each check,
/// `{"result": {…}}` after it, and `{"plugin": {"name", "version"}}` once the descriptor has
/// been read. Anything else it prints (a Swift fatal error, say) is kept to explain a crash.
@MainActor
public final class ContractRunner {
    /// The coordsh executable that runs the checks.
    public let executable: String
    /// Seconds a child may stay silent (one check, or one vetting) before it counts as hung.
    public let timeout: Double

    public init(executable: String, timeout: Double = 10) {
        self.executable = executable
        self.timeout = timeout
    }

    /// What one child reported.
    struct Report {
        var results: [ContractResult] = []
        var begun: String?
        var name: String?
        var version: String?
        var otherOutput: [String] = []
        var termination: ChildProcess.Termination = .exited(0)

        mutating func take(_ line: String) {
            guard line.hasPrefix("{"), let data = line.data(using: .utf8),
                  let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else {
                if !line.trimmingCharacters(in: .whitespaces).isEmpty { otherOutput.append(line) }
                return
            }
            if let id = object["begin"] as? String { begun = id }
            if let plugin = object["plugin"] as? [String: Any] {
                name = plugin["name"] as? String
                version = plugin["version"] as? String
            }
            if let result = object["result"], let json = try? JSONSerialization.data(withJSONObject: result),
               let decoded = try? JSONDecoder().decode(ContractResult.self, from: json) {
                results.append(decoded)
                begun = nil
            }
        }

        /// What the child said about its end: Swift's "Fatal error: …" line if there is one
        /// (a stack dump may follow it), else its last line.
        var explanation: String? {
            otherOutput.first { $0.contains("Fatal error") || $0.contains("Precondition failed") || $0.contains("Assertion failed") }
                ?? otherOutput.last
        }

        /// Why the child ended while a check was running, or nil when it ended normally.
        func abnormalEnd(timeout: Double) -> (kind: PluginRefusal.Kind, reason: String)? {
            let during = begun.map(Self.phase) ?? ""
            let said = explanation.map { ": " + String($0.trimmingCharacters(in: .whitespaces).prefix(240)) } ?? ""
            switch termination {
            case .signaled(let signal):
                return (.crashed, "crashed with \(ChildProcess.describe(signal: signal))\(during)\(said)")
            case .timedOut:
                return (.hung, "hung: no answer for \(Self.seconds(timeout))\(during); killed")
            case .exited(let status) where status != 0 && begun != nil:
                return (.crashed, "exited with status \(status)\(during)\(said)")
            default:
                return nil
            }
        }

        /// Where a child was when it died, in words.
        static func phase(_ id: String) -> String {
            switch id {
            case "file": return " while reading the file"
            case "entry": return " in its entry point"
            case "registers": return " while registering"
            case "pages-bare", "pages-full": return " while opening its pages"
            default: return ContractSuite.checks.first { $0.id == id }.map { " during “\($0.title)”" } ?? ""
            }
        }

        static func seconds(_ value: Double) -> String {
            value == value.rounded() ? "\(Int(value)) s" : "\(value) s"
        }
    }

    private func arguments(path: String, only: [String]?, from: Int, descriptor: Int32?, extra: [String]) -> [String] {
        var arguments = ["plugin", "check", "--child", "--from", "\(from)"]
        if let only { arguments += ["--only", only.joined(separator: ",")] }
        if let descriptor { arguments += ["--fd", "\(descriptor)"] }
        return arguments + extra + ["--", path]
    }

    private static let childEnvironment = [
        // The Swift runtime's crash backtracer takes seconds; the parent only needs the signal.
        "SWIFT_BACKTRACE": ChildBacktrace.setting,
    ]

    /// Runs every check against `path`, one child after another: when a check crashes or
    /// hangs, it fails naming the signal, and a new child goes on with the next check. A crash
    /// while loading fails the remaining checks as not run. Each child's scratch database is
    /// in a folder of its own (a crashed child's is not the next one's), all of them in one
    /// private temporary folder removed at the end: the children are confined and cannot.
    public func check(_ path: String, extraArguments: [String] = [], onResult: (ContractResult) -> Void) -> [ContractResult] {
        let checks = ContractSuite.checks
        var results: [ContractResult] = []
        func add(_ result: ContractResult) {
            results.append(result)
            onResult(result)
        }
        let scratch: String
        do {
            scratch = try PrivateFolder.temporary(prefix: "coordsh-check")
        } catch {
            for check in checks { add(ContractResult(id: check.id, title: check.title, passed: false, detail: "\(error)")) }
            return results
        }
        defer { try? FileManager.default.removeItem(atPath: scratch) }
        var next = 0
        while next < checks.count {
            var report = Report()
            do {
                let folder = scratch + "/from-\(next)"
                try PrivateFolder.create(folder)
                let child = try ChildProcess(
                    executable, arguments(path: path, only: nil, from: next, descriptor: nil, extra: ["--scratch", folder] + extraArguments),
                    environment: Self.childEnvironment)
                report.termination = ChildProcess.collect([child], idleTimeout: timeout) { _, line in
                    let before = report.results.count
                    report.take(line)
                    if report.results.count > before, let last = report.results.last { add(last) }
                }[0]
            } catch {
                for check in checks[next...] { add(ContractResult(id: check.id, title: check.title, passed: false, detail: "\(error)")) }
                break
            }
            next += report.results.count
            guard next < checks.count else { break }
            let check = checks[next]
            let reason = report.abnormalEnd(timeout: timeout)?.reason
                ?? "the check process ended without a result\(report.otherOutput.last.map { ": \($0)" } ?? "")"
            add(ContractResult(id: check.id, title: check.title, passed: false, detail: reason))
            next += 1
            if ContractSuite.vettingChecks.prefix(through: ContractSuite.vettingChecks.firstIndex(of: "registers")!).contains(check.id) {
                for rest in checks[next...] {
                    add(ContractResult(id: rest.id, title: rest.title, passed: false, detail: "not run: the plugin \(reason.hasPrefix("hung") ? "hung" : "crashed") while loading"))
                }
                break
            }
        }
        return results
    }

    /// Vets each file in its own child, all at once: load, handshake, register, open each
    /// page. The child gets the open descriptor, so it checks the very file the host loads.
    func vet(_ files: [PluginFile]) -> [PluginVerdict] {
        var verdicts = [PluginVerdict?](repeating: nil, count: files.count)
        var children: [ChildProcess] = []
        var slots: [Int] = []
        for (index, file) in files.enumerated() {
            let target: Int32 = file.descriptor == 3 ? 4 : 3
            do {
                children.append(try ChildProcess(
                    executable, arguments(path: file.path, only: ContractSuite.vettingChecks, from: 0, descriptor: target, extra: ["--alone"]),
                    environment: Self.childEnvironment, passing: (file.descriptor, target)))
                slots.append(index)
            } catch {
                verdicts[index] = PluginVerdict(refusal: .vettingFailed, reason: "could not vet it: \(error)")
            }
        }
        var reports = [Report](repeating: Report(), count: children.count)
        let terminations = ChildProcess.collect(children, idleTimeout: timeout) { index, line in reports[index].take(line) }
        for (position, index) in slots.enumerated() {
            var report = reports[position]
            report.termination = terminations[position]
            verdicts[index] = Self.verdict(from: report, timeout: timeout)
        }
        return verdicts.map { $0! }
    }

    private static func verdict(from report: Report, timeout: Double) -> PluginVerdict {
        if let failed = report.results.first(where: { !$0.passed }) {
            let kind = failed.refusal.flatMap(PluginRefusal.Kind.init(rawValue:)) ?? .vettingFailed
            let reason = kind == .vettingFailed ? "failed “\(failed.title)”: \(failed.detail)" : failed.detail
            return PluginVerdict(name: report.name, version: report.version, refusal: kind, reason: reason)
        }
        if let (kind, reason) = report.abnormalEnd(timeout: timeout) {
            return PluginVerdict(name: report.name, version: report.version, refusal: kind, reason: reason)
        }
        guard report.results.count == ContractSuite.vettingChecks.count, let name = report.name, let version = report.version else {
            let said = report.otherOutput.last.map { ": \($0)" } ?? ""
            return PluginVerdict(name: report.name, version: report.version, refusal: .vettingFailed, reason: "the vetting process gave no verdict\(said)")
        }
        return PluginVerdict(name: name, version: version, refusal: nil, reason: nil)
    }
}
