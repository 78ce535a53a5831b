import FerryIO
import FerryWire
import HTTPTypes

/// One request's life inside the engine, confined to one event loop: it waits for a
/// connection, runs on it (retried once on a fresh connection when the keep-alive race bites),
/// decodes and bounds the body, keeps the metrics, and tells its delegate exactly one ending.
final class Exchange {
    let request: ExchangeRequest
    let loop: EventLoop
    /// The encoded request head, made before any connection is touched so a refused request
    /// never opens one.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) var encodedHead: [UInt8] = []
    /// The opened upload file, if the body is a file.
    private(set) var file: UploadFile?
    /// Released once the exchange has ended, so nothing keeps the caller's objects alive.
    private var delegate: (any ExchangeDelegate)?
    private unowned let pool: ConnectionPool
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) var metrics: ExchangeMetrics
    private var connection: HTTP1Connection?
    private var waitingRequestID: Int?
    private var totalTimer: TimerID?
    private var hasRetried = false
    private var isDone = false
    private var responseHead: ResponseHead?
    private var decoder: ContentDecoder?
    private var bodyBytesSent: Int64 = 0
    /// The whole request was written (a response can come before: an early answer).
    private var requestComplete = false
    private(set) var phase: EngineError.Phase = .connecting
    /// The trailer section of the response, once it ended.
    private var trailers: HTTPFields = [:]

    init(request: consuming ExchangeRequest, delegate: any ExchangeDelegate, pool: ConnectionPool, loop: EventLoop) {
        self.delegate = delegate
        self.pool = pool
        self.loop = loop
        var metrics = ExchangeMetrics(start: .now())
        metrics.isProxyConnection = request.key.isProxied
        self.metrics = metrics
        self.head = request.head
        // Last: the request moves in rather than being copied.
        self.request = request
    }

    /// The head as sent: the request's head with framing decided from the body. Set once in
    /// ``start()`` (an upload file's size is known only once it is open).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private(set) var head: RequestHead
    /// The body length when known; set with ``head``.
    private var expectedBodyLength: Int64? = 0
    /// The head carries `Expect: 100-continue`: the body waits for the server's go-ahead.
    private(set) var awaitsContinue = false
    /// The engine added that `Expect` (the caller set none): a 417 refuses the engine's
    /// expectation, not the caller's.
    private var addedExpectation = false

    /// Adds `Expect: 100-continue` to a head whose body is longer than `threshold` or of
    /// unknown length (unless the caller set an `Expect` itself).
    /// - Returns: whether the head now expects `100 Continue` (the caller's own `100-continue`
    ///   counts), and whether this call added the field.
    static func announcesContinue(_ head: inout RequestHead, length: Int64?, threshold: Int64?)
        -> (awaits: Bool, added: Bool) {
        // Most requests have no body: decided without looking at a field.
        guard length != 0 else { return (false, false) }
        if let expect = head.headerFields[.expect] { return (expect.lowercased() == "100-continue", false) }
        guard let threshold, length.map({ $0 > threshold }) ?? true else { return (false, false) }
        head.headerFields[.expect] = "100-continue"
        return (true, true)
    }

    // MARK: - Lifecycle

    /// Validates and encodes the request, arms the total timeout and asks the pool for a connection.
    func start() {
        loop.preconditionInEventLoop()
        if case .file(let path) = request.body {
            switch UploadFile.open(path: path) {
            case .success(let opened): file = opened
            case .failure(let error): return fail(EngineError(.fileReadFailed(path: path, error)))
            }
        }
        switch request.body {
        case .none: head.framing = .none
        case .bytes(let bytes): head.framing = bytes.isEmpty ? .none : .contentLength(Int64(bytes.count))
        case .file: head.framing = .contentLength(file?.size ?? 0)
        case .stream(_, let length): head.framing = length.map { .contentLength($0) } ?? .chunked
        case .segments(_, let length): head.framing = length == 0 ? .none : .contentLength(length)
        }
        switch head.framing {
        case .none: expectedBodyLength = 0
        case .contentLength(let length): expectedBodyLength = length
        case .chunked: expectedBodyLength = nil
        }
        (awaitsContinue, addedExpectation) = Self.announcesContinue(
            &head, length: expectedBodyLength, threshold: request.expectsContinueAbove)
        do throws(RequestEncodingError) {
            try RequestEncoder.encodeHead(head, into: &encodedHead)
        } catch {
            return fail(EngineError(.invalidRequest(error)))
        }
        totalTimer = loop.scheduleTimer(at: metrics.start + request.totalTimeout) { [weak self] in
            guard let self else { return }
            self.totalTimer = nil
            self.abort(EngineError(.totalTimedOut(self.phase)))
        }
        lease(fresh: false)
    }

    private func lease(fresh: Bool) {
        phase = .connecting
        // The id is recorded before the pool runs: it may hand over a parked connection (or fail
        // the lease) synchronously, and `attach` / `leaseFailed` then clear it.
        let id = pool.reserveRequestID()
        waitingRequestID = id
        pool.lease(id, for: self, fresh: fresh)
    }

    /// Cancels or times out the exchange wherever it is.
    func abort(_ error: EngineError) {
        guard !isDone else { return }
        if let connection {
            connection.abort(error)
        } else {
            if let id = waitingRequestID { pool.cancelLease(id, key: request.key) }
            fail(error)
        }
    }

    /// Resumes reading after the delegate returned ``BodyDemand/pause``.
    func resumeReading() {
        connection?.resumeReading()
    }

    // MARK: - Events from the pool

    /// The pool could not provide a connection.
    func leaseFailed(_ error: EngineError) {
        waitingRequestID = nil
        fail(error)
    }

    /// A connection was opened for (or handed to) this exchange.
    func connected(resolved: Deadline?, connected: Deadline?, secured: Deadline? = nil) {
        if let resolved { metrics.domainLookupEnd = resolved }
        if let secured { metrics.secureConnectionEnd = secured }
        if let connected {
            metrics.connectEnd = connected
            metrics.connectionsOpened += 1
        }
    }

    /// Runs on `connection`.
    func attach(to connection: HTTP1Connection) {
        waitingRequestID = nil
        self.connection = connection
        file?.rewind()
        bodyBytesSent = 0
        phase = .sendingRequest
    }

    // MARK: - Events from the connection

    func willSendHead(facts: ConnectionFacts) {
        metrics.requestStart = .now()
        metrics.isReusedConnection = facts.isReused
        metrics.remoteAddress = facts.remoteAddress
        metrics.remotePort = facts.remotePort
        metrics.tls = facts.tls
        metrics.requestHeadBytes = Int64(encodedHead.count)
        delegate?.exchangeDidSendHead(head, addedExpectation: addedExpectation, connection: facts)
    }

    func sentBody(bytes: Int) {
        bodyBytesSent += Int64(bytes)
        metrics.requestBodyBytes = bodyBytesSent
        delegate?.exchangeDidSendBody(bytes: Int64(bytes), total: bodyBytesSent, expected: expectedBodyLength)
    }

    func requestSent() {
        requestComplete = true
        if phase == .sendingRequest { phase = .awaitingResponse }
    }

    func responseBytesArrived() {
        if metrics.responseStart == nil { metrics.responseStart = .now() }
        if phase == .awaitingResponse || phase == .sendingRequest { phase = .receivingHead }
    }

    /// The final response head arrived. Throws when the body cannot be accepted.
    /// - Returns: The delegate's demand: `.pause` holds the body until it resumes reading.
    func receivedHead(_ head: ResponseHead, headBytes: Int) throws(EngineError) -> BodyDemand {
        phase = .receivingBody
        metrics.responseHeadBytes = Int64(headBytes)
        responseHead = head
        if request.decodesContent, head.framing != .none, let encoding = head.headerFields[.contentEncoding] {
            do throws(ContentDecodingError) {
                decoder = try ContentDecoder.make(contentEncoding: encoding, limits: request.decodingLimits)
            } catch {
                throw EngineError(.decoding(error))
            }
        }
        // The head is reported first: a caller refusing the body still learns the status.
        let demand = delegate?.exchangeDidReceiveHead(head) ?? .more
        if case .stop(let error) = demand { throw error }
        // Refuse an announced body over the limit before reading it (curl's --max-filesize).
        if decoder == nil, let limit = request.maximumBodySize, case .contentLength(let length) = head.framing, length > limit {
            throw EngineError(.bodyTooLarge(limit: limit))
        }
        return demand
    }

    /// Encoded bytes handed to the decoder between two looks at the consumer's demand. A pause
    /// is honoured within one such slice, so a paused consumer receives at most that slice's
    /// decoded bytes (bounded by `decodeSliceSize × maxExpansionRatio`), never a whole read's.
    static let decodeSliceSize = 4 * 1024

    /// The consumer takes body bytes as arrays it keeps, and nothing needs decoding: the
    /// connection may read body bytes straight into such an array (``receivedBody(owned:)``),
    /// which saves copying every byte.
    var acceptsOwnedBody: Bool {
        decoder == nil && (delegate?.prefersOwnedBodyChunks ?? false)
    }

    /// An empty array to read the next owned chunk into, whose memory an earlier chunk left
    /// behind (see ``ExchangeDelegate/reusableBodyChunk(minimumCapacity:)``); nil: allocate.
    func reusableBodyChunk(minimumCapacity: Int) -> [UInt8]? {
        delegate?.reusableBodyChunk(minimumCapacity: minimumCapacity)
    }

    /// Body bytes arrived, read straight into `chunk` (see ``acceptsOwnedBody``).
    /// - Returns: The consumer's demand; the chunk is always taken whole.
    func receivedBody(owned chunk: consuming [UInt8]) throws(EngineError) -> BodyDemand {
        guard !chunk.isEmpty else { return .more }
        metrics.responseBodyBytes += Int64(chunk.count)
        metrics.responseBodyBytesDelivered += Int64(chunk.count)
        if let limit = request.maximumBodySize, metrics.responseBodyBytesDelivered > limit {
            throw EngineError(.bodyTooLarge(limit: limit))
        }
        let demand = delegate?.exchangeDidReceiveBody(owned: consume chunk) ?? .more
        if case .stop(let error) = demand { throw error }
        return demand
    }

    /// Body bytes arrived, as framed on the wire (not yet decoded).
    /// - Returns: The consumer's demand, and how many of `bytes` were used: all of them unless
    ///   the consumer paused while they were being decoded; the rest must be offered again.
    func receivedBody(_ bytes: UnsafeRawBufferPointer) throws(EngineError) -> (demand: BodyDemand, consumed: Int) {
        guard let decoder else {
            metrics.responseBodyBytes += Int64(bytes.count)
            return (try deliver(bytes), bytes.count)
        }
        var consumed = 0
        var demand = BodyDemand.more
        while consumed < bytes.count, case .more = demand {
            let slice = UnsafeRawBufferPointer(rebasing: bytes[consumed..<min(bytes.count, consumed + Self.decodeSliceSize)])
            demand = try decode(slice, with: decoder)
            consumed += slice.count
            metrics.responseBodyBytes += Int64(slice.count)
        }
        return (demand, consumed)
    }

    private func decode(_ bytes: UnsafeRawBufferPointer, with decoder: ContentDecoder) throws(EngineError) -> BodyDemand {
        var demand = BodyDemand.more
        var limitError: EngineError?
        do throws(ContentDecodingError) {
            try decoder.decode(bytes) { piece in
                // Past the caller's size limit, decoding of this slice runs out (bounded by the
                // decoder's own limits) but nothing more is delivered.
                guard limitError == nil else { return }
                do throws(EngineError) {
                    if case .pause = try self.deliver(piece) { demand = .pause }
                } catch {
                    limitError = error
                }
            }
        } catch {
            throw EngineError(.decoding(error))
        }
        if let limitError { throw limitError }
        return demand
    }

    private func deliver(_ bytes: UnsafeRawBufferPointer) throws(EngineError) -> BodyDemand {
        guard !bytes.isEmpty else { return .more }
        metrics.responseBodyBytesDelivered += Int64(bytes.count)
        if let limit = request.maximumBodySize, metrics.responseBodyBytesDelivered > limit {
            throw EngineError(.bodyTooLarge(limit: limit))
        }
        let demand = delegate?.exchangeDidReceiveBody(bytes) ?? .more
        if case .stop(let error) = demand { throw error }
        return demand
    }

    /// The response ended on the wire, with its trailers; checks the decoder saw a complete
    /// stream.
    func responseEnded(trailers: HTTPFields) throws(EngineError) {
        self.trailers = trailers
        guard let decoder else { return }
        do throws(ContentDecodingError) {
            try decoder.finish()
        } catch {
            throw EngineError(.decoding(error))
        }
    }

    /// Body bytes received so far and the announced length, for a partial-body error.
    var bodyProgress: (received: Int64, expected: Int64?) {
        guard let head = responseHead, case .contentLength(let length) = head.framing else {
            return (metrics.responseBodyBytes, nil)
        }
        return (metrics.responseBodyBytes, length)
    }

    /// The exchange completed on its connection.
    func succeeded() {
        guard !isDone else { return }
        connection = nil
        finishTimers()
        metrics.end = .now()
        isDone = true
        file = nil
        // An early answer (a 413 during the upload): the producer must not wait for ever.
        if !requestComplete, case .stream(let source, _) = request.body { source.cancel() }
        let delegate = self.delegate
        self.delegate = nil
        delegate?.exchangeDidFinish(trailers: trailers, metrics: metrics)
    }

    /// The exchange failed on its connection (which is closing).
    func failed(_ error: EngineError, retryable: Bool) {
        connection = nil
        guard !isDone else { return }
        if retryable, !hasRetried {
            // RFC 9112 §9.3.1: the server closed a kept-alive connection as we reused it.
            hasRetried = true
            responseHead = nil
            decoder = nil
            metrics.responseStart = nil
            metrics.responseHeadBytes = 0
            metrics.responseBodyBytes = 0
            lease(fresh: true)
            return
        }
        fail(error)
    }

    private func fail(_ error: EngineError) {
        guard !isDone else { return }
        isDone = true
        finishTimers()
        metrics.end = .now()
        file = nil
        if case .stream(let source, _) = request.body { source.cancel() }
        let delegate = self.delegate
        self.delegate = nil
        delegate?.exchangeDidFail(error, metrics: metrics)
    }

    private func finishTimers() {
        if let totalTimer { loop.cancelTimer(totalTimer) }
        totalTimer = nil
    }
}
