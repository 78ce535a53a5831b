import FerryWire
import HTTPTypes

/// Everything the engine needs to run one request/response exchange.
package struct ExchangeRequest: Sendable {
    /// Which connections may serve it.
    package var key: PoolKey
    /// The head to send. Its `framing` is set by the engine from ``body``.
    package var head: RequestHead
    /// What to send after the head.
    package var body: ExchangeBody
    /// Decode gzip/deflate bodies.
    package var decodesContent: Bool
    /// Bounds on decoding.
    package var decodingLimits: DecodingLimits
    /// Bounds on the response head and chunk framing.
    package var parserLimits: ParserLimits
    /// The largest (decoded) body accepted; `nil`: no limit.
    package var maximumBodySize: Int64?
    /// Longest time without a byte moving once connected (URLSession's request timeout). Not
    /// the pool's idle timeout: in the engine, "idle" only ever means a parked keep-alive
    /// connection.
    package var requestTimeout: Duration
    /// Longest time for the whole exchange.
    package var totalTimeout: Duration
    /// Bodies longer than this, or of unknown length, are announced with
    /// `Expect: 100-continue` and held after the head until the server's `100 Continue` (or a
    /// final response, which means the body is not wanted), at most ``continueTimeout``
    /// (RFC 9110 §10.1.1; curl's rule, 1 MiB). nil: never.
    package var expectsContinueAbove: Int64?
    /// The longest wait for `100 Continue` before the body is sent anyway (curl's
    /// `--expect100-timeout`, 1 s).
    package var continueTimeout: Duration = .seconds(1)
    /// From 0 to 1: while requests wait for a connection, the highest goes first.
    package var priority: Float = 0.5
    /// Caps on how fast the response is read and the body sent; nil: as fast as they go.
    package var bandwidth: BandwidthLimits?

    /// Creates a request description.
    package init(
        key: PoolKey, head: RequestHead, body: ExchangeBody = .none,
        decodesContent: Bool = false, decodingLimits: DecodingLimits = .default,
        parserLimits: ParserLimits = .default, maximumBodySize: Int64? = nil,
        requestTimeout: Duration = .seconds(60),
        totalTimeout: Duration = .seconds(7 * 24 * 3600)
    ) {
        self.key = key
        self.head = head
        self.body = body
        self.decodesContent = decodesContent
        self.decodingLimits = decodingLimits
        self.parserLimits = parserLimits
        self.maximumBodySize = maximumBodySize
        self.requestTimeout = requestTimeout
        self.totalTimeout = totalTimeout
    }

    private static let idempotentMethods: Set<String> = ["GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE"]

    /// RFC 9110 §9.2.2: only idempotent requests whose body can be sent again are retried.
    var isRetryable: Bool {
        guard Self.idempotentMethods.contains(head.method.rawValue) else { return false }
        switch body {
        case .none, .bytes, .file, .segments: return true
        case .stream: return false
        }
    }
}

/// A request body as the engine sees it.
package enum ExchangeBody: Sendable {
    /// No body.
    case none
    /// Bytes in memory, written together with the head in one `writev`.
    case bytes([UInt8])
    /// A file, opened when the exchange starts and streamed with its size as Content-Length.
    case file(path: String)
    /// Chunks pulled from a source; `length` `nil` means chunked transfer coding.
    case stream(any BodyChunkSource, length: Int64?)
    /// Bytes and whole files one after the other (a multipart form), `length` bytes in all:
    /// read on the loop as the connection takes them, files opened in turn, as `file` is.
    case segments([BodySegment], length: Int64)
}

/// One piece of a ``ExchangeBody/segments(_:length:)`` body.
package enum BodySegment: Sendable, Equatable {
    /// Bytes in memory.
    case bytes([UInt8])
    /// A whole file, which must still be `size` bytes when it is opened to be sent.
    case file(path: String, size: Int64)
}

/// Supplies a streamed request body one chunk at a time, so the engine never holds more than
/// one chunk of it.
package protocol BodyChunkSource: AnyObject, Sendable {
    /// Produce the next chunk, or `nil` at the end. `completion` may be called on any thread.
    func nextChunk(_ completion: @escaping @Sendable (Result<[UInt8]?, EngineError>) -> Void)
    /// The exchange ended early; stop producing.
    func cancel()
}

