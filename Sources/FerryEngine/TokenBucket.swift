import FerryIO

/// A token bucket for a bandwidth cap (curl's `--limit-rate`): bytes may move at
/// ``bytesPerSecond`` on average, and after a quiet spell at most ``burst`` at once. Pure: the
/// caller says what time it is, so a test drives it with a fake clock.
///
/// Bytes are asked for (``available(at:)``), moved, then paid for (``consume(_:)``). Payment
/// may overdraw: two connections that share a session's cap may both read what was available
/// a moment ago; the debt is repaid before anything more is available, so the average holds.
/// The arithmetic is in nano-bytes (bytes × 10⁹), whole numbers, so no fraction is lost.
package struct TokenBucket: Sendable, Equatable {
    /// The average rate.
    package let bytesPerSecond: Int64
    /// The most that may move at once after a pause: a tenth of a second's worth, and at least
    /// one ``quantum``.
    package let burst: Int64
    /// Tokens in nano-bytes; negative while a payment overdrew.
    private var nanoTokens: Int64
    /// When ``nanoTokens`` was last brought up to date.
    private var updated: Deadline

    /// A full bucket at `now`.
    /// - Parameter bytesPerSecond: The cap, from 1 to 1 GB/s (values outside are clamped).
    package init(bytesPerSecond: Int64, now: Deadline) {
        let rate = max(1, min(bytesPerSecond, Self.maximumRate))
        self.bytesPerSecond = rate
        burst = max(Self.quantum(rate), rate / 10)
        nanoTokens = burst * Self.nano
        updated = now
    }

    /// Bytes that may move now (never negative).
    package mutating func available(at now: Deadline) -> Int64 {
        refill(at: now)
        return max(0, nanoTokens / Self.nano)
    }

    /// Pays for `count` bytes that moved.
    package mutating func consume(_ count: Int64) {
        guard count > 0 else { return }
        // Bounded below: a runaway overdraft (which the caller's reads cannot make, each
        // bounded by what was available) must not overflow.
        nanoTokens = max(nanoTokens - min(count, Self.maximumRate) * Self.nano, -Self.maximumRate * Self.nano)
    }

    /// How long until ``quantum`` bytes are available (zero when they are): when a transfer
    /// held back for want of tokens should look again. Waiting for a quantum, not for one byte,
    /// keeps the wake-ups to about fifty a second whatever the rate.
    package mutating func delay(at now: Deadline) -> Duration {
        refill(at: now)
        let missing = Self.quantum(bytesPerSecond) * Self.nano - nanoTokens
        guard missing > 0 else { return .zero }
        // Rounded up: waking a nanosecond early would find the quantum not quite there.
        return .nanoseconds((missing + bytesPerSecond - 1) / bytesPerSecond)
    }

    /// The bytes worth waiting for: a fiftieth of a second's worth, at least one.
    package var quantum: Int64 { Self.quantum(bytesPerSecond) }

    private static func quantum(_ rate: Int64) -> Int64 { max(1, rate / 50) }

    private mutating func refill(at now: Deadline) {
        let elapsed = (now - updated).saturatingNanoseconds
        guard elapsed > 0 else { return }
        updated = now
        let room = burst * Self.nano - nanoTokens
        guard room > 0 else { return }
        // elapsed × rate would overflow for a long pause; a pause longer than it takes to fill
        // the room fills it.
        let filling = (room + bytesPerSecond - 1) / bytesPerSecond
        nanoTokens += elapsed >= filling ? room : elapsed * bytesPerSecond
    }

    private static let nano: Int64 = 1_000_000_000
    /// 1 GB/s, the largest cap: above it a cap does not slow anything worth slowing, and
    /// nano-bytes of it stay far inside 64 bits.
    private static let maximumRate: Int64 = 1_000_000_000
}
