// TaskStateMachine, pure: every event in every state, compared by the action (or demand) it
// returns and the public state it leaves.
import Testing

@testable import FerrySession

@Suite("Task state machine")
struct TaskStateMachineTests {
    typealias Machine = TaskStateMachine

    /// Machines in each state the table starts from, built through events only.
    enum Start: String, CaseIterable, CustomTestStringConvertible {
        case created, running, suspended, pausedByOutput, suspendedAndPaused, holdingHead, canceling, completed

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
            case .holdingHead:
                _ = machine.resume()
                _ = machine.suspend()
                _ = machine.headArrived()
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
        (.holdingHead, .deliverHeldHead, .running),  // reading waits until the head is handled
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
        (.holdingHead, .suspended),
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
        (.holdingHead, .cancelExchange, .canceling),  // the held head goes with the exchange
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
        (.holdingHead, true, .pause),
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
        (.holdingHead, .none),
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
        (.holdingHead, .complete, .completed),  // a failure (a reset, a timeout) still ends it
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

    @Test("head arrived", arguments: [
        (Start.created, true, SessionTask.State.suspended),
        (.running, true, .running),
        (.suspended, false, .suspended),
        (.pausedByOutput, true, .running),
        (.suspendedAndPaused, false, .suspended),
        (.holdingHead, false, .suspended),
        (.canceling, true, .canceling),
        (.completed, true, .completed),
    ])
    func headArrived(start: Start, handledNow: Bool, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.headArrived() == handledNow)
        #expect(machine.publicState == state)
    }

    @Test func aHeadHeldWhileSuspendedIsHandedBackByTheLastResume() {
        var machine = Start.running.machine
        _ = machine.suspend()
        _ = machine.suspend()
        #expect(machine.headArrived() == false)
        #expect(machine.bodyDelivered(outputWantsMore: true) == .pause)
        #expect(machine.resume() == .none, "one suspend() is still unbalanced")
        #expect(machine.resume() == .deliverHeldHead)
        #expect(machine.resume() == .none, "handed back once")
        // Handled without a decision: reading resumes.
        #expect(machine.headArrived() == true)
        #expect(machine.headReceived(needsDecision: false) == .more)
        #expect(machine.responseAllowed() == .resumeReading)
        #expect(machine.responseAllowed() == .none)
    }

    @Test func aHeldHeadThatNeedsADecisionReadsNothingUntilItIsAllowed() {
        var machine = Start.holdingHead.machine
        #expect(machine.resume() == .deliverHeldHead)
        #expect(machine.headArrived() == true)
        #expect(machine.headReceived(needsDecision: true) == .pause)
        #expect(machine.outputDrained() == .none)
        #expect(machine.responseAllowed() == .resumeReading)
    }

    @Test func aTaskSuspendedAgainBeforeItsHeldHeadIsHandledHoldsItAgain() {
        var machine = Start.holdingHead.machine
        #expect(machine.resume() == .deliverHeldHead)
        _ = machine.suspend()
        #expect(machine.headArrived() == false)
        #expect(machine.resume() == .deliverHeldHead)
    }

    @Test func aQuickSuspendAndResumeLetNoBodyPassAHandedBackHead() {
        var machine = Start.holdingHead.machine
        #expect(machine.resume() == .deliverHeldHead)
        _ = machine.suspend()
        #expect(machine.resume() == .none, "the head is not handed back twice, and reading waits for it")
        #expect(machine.outputDrained() == .none)
        #expect(machine.headArrived() == true)
        #expect(machine.headReceived(needsDecision: true) == .pause, "the delegate decides before any body byte")
        #expect(machine.responseAllowed() == .resumeReading)
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

    @Test("next exchange", arguments: [
        (Start.created, Machine.Action.none, SessionTask.State.suspended),
        (.running, .startExchange, .running),
        (.suspended, .startExchange, .suspended),  // suspension carries over to the next exchange
        (.pausedByOutput, .startExchange, .running),  // a new exchange: nothing is paused yet
        (.suspendedAndPaused, .startExchange, .suspended),
        (.holdingHead, .startExchange, .suspended),  // (a held head's exchange has not ended)
        (.canceling, .completeCancelled, .completed),
        (.completed, .none, .completed),
    ])
    func nextExchange(start: Start, action: Machine.Action, state: SessionTask.State) {
        var machine = start.machine
        #expect(machine.nextExchange() == action)
        #expect(machine.publicState == state)
    }

    @Test func theNextExchangeStartsUnpausedButStillSuspended() {
        var machine = Start.suspendedAndPaused.machine
        _ = machine.nextExchange()
        #expect(machine.headArrived() == false, "its head waits for resume()")
        #expect(machine.resume() == .deliverHeldHead)
    }

    @Test("became a download", arguments: [
        (Start.created, false, SessionTask.State.suspended),
        (.running, false, .running),  // no decision pending: nothing to turn into a download
        (.holdingHead, false, .suspended),
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
        (.holdingHead, .none, .suspended),
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
