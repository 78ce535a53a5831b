// TaskStateMachine, pure: every event in every state, compared by the action (or demand) it
// returns and the public state it leaves.
import Testing

@testable import FerrySession

@Suite("Task state machine")
struct TaskStateMachineTests {
    typealias Machine = TaskStateMachine

    /// Machines in each state the table starts from, built through events only.
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case created, running, suspended, pausedByOutput, suspendedAndPaused, canceling, completed

        var testDescription: String { rawValue }

        var machine: Machine {
            var machine = Machine()
            switch self {
            case .created:
                break
            case .running:
                _ = machine.resume()
            case .suspended:
                _ = machine.resume()
                _ = machine.suspend()
            case .pausedByOutput:
                _ = machine.resume()
                _ = machine.bodyDelivered(outputWantsMore: false)
            case .suspendedAndPaused:
                _ = machine.resume()
                _ = machine.suspend()
                _ = machine.bodyDelivered(outputWantsMore: true)
            case .canceling:
                _ = machine.resume()
                _ = machine.cancel()
            case .completed:
                _ = machine.resume()
                _ = machine.exchangeEnded()
            }
            return machine
        }
    }

    @Test func startsSuspended() {
        #expect(Machine().publicState == .suspended)
    }

    @Test("resume()", arguments: [
        (Start.created, Machine.Action.startExchange, SessionTask.State.running),
        (.running, .none, .running),
        (.suspended, .none, .running),  // nothing was paused yet: reading simply goes on
        (.pausedByOutput, .none, .running),  // the output still holds it
        (.suspendedAndPaused, .resumeReading, .running),
        (.canceling, .none, .canceling),
        (.completed, .none, .completed),
    ])
    func resume(start: Start, action: Machine.Action, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.resume() == action)
        #expect(machine.publicState == state)
    }

    @Test("suspend()", arguments: [
        (Start.created, SessionTask.State.suspended),
        (.running, .suspended),
        (.suspended, .suspended),
        (.pausedByOutput, .suspended),
        (.suspendedAndPaused, .suspended),
        (.canceling, .canceling),
        (.completed, .completed),
    ])
    func suspend(start: Start, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.suspend() == .none, "suspending never needs the engine: the next body bytes get a pause")
        #expect(machine.publicState == state)
    }

    @Test("cancel()", arguments: [
        (Start.created, Machine.Action.completeCancelled, SessionTask.State.completed),
        (.running, .cancelExchange, .canceling),
        (.suspended, .cancelExchange, .canceling),
        (.pausedByOutput, .cancelExchange, .canceling),
        (.suspendedAndPaused, .cancelExchange, .canceling),
        (.canceling, .none, .canceling),
        (.completed, .none, .completed),
    ])
    func cancel(start: Start, action: Machine.Action, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.cancel() == action)
        #expect(machine.publicState == state)
    }

    @Test("body delivered", arguments: [
        (Start.created, true, Machine.Demand.more),
        (.created, false, .more),
        (.running, true, .more),
        (.running, false, .pause),
        (.suspended, true, .pause),
        (.suspended, false, .pause),
        (.pausedByOutput, true, .pause),  // the output has not drained yet
        (.suspendedAndPaused, true, .pause),
        (.canceling, false, .more),  // the exchange is being stopped anyway
        (.completed, false, .more),
    ])
    func bodyDelivered(start: Start, wantsMore: Bool, demand: Machine.Demand) {
        var machine = start.machine
        #expect(machine.bodyDelivered(outputWantsMore: wantsMore) == demand)
    }

    @Test("output drained", arguments: [
        (Start.created, Machine.Action.none),
        (.running, .none),
        (.suspended, .none),
        (.pausedByOutput, .resumeReading),
        (.suspendedAndPaused, .none),  // the caller still holds it
        (.canceling, .none),
        (.completed, .none),
    ])
    func outputDrained(start: Start, action: Machine.Action) {
        var machine = start.machine
        #expect(machine.outputDrained() == action)
    }

    @Test("exchange ended", arguments: [
        (Start.created, Machine.Action.none, SessionTask.State.suspended),
        (.running, .complete, .completed),
        (.suspended, .complete, .completed),
        (.pausedByOutput, .complete, .completed),
        (.suspendedAndPaused, .complete, .completed),
        (.canceling, .complete, .completed),
        (.completed, .none, .completed),
    ])
    func exchangeEnded(start: Start, action: Machine.Action, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.exchangeEnded() == action)
        #expect(machine.publicState == state)
    }

    @Test func suspensionIsCounted() {
        var machine = Start.running.machine
        _ = machine.suspend()
        _ = machine.suspend()
        #expect(machine.bodyDelivered(outputWantsMore: true) == .pause)
        #expect(machine.resume() == .none, "one suspend() is still unbalanced")
        #expect(machine.publicState == .suspended)
        #expect(machine.resume() == .resumeReading)
        #expect(machine.resume() == .none, "a surplus resume() is ignored")
        #expect(machine.publicState == .running)
    }

    @Test func aTaskSuspendedBeforeItStartsNeedsAResumePerSuspend() {
        var machine = Machine()
        _ = machine.suspend()
        #expect(machine.resume() == .none)
        #expect(machine.publicState == .suspended)
        #expect(machine.resume() == .startExchange)
    }

    @Test func readingResumesOnlyWhenNeitherTheCallerNorTheOutputHoldsIt() {
        var machine = Start.running.machine
        #expect(machine.bodyDelivered(outputWantsMore: false) == .pause)
        _ = machine.suspend()
        #expect(machine.outputDrained() == .none, "still suspended")
        #expect(machine.resume() == .resumeReading)
        #expect(machine.bodyDelivered(outputWantsMore: true) == .more)
    }

    @Test func aResumedReadIsNotResumedTwice() {
        var machine = Start.pausedByOutput.machine
        #expect(machine.outputDrained() == .resumeReading)
        #expect(machine.outputDrained() == .none)
    }

    @Test("head received", arguments: [
        (Start.created, true, Machine.Demand.more),
        (.running, false, .more),
        (.running, true, .pause),
        (.suspended, true, .pause),
        (.canceling, true, .more),
        (.completed, true, .more),
    ])
    func headReceived(start: Start, needsDecision: Bool, demand: Machine.Demand) {
        var machine = start.machine
        #expect(machine.headReceived(needsDecision: needsDecision) == demand)
    }

    @Test func aDecisionHoldsTheBodyUntilTheResponseIsAllowed() {
        var machine = Start.running.machine
        #expect(machine.headReceived(needsDecision: true) == .pause)
        #expect(machine.bodyDelivered(outputWantsMore: true) == .pause, "nothing is read while the delegate decides")
        #expect(machine.outputDrained() == .none)
        #expect(machine.resume() == .none)
        #expect(machine.responseAllowed() == .resumeReading)
        #expect(machine.responseAllowed() == .none, "a second answer changes nothing")
    }

    @Test func anAllowedResponseStaysHeldWhileSuspended() {
        var machine = Start.running.machine
        _ = machine.headReceived(needsDecision: true)
        _ = machine.suspend()
        #expect(machine.responseAllowed() == .none)
        #expect(machine.resume() == .resumeReading)
    }

    @Test func cancellingWhileTheDelegateDecidesStopsTheExchange() {
        var machine = Start.running.machine
        _ = machine.headReceived(needsDecision: true)
        #expect(machine.cancel() == .cancelExchange)
        #expect(machine.responseAllowed() == .none)
    }

    @Test("became a download", arguments: [
        (Start.created, false, SessionTask.State.suspended),
        (.running, false, .running),  // no decision pending: nothing to turn into a download
        (.canceling, false, .canceling),
        (.completed, false, .completed),
    ])
    func becameDownloadWithoutADecision(start: Start, accepted: Bool, state: SessionTask.State) {
        var machine = start.machine
        let becameDownload = machine.becameDownload()
        #expect(becameDownload == accepted)
        #expect(machine.publicState == state)
    }

    @Test func aTaskWaitingForTheDecisionEndsWhenItBecomesADownload() {
        var machine = Start.running.machine
        _ = machine.headReceived(needsDecision: true)
        let becameDownload = machine.becameDownload()
        #expect(becameDownload)
        #expect(machine.publicState == .completed)
        #expect(machine.exchangeEnded() == .none, "the exchange's end belongs to the download task")
        #expect(machine.cancel() == .none)
    }

    @Test("adopting an exchange", arguments: [
        (Start.created, Machine.Action.resumeReading, SessionTask.State.running),
        (.running, .none, .running),
        (.canceling, .none, .canceling),
        (.completed, .none, .completed),
    ])
    func adoptExchange(start: Start, action: Machine.Action, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.adoptExchange() == action)
        #expect(machine.publicState == state)
    }

    @Test func anAdoptedExchangeRunsAsAResumedOne() {
        var machine = Machine()
        _ = machine.adoptExchange()
        #expect(machine.bodyDelivered(outputWantsMore: true) == .more)
        _ = machine.suspend()
        #expect(machine.bodyDelivered(outputWantsMore: true) == .pause)
        #expect(machine.resume() == .resumeReading)
        #expect(machine.exchangeEnded() == .complete)
    }
}
