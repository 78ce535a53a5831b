/// How a client speaks TLS: versions, application protocols, client identity and session
/// resumption. Certificate trust is judged after the handshake (see ``ServerTrust``), so
/// nothing here decides which servers are accepted except ``trustStore``, the roots of the
/// default evaluation.
///
/// A value type: a session copies it when it is created.
public struct TLSConfiguration: Sendable {
    /// The roots the default evaluation trusts: the system's store (OpenSSL's default paths,
    /// honouring `SSL_CERT_FILE` and `SSL_CERT_DIR`) unless set, curl's `--cacert`.
    public var trustStore: TrustStore = .system
    /// The oldest version offered. TLS 1.2 by default; set `.v1_3` to refuse TLS 1.2 servers.
    public var minimumVersion: TLSVersion = .v1_2
    /// The newest version offered; `nil` for the newest Ferry supports (TLS 1.3).
    public var maximumVersion: TLSVersion?
    /// ALPN protocol names offered, most preferred first (RFC 7301). Ferry speaks HTTP/1.1,
    /// so the default offers only `http/1.1`.
    public var applicationProtocols: [String] = ["http/1.1"]
    /// The certificate presented when a server asks for one; `nil` presents none.
    public var clientIdentity: ClientIdentity?
    /// Whether a new connection to a host and port may resume an earlier TLS session (TLS 1.3
    /// tickets, TLS 1.2 session ids), which saves the certificate exchange and its signatures.
    public var resumesSessions = true

    /// TLS 1.2 only with ECDHE key exchange and AEAD ciphers (TLS 1.3's suites all are):
    /// nothing recorded today can be decrypted with the server's key later. Off by default
    /// (the system's cipher list).
    public var requiresForwardSecrecy = false

    /// The default: TLS 1.2 or 1.3, `http/1.1`, no client certificate, resumption on.

    public init() {}
}
