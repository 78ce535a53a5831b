import Dispatch
import FerryEngine
import FerryBase
import FerryTLS

/// The session's side of server trust: asks the session delegate's server-trust challenge
/// when there is a delegate, and otherwise (or when it defers) picks the evaluator for the
/// host (per-host first, then the session's, failing closed when asked to) and runs it on the
/// delegate queue, off the event loop, since both are the caller's code.
enum ServerTrustGate {
    /// Asks the session delegate about a challenge; the answer may come from any thread.
    typealias Challenger = @Sendable (AuthenticationChallenge, _ answer: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) -> Void

    /// The engine's check for `configuration`, or nil when only the default rules apply (the
    /// engine then evaluates on its loop, saving a thread hop per new connection).
    static func check(for configuration: SessionConfiguration, queue: DispatchQueue, challenger: Challenger?) -> ServerTrustCheck? {
        let fallback = configuration.serverTrustEvaluator
        let failsClosed = configuration.requiresServerTrustEvaluatorForEveryHost
        var byHost: [String: any ServerTrustEvaluating] = [:]
        for (host, evaluator) in configuration.serverTrustEvaluatorsByHost {
            byHost[Self.normalized(host)] = evaluator
        }
        if fallback == nil, byHost.isEmpty, !failsClosed, challenger == nil { return nil }
        /// Runs the evaluator for the host (on the delegate queue).
        let evaluate: @Sendable (ServerTrust, @escaping @Sendable (ServerTrustError?) -> Void) -> Void = { [byHost] trust, done in
            let evaluator = byHost[Self.normalized(trust.host)] ?? (failsClosed ? nil : fallback ?? DefaultTrustEvaluator())
            guard let evaluator else {
                return done(ServerTrustError(.refused, host: trust.host, detail: "no server trust evaluator is configured for this host"))
            }
            do throws(ServerTrustError) {
                try evaluator.evaluate(trust, forDomain: trust.host)
                done(nil)
            } catch {
                done(error)
            }
        }
        return { trust, port, done in
            queue.async {
                guard let challenger else { return evaluate(trust, done) }
                let space = ProtectionSpace(host: trust.host, port: port, protocol: "https",
                                            authenticationMethod: .serverTrust, serverTrust: trust)
                challenger(AuthenticationChallenge(protectionSpace: space)) { disposition, credential in
                    switch disposition {
                    case .useCredential where credential?.serverTrust != nil:
                        done(nil)
                    case .useCredential:
                        done(ServerTrustError(.refused, host: trust.host,
                                              detail: "the delegate answered the server trust challenge without a server trust credential"))
                    case .performDefaultHandling, .rejectProtectionSpace:
                        // The answer may come from any thread; evaluators run on the delegate queue.
                        queue.async { evaluate(trust, done) }
                    case .cancelAuthenticationChallenge:
                        done(ServerTrustError(.cancelled, host: trust.host, detail: "the session delegate cancelled the server trust challenge"))
                    }
                }
            }
        }
    }

    /// Lower case, without IPv6 brackets: how pool keys and ``ServerTrust/host`` spell hosts.
    private static func normalized(_ host: String) -> String {
        HostName.unbracketed(host).lowercased()
    }
}
