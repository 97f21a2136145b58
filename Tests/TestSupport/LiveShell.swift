import Foundation

/// coordsh fed line by line through a pipe, as a script would, with stdout and stderr on one
/// pipe; each `send` returns what the command printed.
public final class LiveShell {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private var buffer = Data()

    public init(_ arguments: [String], environment: [String: String]) throws {
        process.executableURL = URL(fileURLWithPath: BuildProducts.coordsh)
        process.arguments = arguments
        process.environment = childEnvironment(environment)
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Sends one line and returns everything printed until it finished.
    public func send(_ line: String) -> String {
        collect(begin(line))
    }

    /// Sends one line without waiting for it (to start commands in several shells at the same
    /// moment); `collect` with what this returns reads its output.
    public func begin(_ line: String) -> String {
        let marker = "--end-\(UUID().uuidString.prefix(8))--"
        input.fileHandleForWriting.write(Data("\(line)\necho \(marker)\n".utf8))
        return marker
    }

    /// Everything printed until the command `begin` sent finished.
    public func collect(_ marker: String) -> String {
        while true {
            if let range = buffer.range(of: Data((marker + "\n").utf8)) {
                let text = String(decoding: buffer[..<range.lowerBound], as: UTF8.self)
                buffer.removeSubrange(..<range.upperBound)
                return text
            }
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return String(decoding: buffer, as: UTF8.self) }
            buffer.append(chunk)
        }
    }

    /// The shell's process id, to look at it from outside (/proc/PID/maps).
    public var pid: pid_t { process.processIdentifier }

    /// The files mapped into the shell now (/proc/PID/maps, read to the end: a /proc file has
    /// no size, and a whole-file read can stop short); with `appProcess`, into its supervised
    /// app process (the worker, its one coordsh-server child) instead.
    public func mappedFiles(appProcess: Bool = false) throws -> String {
        let process = appProcess ? childProcesses(of: pid).first { $0.commandLine.first?.hasSuffix("/coordsh-server") == true }?.pid : pid
        guard let process else { throw CocoaError(.fileNoSuchFile, userInfo: [NSFilePathErrorKey: "the app process of shell \(pid)"]) }
        let maps = try FileHandle(forReadingFrom: URL(fileURLWithPath: "/proc/\(process)/maps"))
        defer { try? maps.close() }
        return String(decoding: maps.readDataToEndOfFile(), as: UTF8.self)
    }

    /// Closes stdin and returns the exit status.
    public func finish() -> Int32 {
        try? input.fileHandleForWriting.close()
        process.waitUntilExit()
        return process.terminationStatus
    }
}

/// The live processes whose parent is `parent`, with their command lines (from /proc, which
/// needs no tool the machine may lack).
public func childProcesses(of parent: pid_t) -> [(pid: pid_t, commandLine: [String])] {
    let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
    return entries.compactMap(Int32.init).compactMap { pid in
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.range(of: ")", options: .backwards)
        else { return nil }
        // After "pid (comm)": the state, then the parent's pid.
        let fields = stat[close.upperBound...].split(separator: " ")
        guard fields.count > 1, Int32(fields[1]) == parent, fields[0] != "Z",
            let line = try? Data(contentsOf: URL(fileURLWithPath: "/proc/\(pid)/cmdline"))
        else { return nil }
        return (pid, line.split(separator: 0).map { String(decoding: $0, as: UTF8.self) })
    }
}