/// What a consumer wants after receiving body bytes.
package enum BodyDemand: Sendable {
    /// Keep reading.
    case more
    /// Stop reading from the socket until ``ExchangeHandle/resumeReading()``.
    case pause
    /// Fail the exchange with this error (for example the destination file cannot be written).
    case stop(EngineError)
}

/// Receives one exchange's progress. Called on the exchange's event-loop thread, in order;
/// exactly one of ``exchangeDidFinish(trailers:metrics:)`` and ``exchangeDidFail(_:metrics:)``
/// ends it. Implementations must not block.
package protocol ExchangeDelegate: AnyObject {
    /// The request head went out (again, if the exchange was retried on a fresh connection).
    /// `addedExpectation`: the engine added its `Expect: 100-continue` to the head (the body
    /// was over ``ExchangeRequest/expectsContinueAbove`` and the caller set no `Expect`), so a
    /// 417 refuses that expectation and the request may go again without it.
    func exchangeDidSendHead(_ head: RequestHead, addedExpectation: Bool, connection: ConnectionFacts)
    /// Body bytes were written.
    func exchangeDidSendBody(bytes: Int64, total: Int64, expected: Int64?)
    /// The response head arrived (1xx interim responses are not reported). Answering
    /// ``BodyDemand/pause`` reads no body byte, and reports no end of a response without a
    /// body, until ``ExchangeHandle/resumeReading()`` (a caller deciding what to do with the
    /// response, or a suspended one); ``BodyDemand/stop(_:)`` fails the exchange.
    func exchangeDidReceiveHead(_ head: ResponseHead) -> BodyDemand
    /// Body bytes arrived (decoded when content decoding is on). The buffer is valid only
    /// during the call.
    func exchangeDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDemand
    /// The delegate keeps body bytes as arrays of its own (a stream to a consumer), so the
    /// connection may read them straight into one and hand it over with
    /// ``exchangeDidReceiveBody(owned:)``. False unless implemented.
    var prefersOwnedBodyChunks: Bool { get }
    /// Body bytes arrived in an array the delegate now owns (only when
    /// ``prefersOwnedBodyChunks`` and nothing is decoded).
    func exchangeDidReceiveBody(owned chunk: consuming [UInt8]) -> BodyDemand
    /// An empty array of at least `minimumCapacity` whose memory an earlier owned chunk left
    /// behind once its consumer let go of it, for the next owned chunk to be read into; nil
    /// when there is none (the connection allocates one). Memory used again is already
    /// mapped: a fresh quarter-MiB array costs 64 page faults as bytes are read into it.
    func reusableBodyChunk(minimumCapacity: Int) -> [UInt8]?
    /// The exchange completed.
    func exchangeDidFinish(trailers: HTTPFields, metrics: ExchangeMetrics)
    /// The exchange failed.
    func exchangeDidFail(_ error: EngineError, metrics: ExchangeMetrics)
}

extension ExchangeDelegate {
    /// Body bytes come through ``exchangeDidReceiveBody(_:)`` only.
    package var prefersOwnedBodyChunks: Bool { false }

    /// Hands the chunk's bytes to ``exchangeDidReceiveBody(_:)``.
    package func exchangeDidReceiveBody(owned chunk: consuming [UInt8]) -> BodyDemand {
        chunk.withUnsafeBytes { exchangeDidReceiveBody($0) }
    }

    /// No memory to reuse: every owned chunk is allocated.
    package func reusableBodyChunk(minimumCapacity: Int) -> [UInt8]? { nil }
}

/// The connection an exchange used.
package struct ConnectionFacts: Sendable, Equatable {
    /// Peer address without port (the proxy's, through a proxy).
    package var remoteAddress: String
    /// Peer port.
    package var remotePort: Int
    /// The connection served an earlier exchange.
    package var isReused: Bool
    /// The connection goes to a proxy (forwarding, or a tunnel): the address is the proxy's.
    package var isProxied: Bool
    /// What TLS established; nil for plain HTTP.
    package var tls: TLSFacts?

    /// Creates facts.
    package init(remoteAddress: String, remotePort: Int, isReused: Bool, tls: TLSFacts? = nil, isProxied: Bool = false) {
        self.remoteAddress = remoteAddress
        self.remotePort = remotePort
        self.isReused = isReused
        self.tls = tls
        self.isProxied = isProxied
    }
}
