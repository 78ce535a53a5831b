import FerryIO
import Testing

@testable import FerryEngine

/// A chain of caps against a fake clock: bytes move only as far as the tightest cap allows,
/// every cap is paid, and the wait is the longest any cap asks for.
struct BandwidthLimiterTests {
    static let start = Deadline(uptimeNanoseconds: 1_000_000_000)

    @Test func theTightestCapInTheChainDecides() {
        let session = BandwidthLimiter(bytesPerSecond: 10_000, now: Self.start)
        let task = BandwidthLimiter(bytesPerSecond: 100_000, parent: session, now: Self.start)
        #expect(task.available(at: Self.start) == 1_000, "the session's burst, not the task's 10,000")
        task.consume(1_000)
        #expect(task.available(at: Self.start) == 0)
        #expect(session.available(at: Self.start) == 0, "the session's cap was paid too")
        #expect(task.delay(at: Self.start) == .milliseconds(20), "the session's quantum of 200 bytes")
        #expect(task.available(at: Self.start + .milliseconds(20)) == 200)
    }

    @Test func aSharedCapIsPaidByEveryTaskUnderIt() {
        let session = BandwidthLimiter(bytesPerSecond: 10_000, now: Self.start)
        let first = BandwidthLimiter(bytesPerSecond: 1_000_000, parent: session, now: Self.start)
        let second = BandwidthLimiter(bytesPerSecond: 1_000_000, parent: session, now: Self.start)
        first.consume(600)
        #expect(second.available(at: Self.start) == 400)
        second.consume(400)
        #expect(first.available(at: Self.start) == 0)
    }

    @Test("bytes are granted a quantum at a time: what trickles in between two looks waits")
    func grantsWholeQuanta() {
        let limiter = BandwidthLimiter(bytesPerSecond: 10_000_000, now: Self.start)   // quantum 200,000
        limiter.consume(limiter.available(at: Self.start))
        #expect(limiter.available(at: Self.start + .microseconds(3)) == 0, "30 bytes accrued: not worth a read")
        #expect(limiter.delay(at: Self.start + .microseconds(3)) > .milliseconds(19))
        #expect(limiter.available(at: Self.start + .milliseconds(20)) == 200_000)
        let session = BandwidthLimiter(bytesPerSecond: 10_000, now: Self.start)      // quantum 200
        let task = BandwidthLimiter(bytesPerSecond: 10_000_000, parent: session, now: Self.start)
        session.consume(850)
        #expect(task.available(at: Self.start) == 0, "150 left in the session's cap, less than its quantum")
    }

    @Test func theChildsOwnCapHoldsWhenItIsTighter() {
        let session = BandwidthLimiter(bytesPerSecond: 1_000_000, now: Self.start)
        let task = BandwidthLimiter(bytesPerSecond: 5_000, parent: session, now: Self.start)
        #expect(task.available(at: Self.start) == 500)
        task.consume(500)
        #expect(task.delay(at: Self.start) == .milliseconds(20))
        #expect(session.available(at: Self.start) == 99_500)
    }
}
