// An httpbin-style HTTP/1.1 server on SwiftNIO for integration tests: independent of Ferry's
// engine, so an engine bug cannot hide itself.
import FerryBase
import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOHTTP1
import NIOPosix

/// An in-process httpbin-like server on 127.0.0.1 (or ::1), random port, one event loop thread.
///
/// Keep-alive and `Connection: close` are honoured, pipelined requests are answered in order,
/// `Expect: 100-continue` gets a 100, and HEAD on any route sends the GET head without a body.
/// Byte routes serve ``TestBytes`` pattern bytes (byte i = i % 251).
///
/// Routes (N, S, C, K are numbers; unknown paths get 404, out-of-range numbers 400):
/// - `/get` (GET), `/post`, `/put`, `/patch`, `/delete` (their method, else 405), `/anything/…`
///   (any method), `/delay/S`, `/close`: JSON `method`, `url`, `args`, `headers` (Title-Case
///   names), `data` (the first 1 MiB of the body as text, or a base64 `data:` URL when it is not
///   UTF-8), `json`, `form`, `origin`, `bodyLength` (every byte), `bodyTruncated`. `/delay/S` answers after S seconds (fractions allowed, ≤ 60);
///   `/close` answers with `Connection: close` and closes.
/// - `/echo`: the request body streamed back as it arrives; `Content-Length` when the request
///   had one, else chunked.
/// - `/headers`, `/ip`, `/user-agent`; `/status/N` (empty body; 3xx add `Location: /redirect/1`,
///   401 a `WWW-Authenticate`); `/response-headers?Name=value` (sets those fields).
/// - `/redirect/N`, `/relative-redirect/N` (302 chain with relative `Location`s ending at
///   `/get`), `/absolute-redirect/N` (absolute ones), `/redirect-to?url=U&status_code=S`.
/// - `/bytes/N`, `/large/N` (Content-Length, 64 KiB writes with backpressure, N ≤ 1 GiB),
///   `/stream-bytes/N?chunk_size=C` (chunked, one chunk per C bytes, default 10240),
///   `/chunked?n=K&size=S` (K chunks of S bytes), `/range/N` (`Range: bytes=a-b`, `a-`, `-n`
///   → 206 with `Content-Range`; unsatisfiable → 416; `If-Range` with the ETag `"range-N"` or
///   the Last-Modified date; otherwise 200 in full), `/no-length?size=N` (no framing, body ends
///   at close; default 1024).
/// - `/gzip`, `/deflate` (zlib-wrapped), `/deflate-raw` (raw deflate, labelled `deflate`): the
///   echo JSON compressed; `/gzip-bytes/N` (the `/bytes/N` payload gzipped, N ≤ 64 MiB);
///   `/gzip-bomb?size=N` (N zero bytes gzipped, default 10 MiB, ≤ 4 GiB).
/// - `/drip?numbytes=N&duration=S&delay=D&code=C` (after D seconds, status C and N pattern
///   bytes spread over S seconds, each flushed; defaults 10, 2, 2, 200), `/basic-auth/user/pass`,
///   `/cookies/set?k=v` and `/cookies/delete?k` (302 to `/cookies`), `/cookies`,
///   `/digest-auth/QOP/USER/PASSWORD/ALGORITHM[/stale]` (QOP `auth` or `none`; MD5, MD5-sess,
///   SHA-256, SHA-256-sess; `stale` refuses the first nonce with `stale=true`).
public final class HTTPBinServer: Sendable, GracefulShutdown {
    /// The address the server listens on.
    public let host: String
    /// The port the kernel chose.
    public let port: Int
    /// `"http"`, or `"https"` under ``TLSTestServer``.
    let scheme: String
    private let group: MultiThreadedEventLoopGroup
    private let channel: any Channel
    private let recorder: HTTPBinRecorder
    private let isShutDown = NIOLockedValueBox(false)

    /// Starts the server on a random port with its own one-thread event loop group.
    /// - Parameters:
    ///   - host: `"127.0.0.1"` (default) or `"::1"`; nothing else is accepted.
    ///   - maxRecordedRequests: how many recent request heads ``receivedRequests`` keeps.
    /// - Throws: ``TestServerError`` for a non-loopback host; NIO's error if binding fails.
    public convenience init(host: String = "127.0.0.1", maxRecordedRequests: Int = 1000) throws {
        try self.init(host: host, maxRecordedRequests: maxRecordedRequests, scheme: "http", channelPrefix: nil)
    }

