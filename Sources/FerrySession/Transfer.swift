import Dispatch
import FerryEngine
import FerryIO
import FerryWire
import FoundationEssentials
import HTTPTypes
import Synchronization

/// One public request in flight: the engine's delegate for it, turning engine events into
/// `NetworkResponse`s, body deliveries, task-delegate calls and one final result.
///
/// Engine callbacks arrive on the exchange's loop thread; the caller's code never runs there:
/// task-delegate methods are dispatched to the session's delegate queue, and results resume
/// Swift continuations (whose awaiting tasks continue on the concurrency pool).
final class Transfer: ExchangeDelegate, @unchecked Sendable {
    /// Where the body goes.
    enum Sink {
        /// Collected in memory and returned whole.
        case collect(CheckedContinuation<Result<(Data, NetworkResponse), NetworkError>, Never>)
        /// Handed to a ``ResponseBody`` consumer with backpressure.
        case stream(ResponseBodyBuffer, head: CheckedContinuation<Result<NetworkResponse, NetworkError>, Never>)
        /// Written to a file.
        case download(DownloadFile, CheckedContinuation<Result<NetworkResponse, NetworkError>, Never>)
    }

    private let session: Session
    private let request: NetworkRequest
    private let taskDelegate: (any SessionTaskDelegate)?
    private let fetchStart = Date()
    // Loop-confined state (only touched in ExchangeDelegate callbacks).
    private var sink: Sink?
    private var collected = Data()
    private var response: NetworkResponse?
    // Cross-thread state: the handle arrives after start, cancellation may come first.
    private let control = Mutex<(handle: ExchangeHandle?, cancelled: Bool)>((nil, false))

    init(session: Session, request: NetworkRequest, taskDelegate: (any SessionTaskDelegate)?) {
        self.session = session
        self.request = request
        self.taskDelegate = taskDelegate
    }

    /// Starts the exchange on `engine`; the sink receives its outcome.
    func start(_ exchange: ExchangeRequest, engine: HTTPClientEngine, sink: Sink) {
        self.sink = sink
        // A task cancelled before the request started must not start it: on a loop that is
        // faster than this thread, a fast exchange could finish before a late cancel lands.
        if control.withLock({ $0.cancelled }) {
            return exchangeDidFail(EngineError(.cancelled), metrics: ExchangeMetrics(start: .now()))
        }
        let handle = engine.execute(exchange, delegate: self)
        let cancelNow = control.withLock { state -> Bool in
            state.handle = handle
            return state.cancelled
        }
        if cancelNow { handle.cancel() }
    }

    /// Cancels from any thread (Swift task cancellation, or the body's consumer going away).
    func cancel() {
        let handle = control.withLock { state -> ExchangeHandle? in
            state.cancelled = true
            return state.handle
        }
        handle?.cancel()
    }

    /// The streaming consumer drained its buffer.
    func resumeReading() {
        control.withLock { $0.handle }?.resumeReading()
    }

    // MARK: - ExchangeDelegate (loop thread)

    func exchangeDidSendHead(_ head: RequestHead, connection: ConnectionFacts) {
        guard let taskDelegate else { return }
        let sent = HTTPRequest(method: head.method, scheme: nil, authority: nil, path: head.target, headerFields: head.fieldsAsSent)
        let info = ConnectionInfo(
            remoteAddress: connection.remoteAddress, remotePort: connection.remotePort, isReused: connection.isReused,
            tlsProtocolVersion: connection.tls?.protocolVersion, tlsCipherSuite: connection.tls?.cipherSuite,
            tlsApplicationProtocol: connection.tls?.applicationProtocol, isTLSSessionResumed: connection.tls?.isResumed ?? false)
        let (session, request) = (self.session, self.request)
        session.delegateQueue.async {
            taskDelegate.session(session, didSendRequestHead: sent, over: info, for: request)
        }
    }

    func exchangeDidSendBody(bytes: Int64, total: Int64, expected: Int64?) {
        guard let taskDelegate else { return }
        let (session, request) = (self.session, self.request)
        session.delegateQueue.async {
            taskDelegate.session(session, didSendBodyData: bytes, totalBytesSent: total, totalBytesExpectedToSend: expected, for: request)
        }
    }

    func exchangeDidReceiveHead(_ head: ResponseHead) {
        let response = NetworkResponse(
            url: request.url, status: head.status, headerFields: head.headerFields,
            httpVersion: "HTTP/\(head.version.major).\(head.version.minor)")
        self.response = response
        if let taskDelegate {
            let (session, request) = (self.session, self.request)
            session.delegateQueue.async { taskDelegate.session(session, didReceive: response, for: request) }
        }
        if case .stream(_, let headContinuation) = sink {
            headContinuation.resume(returning: .success(response))
        }
    }

    func exchangeDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDemand {
        switch sink {
        case .collect:
            collected.append(contentsOf: bytes)
            return .more
        case .stream(let buffer, _):
            return buffer.append(Array(bytes)) ? .more : .pause
        case .download(let file, _):
            do throws(SystemError) {
                try file.write(bytes)
                return .more
            } catch {
                return .stop(EngineError(.fileWriteFailed(path: file.path, error)))
            }
        case nil:
            return .more
        }
    }

