@testable import CoordSandbox
import Foundation
import Testing

/// Landlock confines the calling thread and the threads it starts later, never one already
/// running: `Sandbox.confine` must refuse a process that runs a second thread, or that thread
/// would go on unconfined beside plugin code. The count is read from /proc/self/task.
@Suite struct SandboxThreadsTests {
    /// Runs `body` while a second thread of this process waits, then lets it end.
    private func withSecondThread<T>(_ body: () -> T) -> T {
        let started = DispatchSemaphore(value: 0), release = DispatchSemaphore(value: 0)
        let thread = Thread { started.signal(); release.wait() }
        thread.start()
        started.wait()
        defer { release.signal() }
        return body()
    }

    @Test func aSecondThreadIsCounted() {
        let threads = withSecondThread { Sandbox.runningThreads() }
        #expect(threads >= 2)
    }

    @Test func aProcessWithASecondThreadIsNotConfined() {
        // Refused before anything is restricted, so this test process stays as it was.
        let outcome = withSecondThread { Sandbox.confine(SandboxPolicy()) }
        switch outcome {
        case .success: Issue.record("confined a process that runs more than one thread")
        case .failure(let failure) where failure.unavailable: break  // a kernel without Landlock
        case .failure(let failure): #expect(failure.description.contains("already runs"))
        }
    }
}
