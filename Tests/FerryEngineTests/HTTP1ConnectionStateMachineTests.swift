import FerryIO
import Testing

@testable import FerryEngine

@Suite struct HTTP1ConnectionStateMachineTests {
    let retryable = HTTP1ConnectionStateMachine.RequestTraits(isRetryable: true)
    let reset = SystemError(errno: 104, syscall: "read")

    @Test func simpleExchangeCompletesAndKeepsTheConnection() {
        var machine = HTTP1ConnectionStateMachine()
        #expect(machine.exchangeStarted(retryable) == .sendRequest)
        #expect(machine.requestSent() == .none)
        #expect(machine.responseBytesReceived() == .none)
        #expect(machine.responseHeadReceived(keepAlive: true) == .none)
        #expect(machine.responseEnded() == .succeedExchange(reusable: true))
        #expect(machine.isIdle)
        #expect(machine.isReused)
    }

    @Test func connectionCloseResponseIsNotReused() {
        var machine = HTTP1ConnectionStateMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestSent()
        _ = machine.responseHeadReceived(keepAlive: false)
        #expect(machine.responseEnded() == .succeedExchange(reusable: false))
        #expect(!machine.isIdle)
    }

    @Test func trailingBytesAfterTheResponseForbidReuse() {
        var machine = HTTP1ConnectionStateMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestSent()
        _ = machine.responseHeadReceived(keepAlive: true)
        #expect(machine.responseEnded(allowReuse: false) == .succeedExchange(reusable: false))
    }

    @Test func earlyResponseStopsTheBodyAndClosesAfterwards() {
        var machine = HTTP1ConnectionStateMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.responseHeadReceived(keepAlive: true)
        #expect(machine.responseEnded() == .stopSendingBody)
        #expect(machine.bodySendingStopped() == .succeedExchange(reusable: false))
    }

    @Test func anAbandonedRequestLetsTheResponseDecideAndClosesAfterwards() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(retryable)
        #expect(machine.requestAbandoned() == .none)
        #expect(machine.requestSent() == .none, "nothing more of it is written")
        _ = machine.responseBytesReceived()
        #expect(machine.responseHeadReceived(keepAlive: true) == .none)
        #expect(machine.responseEnded() == .succeedExchange(reusable: false))
        #expect(!machine.isIdle)
    }

    @Test func anAbandonedRequestWithoutAnAnswerStillFailsAsBefore() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestAbandoned()
        let failure = EngineError(.sendFailed(SystemError(errno: 32, syscall: "sendmsg")))
        #expect(machine.exchangeFailed(failure) == .failExchange(failure, retryable: true))
    }

    @Test func responseBeforeRequestFinishedWaitsForTheRequest() {
        var machine = HTTP1ConnectionStateMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.responseHeadReceived(keepAlive: true)
        // The body was already fully written when the end arrived: the order of events on
        // one loop turn can put requestSent after the response.
        #expect(machine.responseEnded() == .stopSendingBody)
    }

    @Test func emptyReplyOnAFreshConnectionIsNotRetryable() {
        var machine = HTTP1ConnectionStateMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestSent()
        #expect(machine.peerClosedBeforeResponse(.endOfFile) == .failExchange(EngineError(.emptyReply), retryable: false))
    }

    @Test func closeOnAReusedConnectionBeforeAnyByteIsRetryable() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestSent()
        #expect(machine.peerClosedBeforeResponse(.endOfFile) == .failExchange(EngineError(.emptyReply), retryable: true))
    }

    @Test func resetOnAReusedConnectionBeforeAnyByteIsRetryable() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(retryable)
        #expect(machine.peerClosedBeforeResponse(.error(reset))
            == .failExchange(EngineError(.receiveFailed(reset, .awaitingResponse)), retryable: true))
    }

    @Test func nonIdempotentRequestIsNeverRetried() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(.init(isRetryable: false))
        _ = machine.requestSent()
        #expect(machine.peerClosedBeforeResponse(.endOfFile) == .failExchange(EngineError(.emptyReply), retryable: false))
    }

    @Test func failureAfterResponseBytesIsNotRetryable() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestSent()
        _ = machine.responseBytesReceived()
        let error = EngineError(.receiveFailed(reset, .receivingHead))
        #expect(machine.exchangeFailed(error) == .failExchange(error, retryable: false))
    }

    @Test func timeoutsAreNotRetried() {
        var machine = reusedMachine()
        _ = machine.exchangeStarted(retryable)
        let error = EngineError(.requestTimedOut(.awaitingResponse))
        #expect(machine.exchangeFailed(error) == .failExchange(error, retryable: false))
    }

    @Test func bytesOnAnIdleConnectionCloseIt() {
        var machine = HTTP1ConnectionStateMachine()
        #expect(machine.responseBytesReceived() == .close)
        #expect(machine.exchangeStarted(retryable)
            == .failExchange(EngineError(.internalInconsistency("exchange started on a busy connection")), retryable: true))
    }

    @Test func peerClosingAnIdleConnectionClosesIt() {
        var machine = HTTP1ConnectionStateMachine()
        #expect(machine.peerClosedBeforeResponse(.endOfFile) == .close)
        #expect(machine.peerClosedBeforeResponse(.endOfFile) == .none)
    }

    private func reusedMachine() -> HTTP1ConnectionStateMachine {
        var machine = HTTP1ConnectionStateMachine()
        _ = machine.exchangeStarted(retryable)
        _ = machine.requestSent()
        _ = machine.responseHeadReceived(keepAlive: true)
        _ = machine.responseEnded()
        return machine
    }
}