    /// A stream hands arrays to its consumer, so the engine may read body bytes into one.
    var prefersOwnedBodyChunks: Bool {
        if case .stream = sink { return true }
        return false
    }

    func exchangeDidReceiveBody(owned chunk: consuming [UInt8]) -> BodyDemand {
        guard case .stream(let buffer, _) = sink else { return chunk.withUnsafeBytes { exchangeDidReceiveBody($0) } }
        return buffer.append(consume chunk) ? .more : .pause
    }

    func reusableBodyChunk(minimumCapacity: Int) -> [UInt8]? {
        guard case .stream(let buffer, _) = sink else { return nil }
        return buffer.takeSpareChunk(minimumCapacity: minimumCapacity)
    }

    func exchangeDidFinish(trailers: HTTPFields, metrics: ExchangeMetrics) {
        let taskMetrics = makeMetrics(metrics)
        guard let response else {
            return exchangeDidFail(EngineError(.internalInconsistency("finished without a response head")), metrics: metrics)
        }
        let outcome: () -> Void
        switch sink {
        case .collect(let continuation):
            let data = collected
            outcome = { continuation.resume(returning: .success((data, response))) }
        case .stream(let buffer, _):
            outcome = { buffer.finish(nil) }
        case .download(let file, let continuation):
            do throws(SystemError) {
                try file.close()
                outcome = { continuation.resume(returning: .success(response)) }
            } catch {
                file.discard()
                let failure = NetworkError(EngineError(.fileWriteFailed(path: file.path, error)), url: request.url)
                outcome = { continuation.resume(returning: .failure(failure)) }
            }
        case nil:
            outcome = {}
        }
        sink = nil
        finish(metrics: taskMetrics, then: outcome)
    }

    func exchangeDidFail(_ error: EngineError, metrics: ExchangeMetrics) {
        let failure = NetworkError(error, url: request.url).attaching(response: response)
        let outcome: () -> Void
        switch sink {
        case .collect(let continuation):
            outcome = { continuation.resume(returning: .failure(failure)) }
        case .stream(let buffer, let headContinuation):
            if response == nil {
                outcome = { headContinuation.resume(returning: .failure(failure)) }
            } else {
                outcome = { buffer.finish(failure) }
            }
        case .download(let file, let continuation):
            file.discard()
            outcome = { continuation.resume(returning: .failure(failure)) }
        case nil:
            outcome = {}
        }
        sink = nil
        finish(metrics: makeMetrics(metrics), then: outcome)
    }

    // MARK: - Private

    /// Metrics first, then the result, so a caller's delegate has them before `await` returns.
    private func finish(metrics: TaskMetrics, then outcome: @escaping () -> Void) {
        guard let taskDelegate else { return outcome() }
        let (session, request) = (self.session, self.request)
        let box = UncheckedOutcome(outcome)
        session.delegateQueue.async {
            taskDelegate.session(session, didFinishCollecting: metrics, for: request)
            box.run()
        }
    }

    private func makeMetrics(_ metrics: ExchangeMetrics) -> TaskMetrics {
        var transaction = TransactionMetrics(fetchStart: fetchStart)
        let offset = { (deadline: Deadline?) in deadline.map { $0 - metrics.start } }
        transaction.domainLookupEnd = offset(metrics.domainLookupEnd)
        transaction.connectEnd = offset(metrics.connectEnd)
        transaction.secureConnectionEnd = offset(metrics.secureConnectionEnd)
        transaction.negotiatedTLSProtocolVersion = metrics.tls?.protocolVersion
        transaction.negotiatedTLSCipherSuite = metrics.tls?.cipherSuite
        transaction.isTLSSessionResumed = metrics.tls?.isResumed ?? false
        transaction.serverCertificateVerifyResult = metrics.tls?.verifyResult
        transaction.requestStart = offset(metrics.requestStart)
        transaction.responseStart = offset(metrics.responseStart)
        transaction.responseEnd = offset(metrics.end)
        transaction.isReusedConnection = metrics.isReusedConnection
        transaction.connectionsOpened = metrics.connectionsOpened
        transaction.remoteAddress = metrics.remoteAddress
        transaction.remotePort = metrics.remotePort
        transaction.requestHeaderBytesSent = metrics.requestHeadBytes
        transaction.requestBodyBytesSent = metrics.requestBodyBytes
        transaction.responseHeaderBytesReceived = metrics.responseHeadBytes
        transaction.responseBodyBytesReceived = metrics.responseBodyBytes
        transaction.responseBodyBytesDecoded = metrics.responseBodyBytesDelivered
        let duration = (metrics.end ?? .now()) - metrics.start
        return TaskMetrics(transactionMetrics: [transaction], redirectCount: 0, taskDuration: duration)
    }
}

/// Lets a loop-made closure run once on the delegate queue.
private struct UncheckedOutcome: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
    func run() { body() }
}
