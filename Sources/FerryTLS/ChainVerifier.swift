import CFerryShims
import COpenSSL
#if canImport(Glibc)
import Glibc
#endif

/// The outcome of one verification: the failure, if any, and the chain OpenSSL built (leaf
/// first, up to the anchor it reached; partial when the verification failed).
struct ChainVerification {
    let failure: TrustFailure?
    let builtChain: X509Chain?
}

/// Runs OpenSSL's `X509_verify_cert` over an ``X509Chain``.
enum ChainVerifier {
    /// The hostname rules of RFC 6125 §6.4 on top of OpenSSL's matcher: a wildcard only as the
    /// whole left-most label (never `f*.example.com`), and the subject CN never consulted,
    /// only the subject alternative names (§6.4.4 allows the CN as a fallback; Apple and
    /// browsers no longer use it, and neither does Ferry).
    private static let hostFlags = UInt32(X509_CHECK_FLAG_NO_PARTIAL_WILDCARDS | X509_CHECK_FLAG_NEVER_CHECK_SUBJECT)

    /// Verifies `chain` (leaf first; the rest are untrusted helpers for path building)
    /// against `store` under `policy`, at the current time.
    ///
    /// - Parameter partialChain: when true, any certificate in `store` is a trust anchor, not
    ///   only a self-signed root (`X509_V_FLAG_PARTIAL_CHAIN`), and the path ends at the first
    ///   one it reaches: curl sets it for its CA file, and Apple's
    ///   `SecTrustSetAnchorCertificates` treats a pinned leaf or intermediate so.
    static func verify(_ chain: X509Chain, store: OpaquePointer, policy: TrustPolicy, partialChain: Bool) -> ChainVerification {
        guard let leaf = chain[0] else {
            return ChainVerification(
                failure: TrustFailure(.invalidCertificate, verifyCode: X509_V_ERR_UNSPECIFIED, subject: nil),
                builtChain: nil
            )
        }
        OpenSSLSupport.clearErrors()
        defer { OpenSSLSupport.clearErrors() }
        guard let context = X509_STORE_CTX_new() else { return internalFailure() }
        defer { X509_STORE_CTX_free(context) }
        guard X509_STORE_CTX_init(context, store, leaf, chain.stack) == 1 else { return internalFailure() }
        if case .tlsServer(let host) = policy {
            // The parameters libssl itself uses on a client: TLS-server purpose and trust.
            guard X509_STORE_CTX_set_default(context, "ssl_server") == 1 else { return internalFailure() }
            if let host, !expect(host, in: X509_STORE_CTX_get0_param(context)) {
                return ChainVerification(
                    failure: TrustFailure(.hostnameMismatch, verifyCode: X509_V_ERR_HOSTNAME_MISMATCH, depth: 0, subject: subject(of: leaf)),
                    builtChain: nil
                )
            }
        }
        if partialChain {
            X509_VERIFY_PARAM_set_flags(X509_STORE_CTX_get0_param(context), UInt(X509_V_FLAG_PARTIAL_CHAIN))
        }
        let verified = X509_verify_cert(context) == 1
        let built = X509_STORE_CTX_get1_chain(context).map(X509Chain.init(adopting:))
        if verified {
            return ChainVerification(failure: nil, builtChain: built)
        }
        var code = X509_STORE_CTX_get_error(context)
        if code == X509_V_OK { code = X509_V_ERR_UNSPECIFIED }
        let depth = Int(X509_STORE_CTX_get_error_depth(context))
        let subject = X509_STORE_CTX_get_current_cert(context).flatMap(subject(of:))
        return ChainVerification(failure: TrustFailure(verifyCode: code, depth: depth, subject: subject), builtChain: built)
    }

    /// Sets the name the leaf must carry: an IP address literal is matched against the IP
    /// address SANs only (`X509_VERIFY_PARAM_set1_ip_asc`), anything else against the DNS
    /// SANs. False when OpenSSL refuses the name (an embedded NUL, say): nothing can match it.
    private static func expect(_ host: String, in param: OpaquePointer?) -> Bool {
        guard let param else { return false }
        let name = normalized(host)
        if isIPAddress(name) {
            return X509_VERIFY_PARAM_set1_ip_asc(param, name) == 1
        }
        X509_VERIFY_PARAM_set_hostflags(param, hostFlags)
        // OpenSSL reads a leading dot as "any subdomain of": a host never means that.
        guard !name.isEmpty, !name.hasPrefix("."), !name.utf8.contains(0) else { return false }
        return X509_VERIFY_PARAM_set1_host(param, name, name.utf8.count) == 1
    }

    /// The host as the certificate names it: without the brackets of a URL's IPv6 literal,
    /// without an IPv6 zone (`%eth0`, meaningless to a certificate), and without one trailing
    /// dot (`example.com.` is the same absolute name, RFC 6125 §6.4.1).
    static func normalized(_ host: String) -> String {
        var name = HostName.unbracketed(host)
        if name.contains(":"), let zone = name.firstIndex(of: "%") { name = name[..<zone] }
        if name.count > 1, name.hasSuffix(".") { name = name.dropLast() }
        return String(name)
    }

    /// True for an IPv4 dotted quad or an IPv6 literal.
    static func isIPAddress(_ name: String) -> Bool {
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, name, &buffer) == 1 || inet_pton(AF_INET6, name, &buffer) == 1
    }

    private static func subject(of x509: OpaquePointer) -> String? {
        (try? Certificate(x509: x509))?.subject
    }

    private static func internalFailure() -> ChainVerification {
        ChainVerification(
            failure: TrustFailure(.invalidCertificate, verifyCode: X509_V_ERR_UNSPECIFIED),
            builtChain: nil
        )
    }
}
