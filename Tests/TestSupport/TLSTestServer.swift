// An HTTPS server that is not our code: NIOSSL (BoringSSL) in front of HTTPBinServer's routes,
// for the end-to-end TLS and pinning tests. It counts what a client delivered, so a test can
// assert that a client which refused the server's certificate sent nothing.
import Foundation
import NIOCore
import NIOSSL

/// An in-process HTTPS server on 127.0.0.1 (or ::1), random port: NIOSSL's server handler, a
/// counting handler, then every route of ``HTTPBinServer`` (`/get`, `/post`, `/bytes/N`, …).
///
/// The pipeline of each connection is
/// `NIOSSLServerHandler → TLSObservingHandler → HTTP decoder/encoder → HTTPBinHandler`, so
/// ``applicationBytesReceived`` counts decrypted bytes only, before any HTTP parsing.
///
/// ```swift
/// try await TLSTestServer.withServer(TLSServerConfiguration(serving: .expired)) { server in
///     // … connect to server.url("/get") with Ferry, expect a rejection …
///     #expect(server.applicationBytesReceived == 0)
/// }
/// ```
public final class TLSTestServer: Sendable, GracefulShutdown {
    /// The settings the server was started with.
    public let configuration: TLSServerConfiguration
    private let http: HTTPBinServer
    private let recorder: TLSRecorder

    /// Starts the server on a random port with its own one-thread event loop group.
    /// - Parameters:
    ///   - configuration: the chain, key, versions and client authentication.
    ///   - maxRecorded: how many recent connections and request heads are kept.
    /// - Throws: ``TestServerError`` for a non-loopback host or a file that cannot be loaded;
    ///   NIO's error if binding fails.
    public init(_ configuration: TLSServerConfiguration = TLSServerConfiguration(), maxRecorded: Int = 1000) throws {
        let tlsConfiguration = try configuration.makeNIOConfiguration()
        // One context shares BoringSSL's session cache and ticket key across connections, which
        // is what makes resumption possible; without it each connection gets a new context.
        let shared = configuration.sessionResumption ? try Self.makeContext(tlsConfiguration) : nil
        let recorder = TLSRecorder(limit: maxRecorded)
        self.configuration = configuration
        self.recorder = recorder
        self.http = try HTTPBinServer(
            host: configuration.host, maxRecordedRequests: maxRecorded, scheme: "https",
            channelPrefix: { channel in
                let context = try shared ?? Self.makeContext(tlsConfiguration)
                let sync = channel.pipeline.syncOperations
                try sync.addHandler(NIOSSLServerHandler(context: context))
                try sync.addHandler(TLSObservingHandler(recorder: recorder))
            })
    }

    private static func makeContext(_ configuration: TLSConfiguration) throws -> NIOSSLContext {
        do {
            return try NIOSSLContext(configuration: configuration)
        } catch {
            throw TestServerError("NIOSSL refused the TLS configuration: \(error)")
        }
    }

    /// Runs `body` with a fresh server and always shuts it down afterwards. `body` runs in the
    /// caller's isolation.
    /// - Parameters:
    ///   - configuration: the server's settings; the good leaf with its intermediate by default.
    ///   - isolation: the caller's actor, filled in by the compiler.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what `init` or `body` throws.
    public static func withServer<T>(
        _ configuration: TLSServerConfiguration = TLSServerConfiguration(),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (TLSTestServer) async throws -> T
    ) async throws -> T {
        let server = try TLSTestServer(configuration)
        return try await server.run(body)
    }

    // MARK: - Addresses

    /// The address the server listens on.
    public var host: String { http.host }

    /// The port the kernel chose.
    public var port: Int { http.port }

    /// `https://127.0.0.1:PORT` (or `https://[::1]:PORT`), without a trailing slash.
    public var baseURL: URL { http.baseURL }

    /// ``baseURL`` as a string.
    public var baseURLString: String { http.baseURLString }

    /// The URL of `pathAndQuery` on this server.
    /// - Parameter pathAndQuery: starts with `/`, e.g. `"/get"`.
    /// - Returns: the absolute `https` URL.
    public func url(_ pathAndQuery: String) -> URL {
        http.url(pathAndQuery)
    }

    // MARK: - Shutting down

    /// Closes the listener and every connection and stops the event loop thread. Blocks until
    /// done; safe to call more than once. Do not call it from an event loop thread.
    public func shutdown() {
        http.shutdown()
    }

    /// ``shutdown()`` without blocking a thread, for async code. Safe to call more than once.
    public func shutdownGracefully() async {
        await http.shutdownGracefully()
    }

    // MARK: - What the server saw

    /// TCP connections accepted so far (handshake or not).
    public var connectionCount: Int { http.connectionCount }

    /// TLS handshakes completed so far (full or resumed).
    public var handshakeCount: Int { recorder.handshakeCount }

    /// TLS handshakes that failed so far (a client's alert, a version or certificate refused).
    public var handshakeFailureCount: Int { recorder.handshakeFailureCount }

    /// Application bytes received over every connection, after decryption: what clients sent
    /// as HTTP. Zero means no request byte ever reached the server.
    public var applicationBytesReceived: Int { recorder.applicationBytes }

    /// The most recent connections, in accept order, at most `maxRecorded`.
    public var connections: [TLSConnectionRecord] { recorder.records }

    /// Request heads received so far.
    public var requestCount: Int { http.requestCount }

    /// The most recent request heads, oldest first.
    public var receivedRequests: [RecordedRequestHead] { http.receivedRequests }

    /// The most recent request head, if any.
    public var lastRequest: RecordedRequestHead? { http.lastRequest }

    /// Sets every counter back to zero and forgets the recorded connections and requests.
    public func resetCounters() {
        recorder.reset()
        http.resetCounters()
    }
}
