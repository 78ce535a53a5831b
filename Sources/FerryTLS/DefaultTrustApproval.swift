import COpenSSL
import FoundationEssentials

/// The default rules' "trusted" verdict on a server's chain, and the period it holds for: the
/// overlap of the validity periods of every certificate on the path they built.
///
/// The verdict depends on nothing but the chain's bytes, the host, the trust store and the
/// time, so within that period it stands for the same chain from the same host, and the chain
/// is not verified again on every new connection:
/// - A resumable TLS session carries the verdict of the handshake that made it. A connection
///   that resumes the session brings no chain of its own; its server proved it holds the
///   session's secret, which only the approved server had.
/// - A full handshake that brings, byte for byte, the chain approved last for its host and
///   port (``TLSConnection/cachedApprovalOfPeerChain``) is accepted on that verdict, as
///   browsers keep verification results. Its server still proves it holds the leaf's private
///   key: OpenSSL checks its signature over the handshake (CertificateVerify) either way.
///
/// This is for the default rules only: a session's own evaluator (the caller's code, which may
/// have changed its mind) is asked again on every connection.
package struct DefaultTrustApproval: Sendable {
    /// The chain as first judged.
    package let trust: ServerTrust
    private let validFrom: Date
    private let validUntil: Date

    /// The approval of `trust`, or nil when the default rules refuse it.
    package init?(_ trust: ServerTrust) {
        // Read off the OpenSSL objects of the built path: no certificate is parsed again.
        guard let validity = trust.defaultPathValidity else { return nil }
        self.trust = trust
        validFrom = validity.from
        validUntil = validity.until
    }

    /// The verdict still holds at `date`: every certificate of the path is valid then.
    package func holds(at date: Date = Date()) -> Bool {
        validFrom <= date && date <= validUntil
    }

    /// Whether `peerChain` (a borrowed `STACK_OF(X509)*`, leaf first, as a server sent it) is,
    /// byte for byte, the chain this approval judged.
    package func isApproval(of peerChain: OpaquePointer) -> Bool {
        let approved = trust.certificates
        guard Int(OPENSSL_sk_num(peerChain)) == approved.count else { return false }
        for (index, certificate) in approved.enumerated() {
            guard let x509 = OPENSSL_sk_value(peerChain, Int32(index)).map({ OpaquePointer($0) }),
                  OpenSSLSupport.encoding({ i2d_X509(x509, $0) }, equals: certificate.derRepresentation) else { return false }
        }
        return true
    }
}
