/// The decisions of Happy Eyeballs v2 (RFC 8305) for one connection, as a pure value.
///
/// No sockets, no timers, no clock: the owner (``Connector``) feeds events with the current
/// time and runs the returned ``Action``. Addresses are tried in the §4 order: families
/// interleaved, starting with the family of the first address the resolver returned. A new
/// attempt starts when the previous one has been running for the attempt delay (§5, 250 ms
/// by default) or at once when an attempt fails. The first attempt to connect wins and every
/// other one is cancelled (§5); when all have failed, the last error is reported.
/// The overall timeout is the owner's timer; it reports it with ``timedOut()``.
package struct HappyEyeballsStateMachine {
    /// What the owner must do after an event.
    package enum Action: Equatable, Sendable {
        /// Nothing (for example a stale timer, or a failure while others are still running).
        case none
        /// Start connecting attempt `index` to `address`. Replace the attempt-delay timer: fire
        /// ``HappyEyeballsStateMachine/attemptDelayElapsed(now:)`` at `nextAttemptAt`, or
        /// cancel it when nil (no address left to start).
        case startAttempt(index: Int, address: SocketAddress, nextAttemptAt: Deadline?)
        /// Attempt `index` won: keep its socket, close the sockets of `cancel`, stop all timers.
        case succeed(index: Int, cancel: [Int])
        /// Every attempt failed; report `lastError`. Stop all timers.
        case fail(lastError: SystemError)
        /// There was no address to try. Stop all timers.
        case failNoAddresses
        /// The overall timeout passed: close the sockets of `cancel`, report a timeout.
        case failTimedOut(cancel: [Int])
        /// The owner cancelled: close the sockets of `cancel`.
        case cancelled(cancel: [Int])
    }

    private struct Progress {
        /// Index of the next address to start.
        var next: Int
        /// Attempts started and not yet failed, in start order.
        var running: [Int]
        /// When the attempt-delay timer should start the next address.
        var nextAttemptAt: Deadline?
        var lastError: SystemError?
    }

    private enum State {
        case idle
        case connecting(Progress)
        case finished
    }

    /// The addresses in the order they are tried (§4 interleaving applied).
    package let addresses: [SocketAddress]
    /// The Connection Attempt Delay (§5).
    package let attemptDelay: Duration
    private var state = State.idle

    /// Prepares to connect to `resolved` (in the resolver's order).
    /// - Parameter attemptDelay: §5 recommends 250 ms (minimum 100 ms, maximum 2 s).
    package init(addresses resolved: [SocketAddress], attemptDelay: Duration = .milliseconds(250)) {
        self.addresses = Self.interleave(resolved)
        self.attemptDelay = attemptDelay
    }

    /// Orders addresses by RFC 8305 §4: alternate families, starting with the first address's
    /// family, keeping the resolver's order within each family.
    package static func interleave(_ resolved: [SocketAddress]) -> [SocketAddress] {
        guard let firstFamily = resolved.first?.family else { return [] }
        var preferred = resolved.filter { $0.family == firstFamily }[...]
        var other = resolved.filter { $0.family != firstFamily }[...]
        var result: [SocketAddress] = []
        result.reserveCapacity(resolved.count)
        while !preferred.isEmpty || !other.isEmpty {
            if let address = preferred.popFirst() { result.append(address) }
            if let address = other.popFirst() { result.append(address) }
        }
        return result
    }

    // MARK: - Events

    /// Begins: starts the first attempt (or fails when there is no address).
    package mutating func start(now: Deadline) -> Action {
        switch state {
        case .idle:
            guard !addresses.isEmpty else {
                state = .finished
                return .failNoAddresses
            }
            var progress = Progress(next: 0, running: [], nextAttemptAt: nil, lastError: nil)
            let action = startNext(&progress, now: now)
            state = .connecting(progress)
            return action
        case .connecting, .finished:
            return .none
        }
    }

    /// The attempt-delay timer fired: start the next address if it is due.
    package mutating func attemptDelayElapsed(now: Deadline) -> Action {
        switch state {
        case .connecting(var progress):
            // A timer that outlived a reschedule is stale; only the current deadline counts.
            guard let due = progress.nextAttemptAt, due <= now, progress.next < addresses.count else {
                return .none
            }
            let action = startNext(&progress, now: now)
            state = .connecting(progress)
            return action
        case .idle, .finished:
            return .none
        }
    }

    /// Attempt `index` failed (at once, or with `SO_ERROR` later): start the next address now
    /// (§5 does not wait out the delay after a failure), or fail when nothing is left.
    package mutating func attemptFailed(index: Int, error: SystemError, now: Deadline) -> Action {
        switch state {
        case .connecting(var progress):
            guard let position = progress.running.firstIndex(of: index) else { return .none }
            progress.running.remove(at: position)
            progress.lastError = error
            if progress.next < addresses.count {
                let action = startNext(&progress, now: now)
                state = .connecting(progress)
                return action
            }
            if progress.running.isEmpty {
                state = .finished
                return .fail(lastError: error)
            }
            state = .connecting(progress)
            return .none
        case .idle, .finished:
            return .none
        }
    }

    /// Attempt `index` connected: it wins, the others are cancelled.
    package mutating func attemptSucceeded(index: Int) -> Action {
        switch state {
        case .connecting(let progress):
            guard progress.running.contains(index) else { return .none }
            state = .finished
            return .succeed(index: index, cancel: progress.running.filter { $0 != index })
        case .idle, .finished:
            return .none
        }
    }

    /// The overall connect timeout passed.
    package mutating func timedOut() -> Action {
        switch state {
        case .idle:
            state = .finished
            return .failTimedOut(cancel: [])
        case .connecting(let progress):
            state = .finished
            return .failTimedOut(cancel: progress.running)
        case .finished:
            return .none
        }
    }

    /// The owner gives up (its caller cancelled).
    package mutating func cancel() -> Action {
        switch state {
        case .idle:
            state = .finished
            return .cancelled(cancel: [])
        case .connecting(let progress):
            state = .finished
            return .cancelled(cancel: progress.running)
        case .finished:
            return .none
        }
    }

    private func startNext(_ progress: inout Progress, now: Deadline) -> Action {
        let index = progress.next
        progress.next += 1
        progress.running.append(index)
        progress.nextAttemptAt = progress.next < addresses.count ? now + attemptDelay : nil
        return .startAttempt(index: index, address: addresses[index], nextAttemptAt: progress.nextAttemptAt)
    }
}
