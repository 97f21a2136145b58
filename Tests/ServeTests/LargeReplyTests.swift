import CoordProtocol
#if canImport(Glibc)
import Glibc
#endif
import CoordClient
import Foundation
import TestSupport
import Testing

/// Replies of any size up to the frame limit (1 MiB) pass in every mode that has a protocol
/// hop — the supervised shell, `serve` supervised and in one process, `connect` — and one over
/// it is the command's one-line `too_large` error: never a killed app process, never a closed
/// connection. (A command printing more than NIO's default 64 KiB high-water mark used to get
/// the front dropped by its worker, which the front took for a crash.)
///
/// The sizes are real frames, measured: a catalog whose products' descriptions are sized so
/// that `content show N` answers with a frame just under and just over 1 MiB.
@Suite("Large replies", .serialized)
struct LargeReplyTests {
    typealias Server = ServeTests.Server
    static let limit = WireProtocol.maxFrameBytes

    /// One product of a generated catalog: every field but the description the same length, so
    /// that a reply's size is linear in the description's.
    static func product(_ id: Int, description: Int) -> [String: Any] {
        ["id": id, "name": "Long Product", "category": "long", "price": 1000, "description": String(repeating: "d", count: description)]
    }

    static func catalogConfig(_ folder: String, _ descriptions: [Int]) throws -> String {
        let catalog: [String: Any] = ["currency": "EUR", "products": descriptions.enumerated().map { product($0.offset + 1, description: $0.element) }]
        try JSONSerialization.data(withJSONObject: catalog).write(to: URL(fileURLWithPath: folder + "/catalog.json"))
        return "[content]\ncatalog = \"\(folder)/catalog.json\"\n"
    }

    /// A raw client: frames in and out with their sizes, as the bytes on the socket say.
    final class RawClient {
        let descriptor: Int32
        private var buffer: [UInt8] = []

