import FerryBase
import FerryIO
import Synchronization

/// A bandwidth cap that connections share: a ``TokenBucket`` behind a lock, and the cap above
/// it (a task's cap sits under its session's), so bytes move only when every cap in the chain
/// has room for them, and each cap is paid for what moved.
///
/// A connection asks how much it may read or write (``available(at:)``), moves at most that,
/// pays (``consume(_:)``), and when nothing is available stops watching its socket until
/// ``delay(at:)`` has passed, on a timer of its event loop: no thread sleeps and nothing polls.
/// Nothing is granted until every cap has a whole quantum (a fiftieth of a second's worth);
/// then all it has, up to its burst. So a fast cap is not spent in reads of the few bytes that
/// accrue between two looks.
/// Connections of one session may run on several loops, hence the lock; the engine only calls
/// in here for an exchange that has a cap, so an uncapped transfer never touches it.
package final class BandwidthLimiter: Sendable {
    private let bucket: Locked<TokenBucket>
    /// The cap shared with others (a session's), which this one's bytes count against too.
    package let parent: BandwidthLimiter?
    /// This cap's average rate.
    package let bytesPerSecond: Int64

    /// A cap of `bytesPerSecond` (clamped to 1 byte/s … 1 GB/s) under `parent`.
    package init(bytesPerSecond: Int64, parent: BandwidthLimiter? = nil, now: Deadline = .now()) {
        let bucket = TokenBucket(bytesPerSecond: bytesPerSecond, now: now)
        self.bytesPerSecond = bucket.bytesPerSecond
        self.bucket = Locked(bucket)
        self.parent = parent
    }

    /// Bytes that may move now: the least any cap in the chain has, or 0 while some cap has
    /// less than its quantum (then ``delay(at:)`` says when to look again).
    package func available(at now: Deadline = .now()) -> Int {
        var least = Int64.max
        var next: BandwidthLimiter? = self
        while let limiter = next, least > 0 {
            let (available, quantum) = limiter.bucket.withLock { ($0.available(at: now), $0.quantum) }
            least = available < quantum ? 0 : min(least, available)
            next = limiter.parent
        }
        return Int(clamping: least)
    }

    /// Pays every cap in the chain for `count` bytes that moved.
    package func consume(_ count: Int) {
        guard count > 0 else { return }
        var next: BandwidthLimiter? = self
        while let limiter = next {
            limiter.bucket.withLock { $0.consume(Int64(count)) }
            next = limiter.parent
        }
    }

    /// How long until every cap in the chain has a quantum again: when a transfer held back
    /// for want of bytes should look again.
    package func delay(at now: Deadline = .now()) -> Duration {
        var longest = Duration.zero
        var next: BandwidthLimiter? = self
        while let limiter = next {
            longest = max(longest, limiter.bucket.withLock { $0.delay(at: now) })
            next = limiter.parent
        }
        return longest
    }
}
