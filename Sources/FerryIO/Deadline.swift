#if canImport(Glibc)
import Glibc
#endif

/// A point in time on the monotonic clock (`CLOCK_MONOTONIC`), in nanoseconds.
///
/// Timeouts and timers use this clock because it never jumps when the wall clock is set;
/// a `Date` would make a connect timeout fire early or late after an NTP step.
package struct Deadline: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Nanoseconds since an unspecified start (boot, on Linux). Only differences matter.
    package let uptimeNanoseconds: Int64

    /// Creates a deadline at `uptimeNanoseconds` on the monotonic clock.
    package init(uptimeNanoseconds: Int64) {
        self.uptimeNanoseconds = uptimeNanoseconds
    }

    /// The current time on the monotonic clock.
    package static func now() -> Deadline {
        var spec = timespec()
        // CLOCK_MONOTONIC cannot fail with a valid pointer; the result is ignored on purpose.
        _ = clock_gettime(CLOCK_MONOTONIC, &spec)
        return Deadline(uptimeNanoseconds: Int64(spec.tv_sec) &* 1_000_000_000 &+ Int64(spec.tv_nsec))
    }

    /// A deadline that never arrives: "no timeout".
    package static let distantFuture = Deadline(uptimeNanoseconds: .max)

    /// The deadline `rhs` after `lhs`, saturating at ``distantFuture`` (and at the clock's start).
    package static func + (lhs: Deadline, rhs: Duration) -> Deadline {
        let (sum, overflow) = lhs.uptimeNanoseconds.addingReportingOverflow(rhs.saturatingNanoseconds)
        if overflow { return rhs < .zero ? Deadline(uptimeNanoseconds: .min) : .distantFuture }
        return Deadline(uptimeNanoseconds: sum)
    }

    /// The deadline `rhs` before `lhs`, saturating.
    package static func - (lhs: Deadline, rhs: Duration) -> Deadline {
        lhs + (.zero - rhs)
    }

    /// The time from `rhs` to `lhs` (negative when `lhs` is earlier), saturating.
    package static func - (lhs: Deadline, rhs: Deadline) -> Duration {
        let (difference, overflow) = lhs.uptimeNanoseconds.subtractingReportingOverflow(rhs.uptimeNanoseconds)
        if overflow { return lhs > rhs ? .nanoseconds(Int64.max) : .nanoseconds(Int64.min) }
        return .nanoseconds(difference)
    }

    /// Orders deadlines by time.
    package static func < (lhs: Deadline, rhs: Deadline) -> Bool {
        lhs.uptimeNanoseconds < rhs.uptimeNanoseconds
    }

    /// `Deadline(<nanoseconds>ns)`, for test failure messages.
    package var description: String {
        self == .distantFuture ? "Deadline(distantFuture)" : "Deadline(\(uptimeNanoseconds)ns)"
    }
}

extension Duration {
    /// Whole nanoseconds, clamped to `Int64`: durations beyond ±292 years mean "forever" here.
    package var saturatingNanoseconds: Int64 {
        let (seconds, attoseconds) = components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        if overflow { return seconds < 0 ? .min : .max }
        let (total, overflow2) = scaled.addingReportingOverflow(attoseconds / 1_000_000_000)
        if overflow2 { return seconds < 0 ? .min : .max }
        return total
    }
}
