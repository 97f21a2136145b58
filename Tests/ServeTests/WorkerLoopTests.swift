import Foundation
import Testing
import TestSupport

/// The worker's own event loop (`WorkerLoop`), driven by a front written in Python from
/// PROTOCOL.md (front.py): a reply larger than a socket takes at once, a scene that never says
/// hello, one that never reads, one that breaks a frame — each met as `coordsh serve` meets a
/// client, and the worker serving its other scenes through all of it.
@Suite("The worker's loop")
struct WorkerLoopTests {
    @Test("a front that misbehaves: the silent scene refused at the handshake timeout, the one that never reads dropped at the outbound limit, the broken frame answered and closed, the closed one closed; the other scenes served, and the worker exits 0 with its control channel; the front's sealed marker taken and its descriptor closed, any other descriptor named as the marker neither written into nor closed")
    func misbehavingFront() throws {
        let folder = try makeTemporaryDirectory("worker-loop")
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let inherited = ProcessInfo.processInfo.environment
        var environment = [
            "HOME": folder, "XDG_DATA_HOME": folder + "/data", "XDG_CONFIG_HOME": folder + "/config", "XDG_STATE_HOME": folder + "/state",
        ]
        for key in ["PYENV_ROOT", "PYENV_VERSION", "PYTHONPATH"] { environment[key] = inherited[key] }
        let script = BuildProducts.packageRoot + "/Tests/ServeTests/front.py"
        let result = try run("/usr/bin/env", ["python3", script, BuildProducts.coordshServer, folder], environment: environment, timeout: 120)
        let log = (try? String(contentsOfFile: folder + "/worker.log", encoding: .utf8)) ?? ""
        #expect(result.status == 0, "\(result.stdout)\n\(result.stderr)\nworker log:\n\(log)")
        #expect(result.stdout.hasSuffix("all worker loop checks passed\n"))
        for expected in ["refused: no hello within 1 s", "dropped: it stopped reading", "closed: empty frame", "disconnected: scene b closed"] {
            #expect(log.contains(expected), "the worker's log lacks '\(expected)':\n\(log)")
        }
    }
}
