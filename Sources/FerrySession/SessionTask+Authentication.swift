import Dispatch
import FerryBase
import FerryEngine
import FerryWire
import FoundationEssentials
import HTTPTypes
import Synchronization

// HTTP authentication (RFC 9110 §11; Basic, RFC 7617; Digest, RFC 7616), as URLSession: a 401
// whose challenge Ferry can answer goes to the task delegate's
// `session(_:task:didReceive:completionHandler:)`, or, without a delegate, to the default
// handling, which answers with the proposed credential (the request's own, the URL's user
// information, or the credential storage's default for the protection space) unless it already
// failed. The 401's body is dropped and the same task sends the request again with
// `Authorization` (SessionTask+FollowUp). A refused credential is not sent again: the next 401
// is the task's response. A delegate that rejects the protection space is asked about the next
// one the 401 offered (Basic after Digest).

/// A challenge being answered: what the answer needs once the delegate decided.
struct ChallengeAnswer: Sendable {
    /// The challenge picked among the response's.
    var chosen: ChosenAuthChallenge
    /// What the delegate is asked.
    var challenge: AuthenticationChallenge
    /// The request the 401 answered.
    var request: NetworkRequest
    /// Digest `stale=true` after this task's own answer: the nonce was refused, not the credential.
    var isStaleRetry: Bool
    /// The proxy that asked (407), or nil for the server (401).
    var proxy: ChallengingProxy?
}

/// One protection space a challenge offers, with what this task tried for it: what the
/// delegate is asked about it needs, gathered on the loop.
struct ChallengeQuestion: Sendable {
    /// The challenge for the space.
    var chosen: ChosenAuthChallenge
    /// The space.
    var space: ProtectionSpace
    /// What this task sent for the space before, if anything.
    var previous: TaskAuthentication.Attempt?
    /// How often that failed.
    var failures: Int
    /// Digest `stale=true` after this task's own answer: the nonce was refused, not the credential.
    var isStaleRetry: Bool

    /// `counted`: the running request's answer for `space` was just refused.
    init(chosen: ChosenAuthChallenge, space: ProtectionSpace, counted: Bool, authentication: TaskAuthentication) {
        self.chosen = chosen
        self.space = space
        previous = authentication.attempt(for: space)
        isStaleRetry = counted && chosen.isStale
            && previous.map { $0.staleRetries < TaskAuthentication.maximumStaleRetries } == true
        failures = max(0, (previous?.failures ?? 0) - (isStaleRetry ? 1 : 0))
    }
}

/// A proxy that answered 407: to a request it forwards, or to CONNECT.
struct ChallengingProxy: Sendable, Equatable {
    /// The proxy.
    var server: ProxyServer
    /// It refused a tunnel (an https request), rather than a forwarded http request.
    var isTunnel: Bool

    /// The method and URI a Digest answer covers: CONNECT and `host:port` for a tunnel, else
    /// the request's method and its absolute-form target.
    func digestTarget(of request: NetworkRequest) -> (String, String) {
        let url = request.url
        guard isTunnel else { return (request.method.rawValue, RequestPreparation.absoluteFormTarget(of: url)) }
        // CONNECT's authority comes from the pool key, whose host is lower-cased.
        let host = String(HostName.unbracketed(url.host(percentEncoded: false) ?? "")).lowercased()
        return ("CONNECT", HostName.authority(host, port: url.port ?? 443))
    }
}

