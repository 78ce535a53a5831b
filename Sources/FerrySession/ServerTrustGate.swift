import Dispatch
import FerryEngine
import FerryTLS

/// The session's side of server trust: picks the evaluator for a host (per-host first, then
/// the session's, failing closed when asked to) and runs it on the delegate queue, off the
/// event loop, since an evaluator is the caller's code.
enum ServerTrustGate {
    /// The engine's check for `configuration`, or nil when only the default rules apply (the
    /// engine then evaluates on its loop, saving a thread hop per new connection).
    static func check(for configuration: SessionConfiguration, queue: DispatchQueue) -> ServerTrustCheck? {
        let fallback = configuration.serverTrustEvaluator
        let failsClosed = configuration.requiresServerTrustEvaluatorForEveryHost
        var byHost: [String: any ServerTrustEvaluating] = [:]
        for (host, evaluator) in configuration.serverTrustEvaluatorsByHost {
            byHost[Self.normalized(host)] = evaluator
        }
        if fallback == nil, byHost.isEmpty, !failsClosed { return nil }
        return { [byHost] trust, done in
            queue.async {
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
        }
    }

    /// Lower case, without IPv6 brackets: how pool keys and ``ServerTrust/host`` spell hosts.
    private static func normalized(_ host: String) -> String {
        let bare = host.hasPrefix("[") && host.hasSuffix("]") ? String(host.dropFirst().dropLast()) : host
        return bare.lowercased()
    }
}
