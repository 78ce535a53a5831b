import FerryIO
import Testing

@testable import FerryEngine

/// The bandwidth cap's bucket against a fake clock: the average rate holds over any stretch,
/// a pause fills it only up to its burst, an overdraft is repaid before more is available,
/// and the delay it asks for is exactly when a quantum is back.
struct TokenBucketTests {
    static let start = Deadline(uptimeNanoseconds: 1_000_000_000)

    static func at(_ milliseconds: Int64) -> Deadline {
        start + .milliseconds(milliseconds)
    }

    @Test func startsWithABurstOfATenthOfASecond() {
        var bucket = TokenBucket(bytesPerSecond: 200_000, now: Self.start)
        #expect(bucket.burst == 20_000)
        #expect(bucket.quantum == 4_000)
        #expect(bucket.available(at: Self.start) == 20_000)
    }

    @Test("taking all there is, as soon as it is there, moves the rate over five seconds, give or take the burst")
    func averageRateOverFiveSeconds() {
        var bucket = TokenBucket(bytesPerSecond: 200_000, now: Self.start)
        var now = Self.start
        var moved: Int64 = 0
        while now < Self.at(5_000) {
            let grant = bucket.available(at: now)
            bucket.consume(grant)
            moved += grant
            now = now + max(bucket.delay(at: now), .nanoseconds(1))
        }
        // 5 s × 200 kB/s, plus the first burst.
        #expect(moved >= 1_000_000 && moved <= 1_020_000 + bucket.quantum, "\(moved)")
    }

    @Test func aLongPauseFillsOnlyUpToTheBurst() {
        var bucket = TokenBucket(bytesPerSecond: 1_000, now: Self.start)
        bucket.consume(bucket.available(at: Self.start))
        #expect(bucket.available(at: Self.at(3_600_000)) == bucket.burst)
        #expect(bucket.available(at: Deadline.distantFuture) == bucket.burst, "no overflow at the clock's end")
    }

    @Test func anOverdraftIsRepaidFirst() {
        var bucket = TokenBucket(bytesPerSecond: 100_000, now: Self.start)
        bucket.consume(bucket.available(at: Self.start) + 50_000)   // two readers took the same bytes
        #expect(bucket.available(at: Self.at(400)) == 0, "0.4 s repays 40 kB of the 50 kB debt")
        #expect(bucket.available(at: Self.at(600)) == 10_000)
    }

    @Test func theDelayEndsWhenAQuantumIsBack() {
        var bucket = TokenBucket(bytesPerSecond: 50_000, now: Self.start)
        bucket.consume(bucket.available(at: Self.start))
        let delay = bucket.delay(at: Self.start)
        #expect(delay == .milliseconds(20), "a quantum is 1,000 bytes: 20 ms at 50 kB/s")
        #expect(bucket.available(at: Self.start + delay) == bucket.quantum)
        #expect(bucket.delay(at: Self.start + delay) == .zero)
    }

    @Test func tinyAndHugeRatesAreClamped() {
        var slow = TokenBucket(bytesPerSecond: 0, now: Self.start)
        #expect(slow.bytesPerSecond == 1)
        #expect(slow.available(at: Self.start) == 1)
        slow.consume(1)
        #expect(slow.delay(at: Self.start) == .seconds(1))
        var fast = TokenBucket(bytesPerSecond: .max, now: Self.start)
        fast.consume(.max)
        #expect(fast.available(at: Self.at(10_000)) == fast.burst)
    }
}
