import FerryEngine
import FerryWire
import FoundationEssentials
import HTTPTypes

// A proxy's 407 goes through the same challenge flow as a server's 401
// (SessionTask+Authentication): a forwarding proxy's arrives as the exchange's response; a
// tunnel's arrives as the exchange's failure, before anything reached the server, and the
// answer opens a new tunnel with `Proxy-Authorization` on CONNECT.

extension SessionTask {
    /// The proxy that forwarded `request` (an http request through a proxy), if any.
    func forwardingProxy(of request: NetworkRequest) -> ChallengingProxy? {
        guard let route = proxyRoute(of: request), !route.isTunnel else { return nil }
        return route
    }

    /// The proxy `request` goes through, and whether through a tunnel.
    private func proxyRoute(of request: NetworkRequest) -> ChallengingProxy? {
        let url = request.url
        guard let scheme = url.scheme?.lowercased(), let host = url.host(percentEncoded: false),
              let server = try? session.proxies.proxy(scheme: scheme, host: host) else { return nil }
        return ChallengingProxy(server: server, isTunnel: scheme == "https")
    }

    /// The proxy's answer when `error` is a refused tunnel: its head, and as a response for
    /// the caller.
    func proxyRefusal(in error: EngineError) -> (head: ResponseHead, response: NetworkResponse)? {
        guard case .proxyFailed(let failure) = error.kind, let head = failure.refusal else { return nil }
        let response = NetworkResponse(url: runningRequestURL, status: head.status, headerFields: head.headerFields,
                                       httpVersion: head.version.description)
        return (head, response)
    }

    /// The proxy refused a tunnel: a 407 this task answers goes to the challenge flow, and
    /// the task waits for the decision with no exchange running.
    /// - Returns: Whether the challenge is being answered (the task does not end now).
    func answersTunnelChallenge(_ refusal: (head: ResponseHead, response: NetworkResponse), error: EngineError,
                                metrics: ExchangeMetrics) -> Bool {
        let status = refusal.head.status.code
        engineSide.exchangeStatus = status
        let request = runningRequest
        if engineSide.authentication.awaitsVerdict { authenticationAnswered(status: status, for: request) }
        guard status == 407, let proxy = proxyRoute(of: request), proxy.isTunnel,
              handleChallenge(refusal.head, response: refusal.response, request: request, proxy: proxy) != nil else {
            return false
        }
        engineSide.endedWhileAsking = EndedExchange(error: error, metrics: metrics)
        return true
    }

    /// The task was cancelled: a challenge being decided after its exchange ended has no
    /// exchange to cancel, so the task ends here. On the exchange's loop.
    func cancelWhileAskingWithoutExchange() {
        guard engineSide.endedWhileAsking != nil, case .asking = engineSide.followUp else { return }
        let ended = engineSide.endedWhileAsking
        engineSide.endedWhileAsking = nil
        if let ended { followUpExchangeEnded(.asking, metrics: ended.metrics) }
    }
}

/// An exchange that failed while the delegate decides how to answer it (a proxy's 407 to
/// CONNECT): its error, should the answer be none, and its metrics. A class: a task keeps a
/// reference, one word, so the task object still fits malloc's per-thread cache.
final class EndedExchange {
    let error: EngineError
    let metrics: ExchangeMetrics

    init(error: EngineError, metrics: ExchangeMetrics) {
        self.error = error
        self.metrics = metrics
    }
}
