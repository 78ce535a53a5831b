/// A TLS connection that failed: the handshake, or the record layer after it.
///
/// ``detail`` carries OpenSSL's own words where it has them (its error queue, or the alert the
/// peer sent), for example `handshakeFailed: SSL routines: tlsv1 alert protocol version`.
/// Certificate trust is judged after the handshake and fails with its own error
/// (``ServerTrustError``), never with this one.
public struct TLSError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong: a stable name for programs and a phrase for people. An open set; the
    /// kinds are the static members below.
    public typealias Kind = TLSErrorKind<TLSError>

    /// What failed.
    public let kind: Kind
    /// The cause in words: OpenSSL's error-queue text or the alert received.
    public let detail: String

    /// Creates an error of `kind` with `detail` naming the cause.
    public init(_ kind: Kind, detail: String = "") {
        self.kind = kind
        self.detail = detail
    }

    /// `TLS handshake failed: SSL routines: tlsv1 alert protocol version`.
    public var description: String {
        detail.isEmpty ? kind.text : "\(kind.text): \(detail)"
    }
}

/// The kinds of ``TLSError``.
extension TLSError.Kind {
    /// The handshake failed for a reason other than those below (no common cipher, a bad
    /// message, a handshake_failure alert…).
    public static var handshakeFailed: Self { Self("handshakeFailed", text: "TLS handshake failed") }
    /// Client and server share no protocol version (a `protocol_version` alert, or the
    /// server chose a version outside the configured range).
    public static var unsupportedVersion: Self { Self("unsupportedVersion", text: "no TLS version in common with the server") }
    /// The server closed the connection before the handshake finished.
    public static var closedDuringHandshake: Self { Self("closedDuringHandshake", text: "the server closed the connection during the TLS handshake") }
    /// The server requires a client certificate and none was configured (TLS 1.3's
    /// `certificate_required` alert).
    public static var clientCertificateRequired: Self { Self("clientCertificateRequired", text: "the server requires a client certificate") }
    /// The server refused the client certificate (`bad_certificate`, `unknown_ca`,
    /// `certificate_unknown`… alerts).
    public static var clientCertificateRejected: Self { Self("clientCertificateRejected", text: "the server rejected the client certificate") }
    /// A record after the handshake could not be processed (bad MAC, unexpected message,
    /// an alert from the server).
    public static var recordLayerFailed: Self { Self("recordLayerFailed", text: "TLS connection failed") }
    /// OpenSSL could not be set up as configured (out of memory, an unusable identity).
    public static var invalidConfiguration: Self { Self("invalidConfiguration", text: "TLS configuration rejected") }
}
