import FoundationEssentials
import CFerryShims
import COpenSSL

/// What a server presented in the TLS handshake, for a trust evaluator to judge: the Linux
/// stand-in for Apple's `SecTrust`.
///
/// The default evaluation runs once, in the initializer: the chain must lead to an anchor of
/// ``trustStore`` (up to a self-signed root of it when there is one, else to any certificate
/// in it, as curl and Apple treat anchors) and name ``host`` (``defaultEvaluationFailure``).
/// Evaluators that want something else call ``evaluate(validatingHost:)`` or
/// ``evaluate(anchoredOn:validatingHost:)``.
///
/// Hostname rules (RFC 6125 §6.4): the host is matched against the leaf's subject alternative
/// names only (DNS names, or IP addresses when the host is an IP literal); the subject CN is
/// never used as a fallback, as Apple and browsers do. A wildcard counts only as the whole
/// left-most label and matches exactly one label; following OpenSSL (and curl), a wildcard
/// with fewer than two labels after it (`*.localhost`, `*.com`) matches nothing. Validity
/// periods are checked at the time of each evaluation.
public struct ServerTrust: Sendable {
    /// The name the client connected to: a DNS name or an IP literal (no brackets).
    public let host: String
    /// The certificates the server sent, leaf first, as sent.
    public let certificates: [Certificate]
    /// The anchors of the default evaluation.
    public let trustStore: TrustStore
    /// Why the default evaluation failed (a valid chain to ``trustStore`` that names
    /// ``host``), or nil when it passed. Computed once, when the trust is created.
    public let defaultEvaluationFailure: TrustFailure?

    /// The peer chain as OpenSSL objects, parsed once.
    private let chain: X509Chain?
    /// The chain OpenSSL built in the default evaluation (up to the anchor of the store).
    private let defaultBuiltChain: X509Chain?

    /// True when the default evaluation passed.
    public var isTrustedByDefault: Bool { defaultEvaluationFailure == nil }

    /// Creates a trust for `certificates` sent by `host` and runs the default evaluation
    /// (a TLS-server chain to `trustStore`, with the host checked).
    ///
    /// - Parameters:
    ///   - host: the DNS name or IP literal the client connected to.
    ///   - certificates: the server's chain, leaf first.
    ///   - trustStore: the anchors of the default evaluation.
    public init(host: String, certificates: [Certificate], trustStore: TrustStore) {
        self.init(host: host, certificates: certificates, chain: X509Chain(certificates: certificates), trustStore: trustStore)
    }

    /// Creates a trust for the chain OpenSSL received in a handshake and runs the default
    /// evaluation.
    ///
    /// - Parameters:
    ///   - host: the DNS name or IP literal the client connected to.
    ///   - peerChain: the `STACK_OF(X509)*` of `SSL_get_peer_cert_chain` (leaf first, borrowed:
    ///     the trust takes its own references).
    ///   - trustStore: the anchors of the default evaluation.
    /// - Throws: ``CertificateError/Kind-swift.struct/noCertificate`` when the chain is empty,
    ///   or the error of a certificate that cannot be read.
    package init(host: String, peerChain: OpaquePointer, trustStore: TrustStore) throws(CertificateError) {
        guard let chain = X509Chain(upRefOf: peerChain) else {
            throw CertificateError(.invalidField, detail: "cannot copy the peer chain: \(OpenSSLSupport.drainErrors())")
        }
        guard chain.count > 0 else {
            throw CertificateError(.noCertificate, detail: "the server sent no certificate")
        }
        var certificates: [Certificate] = []
        certificates.reserveCapacity(chain.count)
        for index in 0..<chain.count {
            guard let x509 = chain[index] else { continue }
            certificates.append(try Certificate(x509: x509))
        }
        self.init(host: host, certificates: certificates, chain: chain, trustStore: trustStore)
    }

    private init(host: String, certificates: [Certificate], chain: X509Chain?, trustStore: TrustStore) {
        self.host = host
        self.certificates = certificates
        self.trustStore = trustStore
        self.chain = chain
        let outcome = Self.verify(chain, store: trustStore, anchors: nil, policy: .tlsServer(host: host))
        self.defaultEvaluationFailure = outcome.failure
        self.defaultBuiltChain = outcome.builtChain
    }

