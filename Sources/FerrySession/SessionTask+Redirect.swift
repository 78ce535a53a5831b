import FerryEngine
import FerryIO
import FerryWire
import FoundationEssentials
import HTTPTypes
import Synchronization

// Redirects (RFC 9110 §15.4), as URLSession and `curl -L`: `RedirectPolicy` decides from the
// response head; the 3xx body is read and dropped (the connection stays reusable), then the
// same task runs the next exchange (SessionTask+FollowUp). A task delegate may change or
// refuse the new request.

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
            // The error carries the 3xx it could not follow, as its metrics name its URL.
            engineSide.followUp = .fail(NetworkError(SessionFailure.redirect(failure), url: request.url).attaching(response: response))
            return .more
        case .follow(let next):
            guard let delegate = engineSide.delegate else { return sendNext(next, isRedirect: true) }
            // Nothing of the body is read while the delegate decides.
            let demand = awaitDecision()
            toDelegate { [self] in
                delegate.session(session, task: self, willPerformHTTPRedirection: response, newRequest: next) { [self] chosen in
                    guard let chosen else { return resumeAfterDecision(response: response) { nil } }
                    // The delegate's request is still a redirect for the transport security policy.
                    if let refusal = session.configuration.transportSecurity.refusal(of: chosen.url, isRedirect: true) {
                        return resumeAfterDecision(response: response) {
                            .fail(NetworkError(SessionFailure.redirect(.refusedByPolicy(refusal)), url: chosen.url)
                                .attaching(response: response))
                        }
                    }
                    sendAfterDecision(chosen, asking: delegate, response: response, isRedirect: true)
                }
            }
            return demand
        }
    }
}