    /// Internal: the server with `channelPrefix` run first on each accepted channel, on its
    /// event loop, to put handlers in front of the HTTP ones (``TLSTestServer``'s TLS layer).
    init(
        host: String, maxRecordedRequests: Int, scheme: String,
        channelPrefix: (@Sendable (any Channel) throws -> Void)?
    ) throws {
        guard host == "127.0.0.1" || host == "::1" else { throw TestServerError.notLoopback(host) }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let recorder = HTTPBinRecorder(limit: maxRecordedRequests)
        // Routes set Content-Length / Transfer-Encoding themselves: /no-length needs neither.
        let encoder = {
            var configuration = HTTPResponseEncoder.Configuration()
            configuration.automaticallySetFramingHeaders = false
            return configuration
        }()
        let portBox = NIOLockedValueBox(0)
        let bootstrap = ServerBootstrap(group: group)
            .serverChannelOption(.backlog, value: 256)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(.socketOption(.tcp_nodelay), value: 1)
            // A client's FIN after its request must not drop the response (RFC 9112 §9.6).
            .childChannelOption(.allowRemoteHalfClosure, value: true)
            .childChannelOption(.writeBufferWaterMark, value: .init(low: 256 * 1024, high: 1024 * 1024))
            .childChannelInitializer { channel in
                recorder.connectionAccepted()
                let port = portBox.withLockedValue { $0 }
                let fallbackHost = host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
                return channel.eventLoop.makeCompletedFuture {
                    try channelPrefix?(channel)
                    let sync = channel.pipeline.syncOperations
                    try sync.configureHTTPServerPipeline(
                        withErrorHandling: true, withOutboundHeaderValidation: true, withEncoderConfiguration: encoder)
                    try sync.addHandler(HTTPBinHandler(recorder: recorder, scheme: scheme, fallbackHost: fallbackHost))
                }
            }
        let channel: any Channel
        do {
            channel = try bootstrap.bind(host: host, port: 0).wait()
        } catch {
            try? group.syncShutdownGracefully()
            throw error
        }
        let port = channel.localAddress?.port ?? 0
        portBox.withLockedValue { $0 = port }
        self.host = host
        self.port = port
        self.group = group
        self.channel = channel
        self.recorder = recorder
        self.scheme = scheme
    }

    deinit {
        shutdown()
    }

    /// Runs `body` with a fresh server and always shuts it down afterwards. `body` runs in the
    /// caller's isolation (a `@MainActor` test may capture main-actor state).
    /// - Parameters:
    ///   - host: `"127.0.0.1"` (default) or `"::1"`.
    ///   - isolation: the caller's actor, filled in by the compiler.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what `init` or `body` throws.
    public static func withServer<T>(
        host: String = "127.0.0.1",
        isolation: isolated (any Actor)? = #isolation,
        _ body: (HTTPBinServer) async throws -> T
    ) async throws -> T {
        let server = try HTTPBinServer(host: host)
        return try await server.run(body)
    }

    // MARK: - Addresses

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`), without a trailing slash.
    public var baseURL: URL {
        URL(string: baseURLString)!
    }

    /// ``baseURL`` as a string.
    public var baseURLString: String {
        host.contains(":") ? "\(scheme)://[\(host)]:\(port)" : "\(scheme)://\(host):\(port)"
    }

    /// The URL of `pathAndQuery` on this server.
    /// - Parameter pathAndQuery: starts with `/`, e.g. `"/get?a=1"`.
    /// - Returns: the absolute URL.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURLString + pathAndQuery)!
    }

    // MARK: - Shutting down

    /// Closes the listener and every connection and stops the event loop thread. Blocks until
    /// done; safe to call more than once. Do not call it from an event loop thread.
    public func shutdown() {
        guard markShutDown() else { return }
        try? channel.close().wait()
        try? group.syncShutdownGracefully()
    }

    /// ``shutdown()`` without blocking a thread, for async code. Safe to call more than once.
    public func shutdownGracefully() async {
        guard markShutDown() else { return }
        try? await channel.close()
        try? await group.shutdownGracefully()
    }

    private func markShutDown() -> Bool {
        isShutDown.withLockedValue { isShutDown in
            defer { isShutDown = true }
            return !isShutDown
        }
    }

    // MARK: - What the server saw

    /// Connections accepted so far.
    public var connectionCount: Int { recorder.connectionCount }

    /// Connections the client closed (its FIN seen), or that closed otherwise, so far.
    public var closedConnectionCount: Int { recorder.closedConnectionCount }

    /// Request heads received so far (every request, including rejected ones).
    public var requestCount: Int { recorder.requestCount }

    /// The most recent request heads, oldest first, at most `maxRecordedRequests`.
    public var receivedRequests: [RecordedRequestHead] { recorder.heads }

    /// The most recent request head, if any.
    public var lastRequest: RecordedRequestHead? { recorder.heads.last }

    /// Sets the counters back to zero and forgets the recorded heads.
    public func resetCounters() {
        recorder.reset()
    }
}
