import FerryIO

/// Timings and sizes of one exchange, as the engine measured them (monotonic clock).
package struct ExchangeMetrics: Sendable, Equatable {
    /// When the engine accepted the request.
    package var start: Deadline
    /// Name resolution finished (`nil` on a reused connection or a numeric host).
    package var domainLookupEnd: Deadline?
    /// TCP connect finished (`nil` on a reused connection).
    package var connectEnd: Deadline?
    /// The TLS handshake and trust evaluation finished (`nil` on a reused or plain connection).
    package var secureConnectionEnd: Deadline?
    /// What TLS established, on fresh and reused connections alike; nil for plain HTTP.
    package var tls: TLSFacts?
    /// The request head was handed to the socket.
    package var requestStart: Deadline?
    /// The first response byte arrived.
    package var responseStart: Deadline?
    /// The exchange ended.
    package var end: Deadline?
    /// The connection had served an earlier exchange.
    package var isReusedConnection = false
    /// The exchange went through a proxy (forwarded, or in a tunnel). Beside the other Bool:
    /// it takes no more room.
    package var isProxyConnection = false
    /// Connections opened for this exchange (0 when reused; 2 after a retry on a fresh one).
    package var connectionsOpened = 0
    /// Peer address, without port (the proxy's, through a proxy).
    package var remoteAddress: String?
    /// Peer port.
    package var remotePort: Int?
    /// Bytes of request head written.
    package var requestHeadBytes: Int64 = 0
    /// Bytes of request body written (without chunk framing).
    package var requestBodyBytes: Int64 = 0
    /// Bytes of response head received (the final head; interim 1xx heads are included).
    package var responseHeadBytes: Int64 = 0
    /// Body bytes as received, before decoding (without chunk framing).
    package var responseBodyBytes: Int64 = 0
    /// Body bytes delivered, after decoding.
    package var responseBodyBytesDelivered: Int64 = 0

    /// Creates metrics for an exchange starting now.
    package init(start: Deadline) {
        self.start = start
    }
}
