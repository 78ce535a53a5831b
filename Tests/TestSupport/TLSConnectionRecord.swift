// What a TLSTestServer saw on one connection.

/// One TCP connection a ``TLSTestServer`` accepted, as its TLS layer saw it.
public struct TLSConnectionRecord: Sendable, Equatable {
    /// The connection's position in accept order, from 0.
    public let index: Int
    /// The client's address and port, e.g. `127.0.0.1:54321`.
    public let remoteAddress: String?
    /// Whether the TLS handshake completed.
    public internal(set) var handshakeCompleted = false
    /// The version negotiated, once the handshake completed.
    public internal(set) var version: TLSServerConfiguration.Version?
    /// The ALPN protocol negotiated (RFC 7301), if any.
    public internal(set) var negotiatedProtocol: String?
    /// Application bytes received after decryption: what reached the HTTP decoder.
    public internal(set) var applicationBytesReceived = 0
    /// The client certificate's subject as RFC 2253 text (`CN=Ferry Test Client,O=Ferry Test`),
    /// when the client presented one.
    public internal(set) var clientCertificateSubject: String?
    /// The client certificate's DER encoding, when the client presented one.
    public internal(set) var clientCertificateDER: [UInt8]?
    /// Why the handshake failed (NIOSSL's error text, with the alert), when it did.
    public internal(set) var handshakeError: String?
    /// Whether the client has finished: its close_notify or FIN arrived, or the connection
    /// closed. From then on no application byte can arrive on this connection, so a test that
    /// waits for it can assert ``applicationBytesReceived`` without a race. (The server keeps a
    /// half-closed connection open, as RFC 9112 §9.6 allows, until it closes it itself.)
    public internal(set) var isClosed = false

    init(index: Int, remoteAddress: String?) {
        self.index = index
        self.remoteAddress = remoteAddress
    }

    /// Whether the client presented a certificate.
    public var presentedClientCertificate: Bool { clientCertificateDER != nil }
}
