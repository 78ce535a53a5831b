import HTTPTypes

/// Facts about the connection a request went out on.
public struct ConnectionInfo: Sendable, Equatable {
    /// The peer's address, such as `127.0.0.1` or `::1` (the proxy's, through a proxy).
    public var remoteAddress: String
    /// The peer's port.
    public var remotePort: Int
    /// `true` when the connection had served an earlier request (keep-alive).
    public var isReused: Bool
    /// The TLS version, such as `TLSv1.3`; nil for plain HTTP.
    public var tlsProtocolVersion: String?
    /// The TLS cipher suite, such as `TLS_AES_128_GCM_SHA256`; nil for plain HTTP.
    public var tlsCipherSuite: String?
    /// The ALPN protocol the server chose, if any.
    public var tlsApplicationProtocol: String?
    /// `true` when the TLS handshake resumed an earlier session.
    public var isTLSSessionResumed: Bool
    /// `true` when the connection goes to a proxy (which forwards the request, or tunnels it
    /// to the server); the address is then the proxy's.
    public var isProxyConnection = false

    /// Creates connection facts.
    public init(
        remoteAddress: String, remotePort: Int, isReused: Bool, tlsProtocolVersion: String? = nil,
        tlsCipherSuite: String? = nil, tlsApplicationProtocol: String? = nil, isTLSSessionResumed: Bool = false
    ) {
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.isReused = isReused
        self.tlsProtocolVersion = tlsProtocolVersion
        self.tlsCipherSuite = tlsCipherSuite
        self.tlsApplicationProtocol = tlsApplicationProtocol
        self.isTLSSessionResumed = isTLSSessionResumed
    }
}
