import Foundation

/// Where the real build products are: the tests load the real `.so` files and run the real
/// `coordsh` binary that `swift build` / `swift test` produced, never copies or mocks.
public enum BuildProducts {
    /// The folder of the running test bundle, which SwiftPM puts next to every product.
    public static let directory: String = {
        let exe = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
        var url = URL(fileURLWithPath: exe).deletingLastPathComponent()
        // swift-testing and XCTest both run `<build>/coordshPackageTests.xctest`.
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("libCoordSDK.so").path), url.path != "/" {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    /// The package root (the folder with Package.swift).
    public static let packageRoot: String = {
        var url = URL(fileURLWithPath: #filePath)
        while !FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) || url.lastPathComponent == "SDK" {
            url.deleteLastPathComponent()
        }
        return url.path
    }()

    /// The command people type: the launcher, which starts `coordsh-front` beside it.
    public static var coordsh: String { directory + "/coordsh" }
    /// The shell itself, which the launcher execs.
    public static var coordshFront: String { directory + "/coordsh-front" }
    /// `coordsh serve` and the supervised app process (`coordsh` execs or spawns it).
    public static var coordshServer: String { directory + "/coordsh-server" }

    public static func plugin(_ name: String) -> String { directory + "/lib\(name)Plugin.so" }

    public static let bundledPlugins = ["Content", "Account", "Cart", "Payment"]

    /// Copies the three executables (the launcher, the shell and coordsh-server), the SDK and CoordShop libraries
    /// and the bundled plugins — and nothing else: no config, no catalog — into `folder`, as a
    /// user who copies the binaries somewhere would. The copy finds its library through RUNPATH
    /// `$ORIGIN` and its plugins beside it. Returns the copied shell.
    public static func copyBinaryAlone(to folder: String) throws -> String {
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        for file in [coordsh, coordshFront, coordshServer, directory + "/libCoordSDK.so", directory + "/libCoordShop.so"] + bundledPlugins.map(plugin) {
            try FileManager.default.copyItem(atPath: file, toPath: folder + "/" + (file as NSString).lastPathComponent)
        }
        return folder + "/coordsh"
    }
}

/// A fresh temporary folder, removed by the caller when it is done.
public func makeTemporaryDirectory(_ label: String) throws -> String {
    let path = NSTemporaryDirectory() + "coordsh-\(label)-\(UUID().uuidString.prefix(8))"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

/// The result of running a program to completion.
public struct RunResult: Sendable {
    public let status: Int32
    public let stdout: String
    public let stderr: String
}

/// The environment a test gives a child process: PATH, a UTF-8 locale, `given` — and nothing
/// else from the test's own environment, so that the user's plugins and config never leak in.
/// Under `./test --coverage` it also names where the child writes its coverage profile
/// (`COORDSH_COVERAGE_PROFILE`, a pattern with `%p`), so that the binary, its vetting children
/// and the plugins they load are counted; coordsh passes its environment on to its children.
public func childEnvironment(_ given: [String: String]) -> [String: String] {
    let own = ProcessInfo.processInfo.environment
    var environment = ["PATH": own["PATH"] ?? "/usr/bin:/bin", "LANG": "C.UTF-8"]
    if let profile = own["COORDSH_COVERAGE_PROFILE"] { environment["LLVM_PROFILE_FILE"] = profile }
    environment.merge(given) { $1 }
    return environment
}

/// Runs `executable` with `arguments`, feeding `input` on stdin, with a clean environment
/// (a private HOME and XDG folders so the user's own plugins never leak into a test). A run
/// still going after `timeout` seconds is killed (status 9), so that a regression which makes
/// a command wait forever (a server that should have refused to start) fails the test instead
/// of hanging the suite.
public func run(
    _ executable: String, _ arguments: [String], input: String = "", environment: [String: String] = [:],
    mergeOutput: Bool = false, directory: String? = nil, timeout: Double = 300
) throws -> RunResult {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    process.environment = childEnvironment(environment)
    let stdin = Pipe(), stdout = Pipe()
    let stderr = mergeOutput ? stdout : Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    let pid = process.processIdentifier
    let watchdog = DispatchWorkItem { kill(pid, SIGKILL) }
    DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
    defer { watchdog.cancel() }
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let out = stdout.fileHandleForReading.readDataToEndOfFile()
    let err = mergeOutput ? Data() : stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return RunResult(status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
}
