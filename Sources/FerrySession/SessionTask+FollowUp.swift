import FerryBase
import Dispatch
import FerryEngine
import FerryIO
import FoundationEssentials
import HTTPTypes
import Synchronization

/// What a response the task answers itself (a redirect, an authentication challenge) leads
/// to, once its head arrived. Its body is read and dropped meanwhile, so the connection stays
/// reusable, and the next exchange starts when this one ends. Indirect: a word in every task,
/// its request allocated only when a follow-up happens.
indirect enum FollowUp {
    /// The delegate decides (a redirect or a challenge); nothing of the body is read meanwhile.
    case asking
    /// The next exchange sends this request; `isRedirect` counts it against the redirect limit.
    case send(NetworkRequest, isRedirect: Bool)
    /// The task fails with this error.
    case fail(NetworkError)
    /// The task succeeds with what its output holds (a continued download found complete).
    case finish
}

extension SessionTask {
    /// The exchange whose response was answered by a follow-up ended: the next one starts, or
    /// the task fails.
    func followUpExchangeEnded(_ step: FollowUp, metrics: ExchangeMetrics) {
        let taskMetrics = recordMetrics(metrics)
        engineSide.followUp = nil
        switch step {
        case .asking:
            // The body ran out while the delegate decided: a task cancelled meanwhile ends so.
            let cancelled = core.withLock { $0.machine.publicState == .canceling }
            let error = cancelled ? NetworkError(SessionFailure.cancelled, url: originalRequest.url)
                : NetworkError(EngineError(.internalInconsistency("ended while the delegate decided")), url: originalRequest.url)
            exchangeEnded(.failure(error), metrics: taskMetrics)
        case .fail(let error):
            exchangeEnded(.failure(error), metrics: taskMetrics)
        case .finish:
            completeWithOutput(metrics: taskMetrics)
        case .send(let next, let isRedirect):
            if isRedirect { engineSide.redirectsFollowed += 1 }
            engineSide.requestReplaced = true
            let action = core.withLock { core -> TaskStateMachine.Action in
                core.replacedRequest = next
                core.handle = nil
                return core.machine.nextExchange()
            }
            switch action {
            case .startExchange:
                startExchange(next)
            case .completeCancelled:
                run(.completeCancelled)
            case .none, .resumeReading, .deliverHeldHead, .cancelExchange, .complete:
                break
            }
        }
    }

    /// A 417 answering the `Expect: 100-continue` the engine added (RFC 9110 §10.1.1: the
    /// server will not take the request with that expectation): the request goes again
    /// without it, once, as curl's does. Its body was held, so nothing of it was sent. A
    /// stream's source was let go when the exchange ended, so without a delegate to give a
    /// new one (as after a 307) the 417 is the task's.
    /// - Returns: nil when the response is the task's; else what the engine should do.
    func retryWithoutExpectation(_ request: NetworkRequest, response: NetworkResponse) -> BodyDemand? {
        guard !engineSide.expectationRefused else { return nil }
        engineSide.expectationRefused = true
        guard let delegate = engineSide.delegate, request.body?.isStream == true else {
            return sendNext(request, isRedirect: false)
        }
        let demand = awaitDecision()
        sendAfterDecision(request, asking: delegate, response: response, isRedirect: false)
        return demand
    }

    /// `request` goes once this exchange ends, no delegate asked: nil when its body is a stream,
    /// which cannot be read twice (the response is then the task's).
    func sendNext(_ request: NetworkRequest, isRedirect: Bool) -> BodyDemand? {
        if request.body?.isStream == true { return nil }
        engineSide.followUp = .send(request, isRedirect: isRedirect)
        return .more
    }

    /// `request` goes once this exchange ends, as the delegate decided (from any thread): a
    /// stream body is asked for again first, and without a new one the response is the task's.
    func sendAfterDecision(_ request: NetworkRequest, asking delegate: any SessionTaskDelegate,
                           response: NetworkResponse, isRedirect: Bool) {
        withReplayableBody(request, asking: delegate) { [self] ready in
            resumeAfterDecision(response: response) { ready.map { .send($0, isRedirect: isRedirect) } }
        }
    }

    /// `request` with a body that can be sent again: a stream was read by the exchange that
    /// ran, so the delegate is asked for a new one (URLSession's `needNewBodyStream`); nil when
    /// it gives none (the response is then the task's). `answer` may run on any thread.
    func withReplayableBody(_ request: NetworkRequest, asking delegate: any SessionTaskDelegate,
                            _ answer: @escaping @Sendable (NetworkRequest?) -> Void) {
        guard request.body?.isStream == true else { return answer(request) }
        session.delegateQueue.async { [self] in
            delegate.session(session, task: self, needNewBodyStream: { body in
                guard let body else { return answer(nil) }
                var next = request
                // The new stream is the same body again: a throttled one keeps its cap.
                next.body = body.maximumBytesPerSecond == nil
                    ? body.limited(toBytesPerSecond: request.body?.maximumBytesPerSecond) : body
                answer(next)
            })
        }
    }

    /// Waits for the delegate's decision about a response head: nothing of its body is read
    /// until ``resumeAfterDecision(response:_:)``.
    func awaitDecision() -> BodyDemand {
        engineSide.followUp = .asking
        switch core.withLock({ $0.machine.headReceived(needsDecision: true) }) {
        case .more: return .more
        case .pause: return .pause
        }
    }

    /// The delegate decided (from any thread): on the exchange's loop, `decide` says what
    /// follows: a follow-up, or with nil the response is delivered as the task's own.
    func resumeAfterDecision(response: NetworkResponse, _ decide: @escaping @Sendable () -> FollowUp?) {
        guard let handle = core.withLock({ $0.handle }) else { return }
        handle.onLoop { [self] in
            guard case .asking = engineSide.followUp else { return }
            if let ended = engineSide.endedWhileAsking {
                // No exchange to read on: the answer starts the next one, or the failure stands.
                engineSide.endedWhileAsking = nil
                let step = decide() ?? .fail(NetworkError(ended.error, url: originalRequest.url).attaching(response: response))
                return followUpExchangeEnded(step, metrics: ended.metrics)
            }
            if let step = decide() {
                engineSide.followUp = step
                run(core.withLock { $0.machine.responseAllowed() })
            } else {
                engineSide.followUp = nil
                // The response is the task's: a continued download's is judged first.
                if let demand = handleContinuation(response) {
                    if case .stop(let error) = demand { return handle.stop(error) }
                    return run(core.withLock { $0.machine.responseAllowed() })
                }
                let demand = deliverHead(response)
                // Reading resumes unless the data delegate now decides about this response.
                if demand == .more { run(core.withLock { $0.machine.responseAllowed() }) }
            }
        }
    }
}
