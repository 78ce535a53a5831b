import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("HappyEyeballsStateMachine")
struct HappyEyeballsStateMachineTests {
    typealias Action = HappyEyeballsStateMachine.Action

    let v6a = SocketAddress(ipAddress: "2001:db8::a", port: 443)!
    let v6b = SocketAddress(ipAddress: "2001:db8::b", port: 443)!
    let v6c = SocketAddress(ipAddress: "2001:db8::c", port: 443)!
    let v4a = SocketAddress(ipAddress: "192.0.2.1", port: 443)!
    let v4b = SocketAddress(ipAddress: "192.0.2.2", port: 443)!
    let t0 = Deadline(uptimeNanoseconds: 1_000_000_000)
    let refused = SystemError(errno: ECONNREFUSED, syscall: "connect")
    let unreachable = SystemError(errno: ENETUNREACH, syscall: "connect")

    func ms(_ value: Int) -> Duration { .milliseconds(value) }

    @Test("§4: families interleave starting with the first address's family")
    func interleaving() async {
        let order = HappyEyeballsStateMachine.interleave([v6a, v6b, v6c, v4a, v4b])
        #expect(order == [v6a, v4a, v6b, v4b, v6c])
        let v4First = HappyEyeballsStateMachine.interleave([v4a, v6a, v6b, v4b])
        #expect(v4First == [v4a, v6a, v4b, v6b])
        #expect(HappyEyeballsStateMachine.interleave([v4a, v4b]) == [v4a, v4b])
        #expect(HappyEyeballsStateMachine.interleave([]) == [])
    }

    @Test("§5: the next attempt starts 250 ms after the previous one started")
    func staggeredStarts() async {
        var machine = HappyEyeballsStateMachine(addresses: [v6a, v6b, v4a])
        #expect(machine.start(now: t0) == .startAttempt(index: 0, address: v6a, nextAttemptAt: t0 + ms(250)))
        // A timer that fires early (or a stale one) starts nothing.
        #expect(machine.attemptDelayElapsed(now: t0 + ms(249)) == .none)
        #expect(machine.attemptDelayElapsed(now: t0 + ms(250))
            == .startAttempt(index: 1, address: v4a, nextAttemptAt: t0 + ms(500)))
        // The last address: no further timer.
        #expect(machine.attemptDelayElapsed(now: t0 + ms(500))
            == .startAttempt(index: 2, address: v6b, nextAttemptAt: nil))
        #expect(machine.attemptDelayElapsed(now: t0 + ms(750)) == .none)
    }

    @Test("a custom attempt delay is honoured")
    func customDelay() async {
        var machine = HappyEyeballsStateMachine(addresses: [v4a, v4b], attemptDelay: ms(100))
        #expect(machine.start(now: t0) == .startAttempt(index: 0, address: v4a, nextAttemptAt: t0 + ms(100)))
    }

    @Test("a failure starts the next address at once and restarts the 250 ms clock")
    func failureFastForward() async {
        var machine = HappyEyeballsStateMachine(addresses: [v6a, v4a, v6b])
        _ = machine.start(now: t0)
        #expect(machine.attemptFailed(index: 0, error: unreachable, now: t0 + ms(10))
            == .startAttempt(index: 1, address: v4a, nextAttemptAt: t0 + ms(260)))
        // The old deadline (t0 + 250) is stale now.
        #expect(machine.attemptDelayElapsed(now: t0 + ms(250)) == .none)
        #expect(machine.attemptDelayElapsed(now: t0 + ms(260))
            == .startAttempt(index: 2, address: v6b, nextAttemptAt: nil))
    }

    @Test("first success wins and every other running attempt is cancelled")
    func firstSuccessWins() async {
        var machine = HappyEyeballsStateMachine(addresses: [v6a, v4a, v6b])
        _ = machine.start(now: t0)
        _ = machine.attemptDelayElapsed(now: t0 + ms(250))
        _ = machine.attemptDelayElapsed(now: t0 + ms(500))
        #expect(machine.attemptSucceeded(index: 1) == .succeed(index: 1, cancel: [0, 2]))
        // Late events after the decision are ignored.
        #expect(machine.attemptSucceeded(index: 0) == .none)
        #expect(machine.attemptFailed(index: 2, error: refused, now: t0 + ms(600)) == .none)
        #expect(machine.attemptDelayElapsed(now: t0 + ms(900)) == .none)
        #expect(machine.timedOut() == .none)
        #expect(machine.cancel() == .none)
    }

    @Test("a failure while others still run waits for them")
    func failureWhileOthersRun() async {
        var machine = HappyEyeballsStateMachine(addresses: [v6a, v4a])
        _ = machine.start(now: t0)
        _ = machine.attemptDelayElapsed(now: t0 + ms(250))
        #expect(machine.attemptFailed(index: 1, error: refused, now: t0 + ms(300)) == .none)
        #expect(machine.attemptSucceeded(index: 0) == .succeed(index: 0, cancel: []))
    }

    @Test("when every attempt fails, the last error is reported")
    func allFail() async {
        var machine = HappyEyeballsStateMachine(addresses: [v6a, v4a])
        _ = machine.start(now: t0)
        _ = machine.attemptDelayElapsed(now: t0 + ms(250))
        #expect(machine.attemptFailed(index: 0, error: unreachable, now: t0 + ms(300)) == .none)
        #expect(machine.attemptFailed(index: 1, error: refused, now: t0 + ms(310)) == .fail(lastError: refused))
        // Unknown or repeated indices change nothing.
        #expect(machine.attemptFailed(index: 1, error: refused, now: t0 + ms(320)) == .none)
    }

    @Test("sequential failures walk through all addresses, then fail")
    func sequentialFailures() async {
        var machine = HappyEyeballsStateMachine(addresses: [v4a, v4b])
        _ = machine.start(now: t0)
        #expect(machine.attemptFailed(index: 0, error: refused, now: t0 + ms(1))
            == .startAttempt(index: 1, address: v4b, nextAttemptAt: nil))
        #expect(machine.attemptFailed(index: 1, error: unreachable, now: t0 + ms(2)) == .fail(lastError: unreachable))
    }

    @Test("timeout cancels every running attempt")
    func timeout() async {
        var machine = HappyEyeballsStateMachine(addresses: [v6a, v4a, v6b])
        _ = machine.start(now: t0)
        _ = machine.attemptDelayElapsed(now: t0 + ms(250))
        #expect(machine.timedOut() == .failTimedOut(cancel: [0, 1]))
        #expect(machine.attemptSucceeded(index: 0) == .none)
        #expect(machine.attemptDelayElapsed(now: t0 + ms(500)) == .none)
    }

    @Test("timeout and cancel before start, and no addresses")
    func edges() async {
        var idle = HappyEyeballsStateMachine(addresses: [v4a])
        #expect(idle.timedOut() == .failTimedOut(cancel: []))
        #expect(idle.start(now: t0) == .none)

        var empty = HappyEyeballsStateMachine(addresses: [])
        #expect(empty.start(now: t0) == .failNoAddresses)

        var cancelled = HappyEyeballsStateMachine(addresses: [v4a, v4b])
        _ = cancelled.start(now: t0)
        #expect(cancelled.start(now: t0) == .none)  // starting twice does nothing
        #expect(cancelled.cancel() == .cancelled(cancel: [0]))
        #expect(cancelled.cancel() == .none)
    }
}
