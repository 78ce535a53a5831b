import HTTPTypes

/// Facts about the connection a request went out on.
public struct ConnectionInfo: Sendable, Equatable {
    /// The peer's address, such as `127.0.0.1` or `::1`.
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

/// Observes one request as it runs: the head it sent, upload progress and final metrics.
///
/// The counterpart of `URLSessionTaskDelegate`, passed to ``Session`` methods per request.
/// Every method has a default that does nothing.
///
/// - Important: Methods are called on the session's ``Session/delegateQueue``, a serial queue,
///   never on an engine thread. For one request they arrive in order, and
///   ``session(_:didFinishCollecting:for:)`` arrives before the async call returns or its
///   body sequence ends.
public protocol SessionTaskDelegate: AnyObject, Sendable {
    /// The request head was written to a connection.
    /// - Parameters:
    ///   - session: The session running the request.
    ///   - head: The head exactly as sent (method, target, Host and every field).
    ///   - connection: The connection it went out on.
    ///   - request: The request as the caller gave it.
    func session(_ session: Session, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo, for request: NetworkRequest)

    /// Body bytes were written.
    /// - Parameters:
    ///   - session: The session running the request.
    ///   - bytesSent: Bytes written since the last call.
    ///   - totalBytesSent: Bytes written so far.
    ///   - totalBytesExpectedToSend: The body's length, if known.
    ///   - request: The request as the caller gave it.
    func session(_ session: Session, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64?, for request: NetworkRequest)

    /// The response head arrived.
    func session(_ session: Session, didReceive response: NetworkResponse, for request: NetworkRequest)

    /// The request finished, successfully or not; these are its metrics.
    func session(_ session: Session, didFinishCollecting metrics: TaskMetrics, for request: NetworkRequest)
}

extension SessionTaskDelegate {
    /// Does nothing.
    public func session(_ session: Session, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo, for request: NetworkRequest) {}
    /// Does nothing.
    public func session(_ session: Session, didSendBodyData bytesSent: Int64, totalBytesSent: Int64, totalBytesExpectedToSend: Int64?, for request: NetworkRequest) {}
    /// Does nothing.
    public func session(_ session: Session, didReceive response: NetworkResponse, for request: NetworkRequest) {}
    /// Does nothing.
    public func session(_ session: Session, didFinishCollecting metrics: TaskMetrics, for request: NetworkRequest) {}
}
