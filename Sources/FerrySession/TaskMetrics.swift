import FoundationEssentials
import HTTPTypes

/// Timings and sizes of one request/response exchange on one connection.
///
/// The counterpart of `URLSessionTaskTransactionMetrics`. Every instant is an offset from
/// ``fetchStart``; an offset is `nil` when the step did not happen (for example no DNS lookup
/// or connect on a reused connection).
public struct TransactionMetrics: Sendable {
    /// The URL this exchange requested: each hop of a redirect (or an authentication retry)
    /// its own, so an https → http hop shows here. (URLSession keeps the whole request and
    /// response; Ferry keeps what a request costs nothing to record.)
    public var url: URL?
    /// The status of the response it received, if a response head arrived.
    public var statusCode: Int?
    /// When the exchange began (wall clock).
    public var fetchStart: Date
    /// Name resolution finished.
    public var domainLookupEnd: Duration?
    /// The TCP connection was established.
    public var connectEnd: Duration?
    /// The TLS handshake and the server trust evaluation finished (HTTPS on a new connection
    /// only): curl's `time_appconnect`.
    public var secureConnectionEnd: Duration?
    /// The TLS version, such as `TLSv1.3` (HTTPS only).
    public var negotiatedTLSProtocolVersion: String?
    /// The TLS cipher suite, such as `TLS_AES_128_GCM_SHA256` (HTTPS only).
    public var negotiatedTLSCipherSuite: String?
    /// `true` when the connection's TLS handshake resumed an earlier session.
    public var isTLSSessionResumed = false
    /// OpenSSL's verification result for the server's chain under the default rules
    /// (0 when valid, else an `X509_V_ERR_…` code, as with an allowing evaluator): curl's
    /// `ssl_verify_result`. Nil for plain HTTP.
    public var serverCertificateVerifyResult: Int?
    /// The request head was handed to the socket.
    public var requestStart: Duration?
    /// The first byte of the response arrived.
    public var responseStart: Duration?
    /// The last byte of the response arrived (or the exchange failed).
    public var responseEnd: Duration?
    /// The connection had served an earlier request.
    public var isReusedConnection: Bool
    /// The request went through a proxy (forwarded by it, or in a tunnel through it); the
    /// remote address is then the proxy's.
    public var isProxyConnection = false
    /// Connections opened for this exchange: 0 on a reused connection, 1 normally, 2 when a
    /// request was retried on a fresh connection after a kept-alive one died.
    public var connectionsOpened: Int
    /// The peer's address, such as `127.0.0.1`.
    public var remoteAddress: String?
    /// The peer's port.
    public var remotePort: Int?
    /// Bytes of the request head, as written.
    public var requestHeaderBytesSent: Int64
    /// Bytes of the request body, as written (before chunk framing).
    public var requestBodyBytesSent: Int64
    /// Bytes of the response head, as received.
    public var responseHeaderBytesReceived: Int64
    /// Bytes of the response body, as received (before content decoding).
    public var responseBodyBytesReceived: Int64
    /// Bytes of the response body after content decoding.
    public var responseBodyBytesDecoded: Int64

    /// Creates metrics for an exchange that began at `fetchStart`.
    public init(fetchStart: Date) {
        self.fetchStart = fetchStart
        isReusedConnection = false
        connectionsOpened = 0
        requestHeaderBytesSent = 0
        requestBodyBytesSent = 0
        responseHeaderBytesReceived = 0
        responseBodyBytesReceived = 0
        responseBodyBytesDecoded = 0
    }
}

/// Everything measured while one request ran, across redirects.
///
/// The counterpart of `URLSessionTaskMetrics`.
public struct TaskMetrics: Sendable {
    /// One entry per exchange, in order.
    public var transactionMetrics: [TransactionMetrics]
    /// Redirects followed.
    public var redirectCount: Int
    /// From the task's start to its end.
    public var taskDuration: Duration

    /// Creates task metrics.
    public init(transactionMetrics: [TransactionMetrics], redirectCount: Int, taskDuration: Duration) {
        self.transactionMetrics = transactionMetrics
        self.redirectCount = redirectCount
        self.taskDuration = taskDuration
    }
}
