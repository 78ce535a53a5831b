/// Decides whether a server's certificate chain is acceptable, after the TLS handshake and
/// before a single request byte is written.
///
/// The session asks its evaluator once per new TLS connection (redirects and retries
/// included). It runs off the event loop, on the session's delegate queue, so it may take its
/// time; the connection waits. Throwing closes the connection with zero bytes of application
/// data sent, and the request fails with the error.
public protocol ServerTrustEvaluating: Sendable {
    /// Accepts `trust` by returning, refuses it by throwing.
    ///
    /// - Parameters:
    ///   - trust: the chain the server sent, its host and the default evaluation's result.
    ///   - domain: the host the request is for (normally `trust.host`).
    /// - Throws: ``ServerTrustError`` saying why the server is refused.
    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError)
}

/// The evaluator a session uses when none is set: the chain must lead to an anchor of the
/// trust store (the system roots unless configured otherwise) and name the host.
public struct DefaultTrustEvaluator: ServerTrustEvaluating {
    /// Creates the default evaluator.
    public init() {}

    /// Accepts `trust` when its default evaluation passed for `domain`.
    ///
    /// - Parameters:
    ///   - trust: the server's chain.
    ///   - domain: the host the request is for; when it is not `trust.host`, the chain is
    ///     evaluated again for it.
    /// - Throws: ``TLSErrorKind/untrusted`` with the ``TrustFailure``.
    public func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        let failure = domain == trust.host
            ? trust.defaultEvaluationFailure
            : trust.verification(policy: .tlsServer(host: domain), anchors: nil).failure
        if let failure {
            throw .untrusted(failure, host: domain)
        }
    }
}
