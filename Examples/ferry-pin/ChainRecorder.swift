import Ferry
import Synchronization

/// A server trust evaluator that keeps the chain it is shown and then refuses the connection.
///
/// The session asks its evaluator after the TLS handshake and before the first request byte;
/// refusing there closes the connection with nothing sent, so `ferry-pin --connect` inspects a
/// server without making an HTTP request (and accepts any chain for display).
final class ChainRecorder: ServerTrustEvaluating {
    private let recorded = Mutex<ServerTrust?>(nil)

    /// The trust of the first handshake, once there was one.
    var trust: ServerTrust? { recorded.withLock { $0 } }

    /// Keeps `trust`, then refuses.
    /// - Throws: always, ``ServerTrustError`` `.refused`, so that no request is sent.
    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        recorded.withLock { if $0 == nil { $0 = trust } }
        throw ServerTrustError(.refused, host: trust.host, detail: "ferry-pin only inspects the certificate chain")
    }
}
