@_spi(Host) import CoordSDK
import Glibc
import Testing

/// What the host's accounting is told by the clock: every counted handler call, handed over
/// in batches, in nanoseconds the monotonic clock agrees with.
@Suite("The accounting clock", .serialized)
@MainActor
struct FeatureClockTests {
    /// An accounting that keeps what it is told.
    final class Ledger: FeatureAccounting {
        var samples: [CallSample] = []
        var batches: [Int] = []
        var ratios: [Double] = []
        var served: [(String, CallCost)] = []
        var drainAfter: UInt64 = 0

        func handled(_ samples: UnsafeBufferPointer<CallSample>, nanosecondsPerTick: Double) {
            self.samples += samples
            batches.append(samples.count)
            ratios.append(nanosecondsPerTick)
        }
        func waited(_ message: MessageName, at feature: Int32, nanoseconds: UInt64) {}
        func rendered(_ route: RouteRequest, by feature: Int32, cost: CallCost) {}
        func served(_ name: String, cost: CallCost) { served.append((name, cost)) }
    }

    static func monotonic() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC_RAW, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }

    /// Runs `body` with `ledger` counting, and nobody after.
    func counting<T>(_ ledger: Ledger, _ body: () throws -> T) rethrows -> T {
        FeatureClock.accounting = ledger
        defer { FeatureClock.accounting = nil }
        return try body()
    }

    @Test("a measured call's nanoseconds are the monotonic clock's, within 1 %, whatever the tick counter's rate")
    func calibrated() throws {
        let ledger = Ledger()
        try counting(ledger) {
            for milliseconds in [5, 30] {
                // The call's time lies between what the clock read inside its body and around it.
                var inside: UInt64 = 0
                let before = Self.monotonic()
                FeatureClock.hostWork("sleep") {
                    let start = Self.monotonic()
                    usleep(UInt32(milliseconds) * 1000)
                    inside = Self.monotonic() - start
                }
                let around = Self.monotonic() - before
                let measured = try #require(ledger.served.last).1.nanoseconds
                #expect(Double(measured) >= Double(inside) * 0.99 && Double(measured) <= Double(around) * 1.01, "measured \(measured) ns, inside \(inside) ns, around \(around) ns")
            }
        }
    }

    @Test("each counted call reaches the accounting once, with its feature and message, in batches no larger than the buffer; the host's drain hands over the rest")
    func batches() throws {
        let recorder = Recorder()
        let ledger = Ledger()
        try counting(ledger) {
            let app = AppCoordinator()
            try app.register([shopDefinition(recorder)], origin: nil)
            defer { withExtendedLifetime(app) {} }
            let (_, view) = try chain(depth: 3, in: app.makeScene(identifier: "s"))
            let buy = Message(ShopCoordinator.buy, Arguments([("id", .int(1))]), from: view)
            for _ in 0..<1200 { try view.send(buy) }
            #expect(ledger.samples.count < 1200, "nothing kept for later: \(ledger.batches)")
            FeatureClock.drain()
            #expect(ledger.samples.count == 1200 && recorder.log.count == 1200)
            #expect(ledger.batches.allSatisfy { $0 <= 512 } && ledger.batches.count >= 3, "\(ledger.batches)")
            let feature = try #require(app.features.feature(prefix: "shop")).number
            #expect(ledger.samples.allSatisfy { $0.feature == feature && $0.caller == -1 && $0.outcome == .ran })
            #expect(FeatureClock.messageName(ledger.samples[0].message) == "shopBuy")
            #expect(ledger.ratios.allSatisfy { $0 > 0 })
        }
    }

    @Test("a call that took drainAfter or longer is handed over as it ends, so a slow handler is named at once")
    func slowHandedOverAtOnce() throws {
        let ledger = Ledger()
        ledger.drainAfter = 20_000_000
        try counting(ledger) {
            let app = AppCoordinator()
            try app.register([shopDefinition(Recorder())], origin: nil)
            defer { withExtendedLifetime(app) {} }
            let scene = app.makeScene(identifier: "s")
            let (_, view) = try chain(depth: 1, in: scene)
            try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(1))]), from: view))
            #expect(ledger.samples.isEmpty, "a quick call is kept for later")
            let shop = try #require(scene.child(identifier: "shop"))
            shop.handle(ShopCoordinator.buy) { message in
                if message.arguments.int("id") == 2 { usleep(30_000) }
                return .handled
            }
            try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(1))]), from: view))
            #expect(ledger.samples.isEmpty, "a quick call is kept for later")
            try view.send(Message(ShopCoordinator.buy, Arguments([("id", .int(2))]), from: view))
            #expect(ledger.samples.count == 3, "the slow call and the two kept before it: \(ledger.samples.count)")
            let slow = try #require(ledger.samples.last)
            #expect(FeatureClock.nanoseconds(ticks: slow.ticks) >= 29_000_000)
        }
    }
}
