import Synchronization

/// Draws the progress meter on standard error for one transfer, or for all of them with `-Z`.
///
/// Transfers report sizes from their own tasks; the lock keeps the totals and the pacing
/// consistent. Only created when standard error is a terminal and `-s` was not given.
final class ProgressReporter: Sendable {
    private struct State {
        var meter = ProgressMeter()
        var received: Int64 = 0
        /// The sum of announced sizes; nil once any transfer did not announce one.
        var expected: Int64? = 0
        var drawn = false
    }

    private let console: Console
    private let clock = ContinuousClock()
    private let start: ContinuousClock.Instant
    private let state = Mutex(State())

    init(console: Console) {
        self.console = console
        start = clock.now
    }

    /// A transfer's response announced `length` bytes (nil: unknown).
    func expect(_ length: Int64?) {
        state.withLock { state in
            if let length, let sum = state.expected { state.expected = sum + length } else { state.expected = nil }
        }
    }

    /// `count` more body bytes arrived.
    func received(_ count: Int) {
        let now = elapsed()
        let line: String? = state.withLock { state in
            state.received += Int64(count)
            guard state.meter.shouldDraw(at: now) else { return nil }
            state.drawn = true
            return ProgressMeter.line(received: state.received, expected: state.expected, elapsed: now)
        }
        if let line { console.writeError("\r" + line) }
    }

    /// Draws the final state and ends the meter's line, if it was ever drawn.
    func finish() {
        let now = elapsed()
        let line: String? = state.withLock { state in
            guard state.drawn else { return nil }
            state.drawn = false
            return ProgressMeter.line(received: state.received, expected: state.expected, elapsed: now)
        }
        if let line { console.writeError("\r" + line + "\n") }
    }

    private func elapsed() -> Double {
        TransferReport.seconds(start.duration(to: clock.now))
    }
}