    /// When the default evaluation's verdict holds: the overlap of the validity periods of the
    /// path it built (nil when it refused the chain).
    var defaultPathValidity: (from: Date, until: Date)? {
        guard defaultEvaluationFailure == nil else { return nil }
        return defaultBuiltChain?.validityOverlap
    }

    /// Evaluates the chain against ``trustStore``, at the current time.
    ///
    /// - Parameter validatingHost: true for a TLS-server check that names ``host`` (the
    ///   default evaluation); false for the basic X.509 check (signatures, validity, basic
    ///   constraints; no host, no TLS purpose), as Apple's `SecPolicyCreateBasicX509`.
    /// - Returns: nil when the chain is trusted, else why not.
    public func evaluate(validatingHost: Bool) -> TrustFailure? {
        verification(policy: validatingHost ? .tlsServer(host: host) : .basic, anchors: nil).failure
    }

    /// Evaluates the chain against `anchors` ONLY (neither ``trustStore`` nor the system roots),
    /// where any anchor counts, not only a self-signed root: a pinned leaf or intermediate is
    /// a valid anchor (OpenSSL's `X509_V_FLAG_PARTIAL_CHAIN`), as Apple's
    /// `SecTrustSetAnchorCertificates`. Anchors are matched by their exact bytes.
    ///
    /// - Parameters:
    ///   - anchors: the only certificates to trust; empty trusts nothing.
    ///   - validatingHost: as in ``evaluate(validatingHost:)``.
    /// - Returns: nil when the chain is trusted, else why not.
    public func evaluate(anchoredOn anchors: [Certificate], validatingHost: Bool) -> TrustFailure? {
        verification(policy: validatingHost ? .tlsServer(host: host) : .basic, anchors: anchors).failure
    }

    /// Verifies the chain under `policy`, against `anchors` alone (as a partial chain, where a
    /// pinned leaf or intermediate is an anchor) or, when nil, against ``trustStore``; reuses
    /// the default evaluation when it asked the same.
    ///
    /// - Parameters:
    ///   - policy: what to check: the basic X.509 rules, or a TLS server (with a host or none).
    ///   - anchors: the only certificates to trust, or nil for ``trustStore``.
    /// - Returns: the failure, if any, and the chain OpenSSL built.
    public func verification(policy: TrustPolicy, anchors: [Certificate]?) -> TrustVerification {
        if anchors == nil, policy == .tlsServer(host: host) {
            return TrustVerification(failure: defaultEvaluationFailure,
                                     chain: defaultBuiltChain?.certificates(reusing: certificates) ?? [])
        }
        let outcome = Self.verify(chain, store: trustStore, anchors: anchors, policy: policy)
        return TrustVerification(failure: outcome.failure, chain: outcome.builtChain?.certificates(reusing: certificates) ?? [])
    }

    private static func verify(_ chain: X509Chain?, store: TrustStore, anchors: [Certificate]?, policy: TrustPolicy) -> ChainVerification {
        guard let chain, chain.count > 0 else {
            // An empty chain (or one OpenSSL could not hold): nothing to verify.
            let failure = TrustFailure(.invalidCertificate, verifyCode: X509_V_ERR_UNSPECIFIED)
            return ChainVerification(failure: failure, builtChain: nil)
        }
        guard let anchors else {
            let mayReachARoot = store.holdsSelfSignedCertificate
            return store.withStore { store in
                // The path up to a self-signed root of the store when there is one (what
                // public-key pins are looked for on); else any certificate of the store may end
                // it, as curl's CA file (a store holding an intermediate, or the leaf itself).
                if mayReachARoot {
                    let complete = ChainVerifier.verify(chain, store: store, policy: policy, partialChain: false)
                    guard complete.failure != nil else { return complete }
                }
                return ChainVerifier.verify(chain, store: store, policy: policy, partialChain: true)
            }
        }
        guard let anchorStore = try? TrustStore(certificates: anchors) else {
            let failure = TrustFailure(.invalidCertificate, verifyCode: X509_V_ERR_OUT_OF_MEM)
            return ChainVerification(failure: failure, builtChain: nil)
        }
        return anchorStore.withStore { ChainVerifier.verify(chain, store: $0, policy: policy, partialChain: true) }
    }
}
