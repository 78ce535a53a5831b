import FerryEngine
import FerryIO
import FerryWire
import FoundationEssentials
import HTTPTypes
import Synchronization

/// What a redirect response leads to, once its head arrived.
enum RedirectStep {
    /// The delegate decides (``SessionTaskDelegate/session(_:task:willPerformHTTPRedirection:newRequest:completionHandler:)``).
    case asking
    /// The next exchange sends this request.
    case follow(NetworkRequest)
    /// The task fails.
    case fail(RedirectFailure)
}

// Redirects (RFC 9110 §15.4), as URLSession and `curl -L`: `RedirectPolicy` decides from the
// response head; the 3xx body is read and dropped (the connection stays reusable), then the
// same task runs the next exchange. A task delegate may change or refuse the new request.

extension SessionTask {
    /// Whether the response head is a redirect this task deals with itself: then its body is
    /// dropped and the task goes on, or fails, when the exchange ends.
    /// - Returns: nil when the response is the task's; else what the engine should do.
    func handleRedirect(_ head: ResponseHead, response: NetworkResponse, request: NetworkRequest) -> BodyDemand? {
        let outcome = RedirectPolicy.decide(
            status: head.status.code, location: head.headerFields[.location], request: request,
            followed: engineSide.redirectsFollowed, configuration: session.configuration)
        switch outcome {
        case .deliver:
            return nil
        case .fail(let failure):
            engineSide.redirect = .fail(failure)
            return .more
        case .follow(let next):
            guard let delegate = engineSide.delegate else {
                engineSide.redirect = .follow(next)
                return .more
            }
            // Nothing of the body is read while the delegate decides.
            engineSide.redirect = .asking
            let demand = core.withLock { $0.machine.headReceived(needsDecision: true) }
            toDelegate { [self] in
                delegate.session(session, task: self, willPerformHTTPRedirection: response, newRequest: next) { [self] chosen in
                    redirectDecided(chosen, response: response, head: head)
                }
            }
            switch demand {
            case .more: return .more
            case .pause: return .pause
            }
        }
    }

    /// The delegate answered: follow `chosen`, or (nil) take the 3xx as the task's response.
    private func redirectDecided(_ chosen: NetworkRequest?, response: NetworkResponse, head: ResponseHead) {
        guard let handle = core.withLock({ $0.handle }) else { return }
        handle.onLoop { [self] in
            guard case .asking = engineSide.redirect else { return }
            if let chosen {
                engineSide.redirect = .follow(chosen)
                run(core.withLock { $0.machine.responseAllowed() })
            } else {
                engineSide.redirect = nil
                let demand = deliverHead(response)
                // Reading resumes unless the data delegate now decides about this response.
                if demand == .more { run(core.withLock { $0.machine.responseAllowed() }) }
            }
        }
    }

    /// The exchange whose response was a redirect ended: the next one starts, or the task fails.
    func redirectExchangeEnded(_ step: RedirectStep, metrics: ExchangeMetrics) {
        let taskMetrics = recordMetrics(metrics)
        engineSide.redirect = nil
        switch step {
        case .asking:
            exchangeEnded(.failure(NetworkError(EngineError(.internalInconsistency("ended while the delegate decided")),
                                                url: originalRequest.url)), metrics: taskMetrics)
        case .fail(let failure):
            exchangeEnded(.failure(NetworkError(SessionFailure.redirect(failure), url: currentRequest.url)), metrics: taskMetrics)
        case .follow(let next):
            engineSide.redirectsFollowed += 1
            let action = core.withLock { core -> TaskStateMachine.Action in
                core.replacedRequest = next
                core.handle = nil
                return core.machine.redirect()
            }
            switch action {
            case .startExchange:
                startExchange(next)
            case .completeCancelled:
                run(.completeCancelled)
            case .none, .resumeReading, .cancelExchange, .complete:
                break
            }
        }
    }
}
