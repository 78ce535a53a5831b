import Dispatch
import FerryEngine
import FerryIO
import FerryTLS
import FoundationEssentials

/// Loads requests over HTTP/1.1 with Ferry's engine: the counterpart of `URLSession`.
///
/// A session owns its event loops and connection pool; requests to the same host reuse
/// keep-alive connections (at most ``SessionConfiguration/httpMaximumConnectionsPerHost`` at
/// once). Create one per configuration, share it, and call ``invalidateAndCancel()`` when done.
///
/// ```swift
/// let session = Session()
/// let (data, response) = try await session.data(for: NetworkRequest(url: url))
/// ```
public final class Session: Sendable {
    /// The configuration the session was created with (a copy).
    public let configuration: SessionConfiguration
    /// The serial queue on which task-delegate methods run.
    public let delegateQueue: DispatchQueue
    private let engine: Result<HTTPClientEngine, SystemError>
    private let tls: LazyTLSContext
    private let serverTrustCheck: ServerTrustCheck?

    /// Creates a session.
    /// - Parameters:
    ///   - configuration: How the session behaves.
    ///   - delegateQueue: Where task-delegate methods run; a new serial queue by default.
    public init(configuration: SessionConfiguration = .default, delegateQueue: DispatchQueue? = nil) {
        self.configuration = configuration
        self.delegateQueue = delegateQueue ?? DispatchQueue(label: "ferry.session.delegate")
        do throws(SystemError) {
            engine = .success(try HTTPClientEngine(
                loopCount: configuration.eventLoopCount,
                maxConnectionsPerHost: configuration.httpMaximumConnectionsPerHost,
                idleTimeout: configuration.connectionIdleTimeout))
        } catch {
            engine = .failure(error)
        }
        tls = LazyTLSContext(configuration: configuration.tlsConfiguration)
        serverTrustCheck = ServerTrustGate.check(for: configuration, queue: self.delegateQueue)
    }

    deinit {
        // Joining the loop threads must not happen on one of them (the last reference may be
        // dropped there), so shut down from a global queue.
        if case .success(let engine) = engine {
            DispatchQueue.global().async { engine.shutdown() }
        }
    }

    /// Cancels every running request, closes every connection and stops the engine's threads.
    /// Requests started afterwards fail with ``NetworkError/Code/cancelled``.
    public func invalidateAndCancel() {
        if case .success(let engine) = engine { engine.shutdown() }
    }

    // MARK: - Loading

    /// Loads a request and returns its whole body.
    /// - Parameters:
    ///   - request: What to load.
    ///   - delegate: Observes this request (head sent, upload progress, metrics).
    /// - Returns: The body (decoded when ``SessionConfiguration/automaticallyDecodesContent``) and the response.
    /// - Throws: ``NetworkError``: `.badURL`, `.unsupportedURL`, `.invalidRequest`, `.cannotFindHost`,
    ///   `.cannotConnectToHost`, `.timedOut`, `.networkConnectionLost`, `.zeroByteResource`,
    ///   `.cannotParseResponse`, `.cannotDecodeContentData`, `.dataLengthExceedsMaximum`, `.cancelled`.
    public func data(for request: NetworkRequest, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (Data, NetworkResponse) {
        let (exchange, engine) = try prepare(request)
        let transfer = Transfer(session: self, request: request, taskDelegate: delegate)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(exchange, engine: engine, sink: .collect(continuation))
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }

    /// Sends `body` and returns the whole response body.
    /// - Parameters:
    ///   - request: What to send; its own body is replaced by `body`.
    ///   - body: The body: memory, a file (streamed), or an async stream.
    ///   - delegate: Observes this request; ``SessionTaskDelegate/session(_:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:for:)`` reports upload progress.
    /// - Throws: ``NetworkError`` as ``data(for:delegate:)``, plus `.cannotOpenFile` and `.requestBodyFailed`.
    public func upload(for request: NetworkRequest, from body: RequestBody, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (Data, NetworkResponse) {
        var request = request
        request.body = body
        return try await data(for: request, delegate: delegate)
    }

    /// Loads a request and returns as soon as the response head arrives; the body follows
    /// as an async sequence with backpressure.
    /// - Throws: ``NetworkError`` as ``data(for:delegate:)`` for failures before the head;
    ///   later failures are thrown by the body's iterator.
    public func bytes(for request: NetworkRequest, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> (ResponseBody, NetworkResponse) {
        let (exchange, engine) = try prepare(request)
        let transfer = Transfer(session: self, request: request, taskDelegate: delegate)
        // Weak: the transfer holds the buffer (its sink) until the exchange ends.
        let buffer = ResponseBodyBuffer(
            onResume: { [weak transfer] in transfer?.resumeReading() },
            onAbandon: { [weak transfer] in transfer?.cancel() })
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(exchange, engine: engine, sink: .stream(buffer, head: continuation))
            }
        } onCancel: {
            transfer.cancel()
        }
        return (ResponseBody(buffer: buffer), try result.get())
    }

    /// Loads a request and streams its body into a file (created or truncated), never holding
    /// it in memory. A failed download removes the partial file.
    /// - Parameters:
    ///   - request: What to load.
    ///   - destination: A file URL to write the body to.
    ///   - delegate: Observes this request.
    /// - Throws: ``NetworkError`` as ``data(for:delegate:)``, plus `.cannotCreateFile` and `.cannotWriteToFile`.
    public func download(for request: NetworkRequest, to destination: URL, delegate: (any SessionTaskDelegate)? = nil) async throws(NetworkError) -> NetworkResponse {
        let (exchange, engine) = try prepare(request)
        let file: DownloadFile
        do throws(SystemError) {
            file = try DownloadFile.create(path: destination.path)
        } catch {
            throw NetworkError(.cannotCreateFile, reason: "cannot create \(destination.path): \(error.errnoText)",
                               failingURL: request.url, underlyingError: error)
        }
        let transfer = Transfer(session: self, request: request, taskDelegate: delegate)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                transfer.start(exchange, engine: engine, sink: .download(file, continuation))
            }
        } onCancel: {
            transfer.cancel()
        }
        return try result.get()
    }

    private func prepare(_ request: NetworkRequest) throws(NetworkError) -> (ExchangeRequest, HTTPClientEngine) {
        var exchange = try RequestPreparation.exchangeRequest(for: request, configuration: configuration)
        if exchange.key.scheme == "https" {
            switch tls.context {
            case .success(let context):
                exchange.key.tls = context
                exchange.serverTrustCheck = serverTrustCheck
            case .failure(let error):
                throw NetworkError(.secureConnectionFailed, reason: "TLS could not be set up: \(error)",
                                   failingURL: request.url, underlyingError: error)
            }
        }
        switch engine {
        case .success(let engine):
            return (exchange, engine)
        case .failure(let error):
            throw NetworkError(.sessionInvalidated, reason: "the session's engine could not start: \(error)",
                               failingURL: request.url, underlyingError: error)
        }
    }
}
