import CSocketPass
import CoordProtocol
import CoordRuntime
import CoordSupervision
import Foundation
#if canImport(Glibc)
import Glibc
#endif

extension Worker {
    /// `coordsh-server worker --early`: the app process the launcher started beside a front
    /// that looked supervised (Sources/coordsh/launcher.c). Loaded, it waits on its control
    /// channel for what the front would have started it with (`EarlyWorkerStart`), sets those
    /// variables, and returns the worker arguments for the caller to run as any worker's.
    /// Exits 0 when the channel closes first (the front runs the plugins itself, or is gone);
    /// exits 2 with one line when the message is not one a front writes.
    ///
    /// `configGuess` is the `--config` the launcher saw on the front's command line: the
    /// configuration discovery picks for it is parsed while this waits (`ConfigReadAhead`).
    public static func awaitEarlyStart(descriptor: Int32 = 3, configGuess: String? = nil) -> [String] {
        ConfigReadAhead.start(option: configGuess)
        // The running marker's descriptor comes with the first bytes (`WorkerProcess`).
        var marker: Int32 = -1
        guard let header = readExactly(4, from: descriptor, taking: &marker) else { exit(0) }
        guard let length = EarlyWorkerStart.bodyLength(header) else {
            refuse("its options are longer than \(EarlyWorkerStart.maxBytes) bytes")
        }
        guard let body = readExactly(length, from: descriptor, taking: &marker) else { exit(0) }
        guard let start = EarlyWorkerStart(body: body) else { refuse("its options are not a front's (EarlyWorkerStart)") }
        // As a spawned worker's environment: the front's variables, none inherited stale.
        for name in WorkerProcess.startVariables { unsetenv(name) }
        for (name, value) in start.environment { setenv(name, value, 1) }
        if marker >= 0 { setenv(WireProtocol.workerRunningVariable, "\(marker)", 1) }
        return start.arguments
    }

    /// `count` bytes, nil at the end of the channel or on an error; never a byte more (the
    /// first scene's descriptor follows on the same channel). A descriptor that came with
    /// them is put in `received` (the first one; any later one is closed).
    private static func readExactly(_ count: Int, from descriptor: Int32, taking received: inout Int32) -> [UInt8]? {
        var bytes = [UInt8](repeating: 0, count: count)
        var done = 0
        while done < count {
            var attached: Int32 = -1
            let read = bytes[done...].withUnsafeMutableBytes { coordsh_recv_bytes_fd(descriptor, $0.baseAddress, UInt($0.count), &attached) }
            if attached >= 0 {
                if received < 0 { received = attached } else { close(attached) }
            }
            if read < 0, errno == EINTR { continue }
            guard read > 0 else { return nil }
            done += read
        }
        return bytes
    }

    private static func refuse(_ reason: String) -> Never {
        FileHandle.standardError.write(Data("coordsh worker: \(reason)\n".utf8))
        exit(2)
    }
}
