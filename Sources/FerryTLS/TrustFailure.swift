import COpenSSL

/// Why a certificate chain was not trusted: OpenSSL's verification result, sorted into a few
/// reasons a program can act on.
///
/// ``verifyCode`` is OpenSSL's `X509_V_ERR_…` number, what curl prints as
/// `%{ssl_verify_result}`; ``description`` is OpenSSL's own text for it, with the certificate it
/// is about: `certificate has expired (CN=localhost,O=Ferry Test, depth 0)`.
public struct TrustFailure: Error, Sendable, Hashable, CustomStringConvertible {
    /// The reason a chain failed, in a form to act on: a stable name for programs and a phrase
    /// for people. An open set; the static members (``TLSErrorKind/unknownIssuer`` and its
    /// siblings) are the reasons Ferry reports.
    public typealias Reason = TLSErrorKind<TrustFailure>

    /// Why the chain failed.
    public let reason: Reason
    /// OpenSSL's `X509_V_ERR_…` code (`X509_V_ERR_CERT_HAS_EXPIRED` is 10), as curl's
    /// `%{ssl_verify_result}` prints it.
    public let verifyCode: Int32
    /// The index of the certificate the failure is about in the chain OpenSSL built (0 is the
    /// leaf), or -1 when it is about no single certificate.
    public let depth: Int
    /// The subject of that certificate (RFC 2253 text), when there is one.
    public let subject: String?

    /// Creates a failure from its parts.
    ///
    /// - Parameters:
    ///   - reason: why the chain failed.
    ///   - verifyCode: OpenSSL's `X509_V_ERR_…` code.
    ///   - depth: the index of the offending certificate, or -1.
    ///   - subject: that certificate's subject.
    public init(_ reason: Reason, verifyCode: Int32, depth: Int = -1, subject: String? = nil) {
        self.reason = reason
        self.verifyCode = verifyCode
        self.depth = depth
        self.subject = subject
    }

    /// Creates the failure OpenSSL reported as `verifyCode`, with its reason derived from it.
    ///
    /// - Parameters:
    ///   - verifyCode: OpenSSL's `X509_V_ERR_…` code.
    ///   - depth: the index of the offending certificate, or -1.
    ///   - subject: that certificate's subject.
    public init(verifyCode: Int32, depth: Int = -1, subject: String? = nil) {
        self.init(Reason(verifyCode: verifyCode), verifyCode: verifyCode, depth: depth, subject: subject)
    }

    /// OpenSSL's text for ``verifyCode`` (`X509_verify_cert_error_string`), such as
    /// "certificate has expired".
    public var verifyText: String {
        X509_verify_cert_error_string(Int(verifyCode)).map { String(cString: $0) } ?? reason.text
    }

    /// `certificate has expired (CN=localhost,O=Ferry Test, depth 0)`.
    public var description: String {
        switch (subject, depth) {
        case (let subject?, 0...): "\(verifyText) (\(subject), depth \(depth))"
        case (let subject?, _): "\(verifyText) (\(subject))"
        case (nil, 0...): "\(verifyText) (depth \(depth))"
        case (nil, _): verifyText
        }
    }
}

/// The reasons Ferry reports.
extension TLSErrorKind where Domain == TrustFailure {
    /// No trusted issuer was found: an unknown (private) CA, or a missing intermediate
    /// (`X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY`, `…_GET_ISSUER_CERT`,
    /// `…_VERIFY_LEAF_SIGNATURE`).
    public static var unknownIssuer: Self { Self("unknownIssuer", text: "unknown issuer") }
    /// The chain ends in a self-signed certificate that is not trusted
    /// (`X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT`, `X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN`).
    public static var selfSigned: Self { Self("selfSigned", text: "self-signed certificate") }
    /// A certificate of the chain has expired (`X509_V_ERR_CERT_HAS_EXPIRED`).
    public static var expired: Self { Self("expired", text: "certificate expired") }
    /// A certificate of the chain is not valid yet (`X509_V_ERR_CERT_NOT_YET_VALID`).
    public static var notYetValid: Self { Self("notYetValid", text: "certificate not yet valid") }
    /// The leaf names neither the host nor its IP address (`X509_V_ERR_HOSTNAME_MISMATCH`,
    /// `X509_V_ERR_IP_ADDRESS_MISMATCH`).
    public static var hostnameMismatch: Self { Self("hostnameMismatch", text: "hostname mismatch") }
    /// Anything else: a bad signature, an unsuitable purpose, broken basic constraints, a
    /// chain too long, an empty chain.
    public static var invalidCertificate: Self { Self("invalidCertificate", text: "invalid certificate") }

    /// The reason for OpenSSL's `X509_V_ERR_…` code.
    init(verifyCode: Int32) {
        switch verifyCode {
        case X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT_LOCALLY, X509_V_ERR_UNABLE_TO_GET_ISSUER_CERT,
             X509_V_ERR_UNABLE_TO_VERIFY_LEAF_SIGNATURE:
            self = .unknownIssuer
        case X509_V_ERR_DEPTH_ZERO_SELF_SIGNED_CERT, X509_V_ERR_SELF_SIGNED_CERT_IN_CHAIN:
            self = .selfSigned
        case X509_V_ERR_CERT_HAS_EXPIRED:
            self = .expired
        case X509_V_ERR_CERT_NOT_YET_VALID:
            self = .notYetValid
        case X509_V_ERR_HOSTNAME_MISMATCH, X509_V_ERR_IP_ADDRESS_MISMATCH:
            self = .hostnameMismatch
        default:
            self = .invalidCertificate
        }
    }
}