extension SessionTask {
    /// Whether a 401 from the server, or a 407 from the proxy `proxy` (a forwarding proxy's
    /// response, or its refusal of a tunnel), is a challenge this task answers itself: then
    /// its body is dropped and the request is sent again with an answer when the exchange ends.
    /// - Returns: nil when the response is the task's; else what the engine should do.
    func handleChallenge(_ head: ResponseHead, response: NetworkResponse, request: NetworkRequest,
                         proxy: ChallengingProxy? = nil) -> BodyDemand? {
        let configuration = session.configuration
        let challenges = HTTPAuthChallenge.parse(head.headerFields[values: proxy == nil ? .wwwAuthenticate : .proxyAuthenticate])
        guard !challenges.isEmpty, let schemes = HTTPAuthSchemeChoice(configuration.httpAuthenticationMethods),
              let chosen = try? HTTPAuthChallenge.choose(from: challenges, allowing: schemes) else { return nil }
        func space(of chosen: ChosenAuthChallenge) -> ProtectionSpace {
            proxy.map { ProtectionSpace(proxy: $0, chosen) } ?? ProtectionSpace(challengedBy: request.url, chosen)
        }
        // The next space the server offered, for a delegate that rejects the first: Basic
        // after Digest (the only two schemes, tried strongest first).
        let next: ChosenAuthChallenge? = if case .digest = chosen, schemes == .strongest {
            try? HTTPAuthChallenge.choose(from: challenges, allowing: .basicOnly)
        } else { nil }
        let choices = [chosen] + (next.map { [$0] } ?? [])
        let offered = choices.map(space(of:))
        // A Basic answer sent up front that earned this 401 (or 407) is forgotten, and counts as tried.
        if let proxy {
            session.proxies.forgetAuthorization(forProxyAt: proxy.server.host, port: proxy.server.port)
            // The proxy URL's credential went up front as Basic (RequestPreparation.upFrontAuthorization):
            // a Basic challenge refused it, and it counts as tried, as a server's up-front answer
            // does. (A Digest challenge did not see it: the credential may answer that one.)
            if case .basic = chosen, request.headerFields[.proxyAuthorization] == nil, let credential = proxy.server.credential,
               let sent = try? RequestPreparation.upFrontAuthorization(for: proxy.server, remembered: nil) {
                engineSide.authentication.sendingUpFront(.init(authorization: sent, space: offered[0], credential: credential))
            }
        } else if let upFront = engineSide.authentication.sentUpFront {
            session.preemptiveAuthentication.forget(upFront)
        }
        let failed = engineSide.authentication.challenged(offering: offered)
        // A server that keeps asking whatever it is told gets its 401 delivered.
        guard engineSide.authentication.answers < TaskAuthentication.maximumAnswers else { return nil }
        let delegate = engineSide.delegate
        // A stream cannot be read twice, and without a delegate nothing gives a new one.
        if delegate == nil && request.body?.isStream == true { return nil }
        let questions = zip(choices, offered).map { chosen, space in
            ChallengeQuestion(chosen: chosen, space: space, counted: failed == space, authentication: engineSide.authentication)
        }
        // Nothing of the body is read while the answer is chosen, off the loop: the credential
        // storage may read its file, and the delegate's code never runs here.
        let demand = awaitDecision()
        toDelegate { [self] in
            ask(delegate, questions[...], response: response, request: request, proxy: proxy)
        }
        return demand
    }

    /// Asks `delegate` (on the delegate queue) about the first of `questions`, or answers it as
    /// the default handling does without one. A delegate that rejects the protection space is
    /// asked about the next one the server offered, as URLSession does; after the last, the
    /// 401 (or 407) is the task's.
    private func ask(_ delegate: (any SessionTaskDelegate)?, _ questions: ArraySlice<ChallengeQuestion>,
                     response: NetworkResponse, request: NetworkRequest, proxy: ChallengingProxy?) {
        guard let question = questions.first else { return resumeAfterDecision(response: response) { nil } }
        let own = proxy.map { $0.server.credential } ?? request.credential ?? Self.userInformation(of: request.url)
        let proposed = question.previous?.credential ?? own
            ?? session.configuration.urlCredentialStorage?.defaultCredential(for: question.space)
        let challenge = AuthenticationChallenge(protectionSpace: question.space, proposedCredential: proposed,
                                                previousFailureCount: question.failures, failureResponse: response)
        let answer = ChallengeAnswer(chosen: question.chosen, challenge: challenge, request: request,
                                     isStaleRetry: question.isStaleRetry, proxy: proxy)
        guard let delegate else {
            return resumeAfterDecision(response: response) { [self] in followUp(answering: answer, .performDefaultHandling, nil) }
        }
        delegate.session(session, task: self, didReceive: challenge) { [self] disposition, credential in
            if disposition == .cancelAuthenticationChallenge { return cancel() }
            if disposition == .rejectProtectionSpace {
                // Answered from any thread; a task cancelled meanwhile asks nothing more.
                return session.delegateQueue.async { [self] in
                    guard case .running = core.withLock({ $0.machine.state }) else { return }
                    ask(delegate, questions.dropFirst(), response: response, request: request, proxy: proxy)
                }
            }
            guard request.body?.isStream == true else {
                return resumeAfterDecision(response: response) { [self] in followUp(answering: answer, disposition, credential) }
            }
            // The answer needs the body again: a new stream from the delegate, or the 401 stands.
            withReplayableBody(request, asking: delegate) { [self] ready in
                resumeAfterDecision(response: response) { [self] in
                    guard let ready else { return nil }
                    var replayed = answer
                    replayed.request = ready
                    return followUp(answering: replayed, disposition, credential)
                }
            }
        }
    }