        init(path: String) throws {
            descriptor = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (i, byte) in path.utf8.enumerated() { raw[i] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { throw ServeTests.TestFailure("cannot connect to \(path)") }
            var timeout = timeval(tv_sec: 60, tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
            try send(["type": "hello", "version": WireProtocol.version, "client": "LargeReplyTests"])
            guard try receive()?.object["type"] as? String == "hello" else { throw ServeTests.TestFailure("no hello") }
        }

        deinit { close(descriptor) }

        func send(_ object: [String: Any]) throws {
            let bytes = try FrameDecoder.encode(object)
            var offset = 0
            while offset < bytes.count {
                let n = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                guard n > 0 else { throw ServeTests.TestFailure("send failed") }
                offset += n
            }
        }

        /// The next frame's body size and object; nil when the server closed the connection.
        func receive() throws -> (size: Int, object: [String: Any])? {
            while true {
                if buffer.count >= 4 {
                    let size = buffer[0..<4].reduce(0) { $0 << 8 | Int($1) }
                    if buffer.count >= 4 + size {
                        let body = Array(buffer[4..<4 + size])
                        buffer.removeFirst(4 + size)
                        return (size, try FrameDecoder.object(from: body))
                    }
                }
                var chunk = [UInt8](repeating: 0, count: 1 << 16)
                let n = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
                guard n > 0 else { return nil }
                buffer += chunk[0..<n]
            }
        }

        /// Runs `line` as request 1 of a fresh scene's conversation; the answer, events skipped.
        func run(_ line: String, id: Int = 1) throws -> (size: Int, object: [String: Any]) {
            try send(["type": "run", "id": id, "line": line])
            while let frame = try receive() {
                if frame.object["type"] as? String != "event" { return frame }
            }
            throw ServeTests.TestFailure("the server closed the connection after '\(line)'")
        }
    }

    /// Description lengths whose `content show` replies are `limit - margin` and
    /// `limit + margin` bytes, from two measured replies (the size is linear in the length).
    static func calibrate() throws -> (under: Int, over: Int) {
        let margin = 16
        let calibration = try Server(config: "", arguments: ["--single-process"]) { folder in
            try catalogConfig(folder, [1000, 3000]).write(toFile: folder + "/coordsh.toml", atomically: true, encoding: .utf8)
        }
        defer { _ = try? calibration.stop() }
        let first = try RawClient(path: calibration.socket).run("content show 1").size
        let second = try RawClient(path: calibration.socket).run("content show 2").size
        let perCharacter = (second - first) / 2000
        #expect(perCharacter == 2, "a description appears twice in a reply (lines and document): \(first), \(second)")
        let fixed = first - 1000 * perCharacter
        return ((limit - margin - fixed) / perCharacter, (limit + margin - fixed) / perCharacter)
    }

    /// What in-process `coordsh -c LINE` prints, the reference for every protocol mode.
    static func inProcess(_ server: Server, _ line: String) throws -> String {
        let result = try server.coordsh(["--single-process", "--config", server.folder + "/coordsh.toml", "--db", server.folder + "/ref.sqlite", "-c", line])
        #expect(result.status == 0, "\(result.stderr)")
        return result.stdout
    }

    static let echo64K = "echo " + String(repeating: "e", count: ClientRequest.maxLineLength - 5)

    @Test("serve, in one process and supervised: 64 KiB and just under 1 MiB arrive whole; just over is the command's one too_large line on an open connection; the app process lives; a client printing text, which is sent no document, gets the lines of a page over the limit with one and its one error line only past that")
    func serveModes() throws {
        let (under, over) = try Self.calibrate()
        for arguments in [["--single-process"], []] {
            let server = try Server(config: "", arguments: arguments) { folder in
                try Self.catalogConfig(folder, [under, over, 3 * over]).write(toFile: folder + "/coordsh.toml", atomically: true, encoding: .utf8)
            }
            let mode = arguments.isEmpty ? "supervised" : "single process"
            let worker = arguments.isEmpty ? SupervisedServeTests.workerPID(of: server) : nil
            let client = try RawClient(path: server.socket)
            let echoed = try client.run(Self.echo64K, id: 1)
            #expect((echoed.object["lines"] as? [String]) == [String(Self.echo64K.dropFirst(5))], "\(mode): 64 KiB echoed whole")

            let big = try client.run("content show 1", id: 2)
            #expect(big.size > Self.limit - 64 && big.size <= Self.limit, "\(mode): a reply of \(big.size) bytes, just under the limit")
            #expect(big.object["type"] as? String == "result" && big.object["ok"] as? Bool == true, "\(mode): \(big.object["type"] ?? "?")")
            let lines = (big.object["lines"] as? [String]) ?? []
            let printed = try Self.inProcess(server, "content show 1")
            #expect(lines.joined(separator: "\n") + "\n" == printed, "\(mode): the lines are what coordsh -c prints")

            let tooBig = try client.run("content show 2", id: 3)
            #expect(tooBig.object["type"] as? String == "error" && tooBig.object["id"] as? Int == 3, "\(mode): \(tooBig.object)")
            #expect(tooBig.object["code"] as? String == "too_large")
            let message = tooBig.object["message"] as? String ?? ""
            #expect(message.hasPrefix("the command ran, but its output is too large to send: ") && message.contains("over the protocol's limit of 1048576 (1 MiB)")
                && !message.contains("\n"), "\(mode): \(message)")
            // The connection stays open, the scene is where the command left it, the app lives.
            let after = try client.run("where", id: 4)
            #expect(after.object["ok"] as? Bool == true && (after.object["route"] as? String) == "content/product id=2", "\(mode): \(after.object)")
            if let worker {
                #expect(SupervisedServeTests.workerPID(of: server) == worker, "the app process was not replaced")
            }
            // connect prints the big reply as the shell does. Printing text it asks for no
            // document, so the page over the limit with its document arrives as lines; one
            // whose lines alone are over it is one error line; with --json the document travels
            // too, and the first is already one error line.
            for id in [1, 2] {
                let connected = try server.coordsh(["connect", "-c", "content show \(id)"])
                let reference = try Self.inProcess(server, "content show \(id)")
                #expect(connected.status == 0 && connected.stdout == reference, "\(mode), \(id): \(connected.stderr)")
            }
            let refused = try server.coordsh(["connect", "-c", "content show 3", "-c", "echo next"])
            #expect(refused.status == 1 && refused.stdout.isEmpty, "\(mode): \(refused.stdout)")
            #expect(refused.stderr.hasPrefix("coordsh: error: the command ran, but its output is too large to send:")
                && refused.stderr.split(separator: "\n").count == 1, "\(mode): \(refused.stderr)")
            let refusedJSON = try server.coordsh(["connect", "--json", "-c", "content show 2"])
            #expect(refusedJSON.status == 1 && refusedJSON.stdout.contains("\"too_large\""), "\(mode): \(refusedJSON.stdout)")
            #expect(refusedJSON.stderr.hasPrefix("coordsh: error: the command ran, but its output is too large to send:")
                && refusedJSON.stderr.split(separator: "\n").count == 1, "\(mode): \(refusedJSON.stderr)")
            #expect(!server.logText.contains("crashed") && !server.logText.contains("dropped"), "\(mode): \(server.logText)")
            #expect(try server.stop() == 0)
        }
    }

    @Test("the supervised shell: 64 KiB, just under 1 MiB and a page over it only with its --json document printed whole, a page whose lines alone are over it one error line, the app process not restarted")
    func supervisedShell() throws {
        let (under, over) = try Self.calibrate()
        let folder = try makeTemporaryDirectory("large-replies")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try Self.catalogConfig(folder, [under, over, 3 * over]).write(toFile: folder + "/coordsh.toml", atomically: true, encoding: .utf8)
        let environment = ["HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_STATE_HOME": folder + "/state", "XDG_CACHE_HOME": folder + "/cache"]
        let base = ["--config", folder + "/coordsh.toml", "--db", folder + "/shop.sqlite"]
        let script = Self.echo64K + "\ncontent show 1\ncontent show 2\ncontent show 3\necho still here\n"
        let supervised = try run(BuildProducts.coordsh, base + ["--supervised", "--keep-going"], input: script, environment: environment, timeout: 120)
        let reference = try run(
            BuildProducts.coordsh, base + ["--single-process", "-c", Self.echo64K, "-c", "content show 1", "-c", "content show 2"], environment: environment, timeout: 120)
        #expect(reference.status == 0, "\(reference.stderr)")
        #expect(supervised.status == 1, "batch mode exits 1 after the error: \(supervised.stderr)")
        #expect(supervised.stdout == reference.stdout + "still here\n", "\(supervised.stdout.prefix(300))")
        let errors = supervised.stderr.split(separator: "\n")
        #expect(errors.count == 1 && errors[0].hasPrefix("coordsh: error: the command ran, but its output is too large to send: "), "\(supervised.stderr)")
        #expect(!supervised.stderr.contains("app process"), "\(supervised.stderr)")
    }
}