    /// The next request, answering the challenge as `disposition` says; nil delivers the 401.
    private func followUp(answering answer: ChallengeAnswer, _ disposition: AuthChallengeDisposition,
                          _ given: Credential?) -> FollowUp? {
        let challenge = answer.challenge
        let credential: Credential?
        switch disposition {
        case .useCredential: credential = given
        // The proposed credential, unless it failed already (a stale nonce is no failure).
        case .performDefaultHandling: credential = challenge.previousFailureCount == 0 ? challenge.proposedCredential : nil
        case .rejectProtectionSpace, .cancelAuthenticationChallenge: credential = nil
        }
        guard let credential, let user = credential.user, let password = credential.password else { return nil }
        let space = challenge.protectionSpace
        // The same credential refused again is not sent a third time.
        if challenge.previousFailureCount > 0, let tried = engineSide.authentication.attempt(for: space)?.credential,
           tried.user == user, tried.password == password {
            return nil
        }
        let value: String
        do throws(AuthenticationFailure) {
            switch answer.chosen {
            case .basic:
                value = try BasicAuthentication.authorization(user: user, password: password)
            case .digest(let digest):
                // RFC 7616 §3.4: the method and request target as sent (CONNECT's is host:port).
                let (method, uri) = answer.proxy?.digestTarget(of: answer.request)
                    ?? (answer.request.method.rawValue, RequestPreparation.target(of: answer.request.url))
                value = try digest.authorization(user: user, password: password, method: method, uri: uri, nonceCount: 1,
                                                 cnonce: DigestChallenge.makeClientNonce())
            }
        } catch {
            return .fail(NetworkError(SessionFailure.authentication(error), url: answer.request.url))
        }
        // The very answer just refused (a header the caller set) is not sent again.
        let field: HTTPField.Name = answer.proxy == nil ? .authorization : .proxyAuthorization
        if answer.request.headerFields[field] == value { return nil }
        var next = answer.request
        next.headerFields[field] = value
        engineSide.authentication.answering(space, with: credential, stale: answer.isStaleRetry)
        return .send(next, isRedirect: false)
    }

    /// The response to an answered challenge came; below 400, the credential worked. It is
    /// kept in the credential storage (unless its persistence is `.none`; off the loop, as
    /// the storage may write its file), and a Basic answer from such a credential goes with
    /// later requests to the same place before they are challenged (RFC 7617 §2.2).
    func authenticationAnswered(status: Int, for request: NetworkRequest) {
        guard let attempt = engineSide.authentication.answered(status: status) else { return }
        let credential = attempt.credential
        guard credential.persistence != .none else { return }
        if let storage = session.configuration.urlCredentialStorage {
            session.delegateQueue.async {
                storage.set(credential, for: attempt.space)
                if storage.defaultCredential(for: attempt.space) == nil { storage.setDefaultCredential(credential, for: attempt.space) }
            }
        }
        if attempt.space.isProxy {
            if attempt.space.authenticationMethod == .httpBasic, let value = request.headerFields[.proxyAuthorization] {
                session.proxies.remember(value, forProxyAt: attempt.space.host, port: attempt.space.port)
            }
        } else if attempt.space.authenticationMethod == .httpBasic, let value = request.headerFields[.authorization] {
            session.preemptiveAuthentication.remember(value, for: request.url, space: attempt.space, credential: credential)
        }
    }

    /// The user name and password of a URL (`http://user:password@host/`): offered to the
    /// URL's own origin when it asks, kept for this request only.
    static func userInformation(of url: URL) -> Credential? {
        guard let user = url.user(percentEncoded: false), !user.isEmpty else { return nil }
        return Credential(user: user, password: url.password(percentEncoded: false) ?? "", persistence: .none)
    }
}

extension ProtectionSpace {
    /// The space a challenge from `url`'s server names.
    init(challengedBy url: URL, _ chosen: ChosenAuthChallenge) {
        let origin = Origin(url)
        self.init(host: origin.host, port: origin.port, protocol: origin.scheme, realm: chosen.realm,
                  authenticationMethod: chosen.authenticationMethod)
    }
}

extension ProtectionSpace {
    /// The space of a proxy's challenge: the proxy's host and port, `http` for a proxy that
    /// forwards http requests, `https` for one that tunnels https requests (Foundation's
    /// `NSURLProtectionSpaceHTTPProxy` and `…HTTPSProxy`).
    init(proxy: ChallengingProxy, _ chosen: ChosenAuthChallenge) {
        self.init(host: proxy.server.host, port: proxy.server.port, protocol: proxy.isTunnel ? "https" : "http",
                  realm: chosen.realm, authenticationMethod: chosen.authenticationMethod, isProxy: true)
    }
}

extension HTTPAuthSchemeChoice {
    /// The choice the configured methods allow; nil when they allow neither Basic nor Digest.
    init?(_ methods: Set<AuthenticationMethod>) {
        switch (methods.contains(.httpBasic), methods.contains(.httpDigest)) {
        case (true, true): self = .strongest
        case (true, false): self = .basicOnly
        case (false, true): self = .digestOnly
        case (false, false): return nil
        }
    }
}

extension ChosenAuthChallenge {
    /// Digest's `stale=true`: the nonce expired, the credential was right.
    var isStale: Bool {
        guard case .digest(let digest) = self else { return false }
        return digest.isStale
    }
}
