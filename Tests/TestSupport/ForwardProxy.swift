// An HTTP/1.1 forward proxy for tests: absolute-form forwarding, CONNECT tunnels and proxy
// authentication, on plain POSIX sockets and threads (no SwiftNIO, no Ferry code), so that a
// client's proxy support is checked against code that is not its own.
import FerryBase
import Synchronization
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// An in-process HTTP forward proxy on 127.0.0.1 (or ::1), random port, that only ever
/// connects to this machine.
///
/// - A request with an absolute-form target (`GET http://127.0.0.1:PORT/path?q HTTP/1.1`) is
///   forwarded to that origin on a new connection, with the origin-form target (`/path?q`),
///   `Host` set from the target, and the hop-by-hop fields (`Connection` and the names it
///   lists, `Proxy-Connection`, `Keep-Alive`, `TE`, `Trailer`, `Upgrade`,
///   `Proxy-Authorization`, `Proxy-Authenticate`) left out; the version is the client's. The
///   body is relayed as framed (`Content-Length` or chunked, trailers included), and so is the
///   response (`Content-Length`, chunked or up to the close; interim 1xx responses are passed
///   on; `Expect: 100-continue` waits up to a second for the origin). The client connection is
///   kept alive across requests, to the same or other origins, unless the client asks to close
///   or the response ends at the close.
/// - `CONNECT host:port` opens a TCP connection to the target, answers
///   `HTTP/1.1 200 Connection established`, then relays bytes both ways until both sides
///   have closed (a FIN from one side is passed on as a half-close to the other; a reset or
///   ``ioTimeout`` without traffic ends the tunnel). A target that refuses gets 502.
/// - Targets other than `127.0.0.1`, `::1` and `localhost` get `403 Forbidden` without any
///   connection attempt: tests never send traffic off the machine. A target in origin-form
///   (`GET /path`), a scheme other than `http`, a malformed head (or one over 64 KiB or 256
///   fields) or a body that cannot be framed gets `400 Bad Request` and the connection closes.
/// - With ``Authentication/basic(user:password:realm:)`` or
///   ``Authentication/digest(user:password:realm:algorithms:)``, a request or CONNECT without
///   valid `Proxy-Authorization` gets `407 Proxy Authentication Required` with
///   `Proxy-Authenticate` and a short body; the connection stays open for the retry unless
///   the client asked to close (or sent `Expect: 100-continue` with a body).
/// - With a ``ConnectRefusal``, every CONNECT (after authentication) gets that status and
///   body, and the connection closes; plain forwarding still works.
///
/// Order of the checks: framing and target form (400), authentication (407), refusal of
/// CONNECT, a non-local target (403), the connection to the target (502).
///
/// Each client connection runs on a thread of its own (at most `maxConnections` at once;
/// further ones are closed at once); every read, write and connect waits at most
/// ``ioTimeout``, and ``shutdown()`` cuts every wait short, closes every connection and joins
/// every thread (waiting at most 5 seconds).
///
/// ```swift
/// try await HTTPBinServer.withServer { origin in
///     try await ForwardProxy.withProxy(authentication: .basic(user: "u", password: "p")) { proxy in
///         // … send `GET \(origin.baseURLString)/get` to proxy.port …
///         #expect(proxy.receivedRequests.count == 2)
///     }
/// }
/// ```
public final class ForwardProxy: Sendable, GracefulShutdown {
    /// How the proxy answers every CONNECT when refusing tunnels.
    public struct ConnectRefusal: Sendable, Equatable {
        /// The status code, e.g. 403.
        public var status: Int
        /// The text/plain body.
        public var body: String

        /// Creates a refusal.
        /// - Parameters:
        ///   - status: the status code (100…999); 403 by default.
        ///   - body: the body text.
        public init(status: Int = 403, body: String = "CONNECT is refused by this proxy\n") {
            self.status = status
            self.body = body
        }
    }

    /// The address the proxy listens on.
    public let host: String
    /// The port the kernel chose.
    public let port: Int
    /// The authentication asked of clients.
    public let authentication: Authentication
    /// The refusal every CONNECT gets, or `nil` when tunnels are opened.
    public let connectRefusal: ConnectRefusal?
    /// The longest any single read, write, connect or idle tunnel waits.
    public let ioTimeout: Duration
    private let core: ForwardProxyCore

    /// Starts listening and serving in the background.
    /// - Parameters:
    ///   - host: `"127.0.0.1"` (default) or `"::1"`; nothing else is accepted.
    ///   - authentication: what `Proxy-Authorization` clients must send; none by default.
    ///   - connectRefusal: when set, every CONNECT gets this answer and no tunnel opens.
    ///   - ioTimeout: the longest any single read, write, connect or idle tunnel waits.
    ///   - maxConnections: the most client connections served at once.
    ///   - maxRecorded: how many recent request heads, tunnel targets and connect attempts
    ///     are kept (the counters count all).
    /// - Throws: ``TestServerError`` when the host is not loopback or the socket cannot listen.
    public init(
        host: String = "127.0.0.1",
        authentication: Authentication = .none,
        connectRefusal: ConnectRefusal? = nil,
        ioTimeout: Duration = .seconds(30),
        maxConnections: Int = 64,
        maxRecorded: Int = 1000
    ) throws {
        let sockets = try ServerSockets(host: host)
        self.host = host
        self.port = sockets.port
        self.authentication = authentication
        self.connectRefusal = connectRefusal
        self.ioTimeout = ioTimeout
        let settings = ForwardProxyCore.Settings(
            refusal: connectRefusal, ioTimeout: ioTimeout, maxConnections: max(1, maxConnections), maxRecorded: maxRecorded)
        core = ForwardProxyCore(sockets: sockets, settings: settings, authentication: authentication)
        core.start(port: port)
    }

    deinit {
        core.shutdown()
    }

    /// Runs `body` with a fresh proxy and always shuts it down afterwards, without blocking a
    /// thread. `body` runs in the caller's isolation.
    /// - Parameters:
    ///   - host: `"127.0.0.1"` (default) or `"::1"`.
    ///   - authentication: what `Proxy-Authorization` clients must send.
    ///   - connectRefusal: when set, every CONNECT gets this answer.
    ///   - isolation: the caller's actor, filled in by the compiler.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what `init` or `body` throws.
    public static func withProxy<T>(
        host: String = "127.0.0.1",
        authentication: Authentication = .none,
        connectRefusal: ConnectRefusal? = nil,
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ForwardProxy) async throws -> T
    ) async throws -> T {
        let proxy = try ForwardProxy(host: host, authentication: authentication, connectRefusal: connectRefusal)
        return try await proxy.run(body)
    }

    // MARK: - Addresses

    /// `127.0.0.1:PORT` (or `[::1]:PORT`).
    public var authority: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`): the proxy URL a client is given.
    public var proxyURLString: String {
        "http://\(authority)"
    }

    // MARK: - Shutting down

    /// Stops accepting, cuts short every wait, closes every connection and tunnel, joins the
    /// threads (waiting at most 5 seconds) and closes the listener. Safe to call more than
    /// once. Blocks the calling thread (briefly); async tests use ``shutdownGracefully()``.
    public func shutdown() {
        core.shutdown()
    }

    /// ``shutdown()`` without blocking a thread: suspends until the threads have ended (at
    /// most 5 seconds). Safe to call more than once, and together with ``shutdown()``.
    public func shutdownGracefully() async {
        await core.shutdownGracefully()
    }

    // MARK: - What the proxy saw

    /// Client connections accepted so far (including any closed at once over `maxConnections`).
    public var connectionCount: Int {
        core.record.withLock { $0.connections }
    }

    /// Request heads received so far, well-formed ones of every kind (refused, CONNECT, …).
    public var requestCount: Int {
        core.record.withLock { $0.requests }
    }

    /// The most recent request heads as the client sent them, oldest first, at most
    /// `maxRecorded`: method, target (`http://…` or `host:port`), version and fields in wire
    /// order.
    public var receivedRequests: [RecordedRequestHead] {
        core.record.withLock { $0.heads }
    }

    /// The most recent request head, if any.
    public var lastRequest: RecordedRequestHead? {
        core.record.withLock { $0.heads.last }
    }

    /// Tunnels opened so far (CONNECTs answered 200).
    public var tunnelCount: Int {
        core.record.withLock { $0.tunnels }
    }

    /// The targets of the most recent tunnels, `host:port` as the CONNECT named them (IPv6 in
    /// brackets), oldest first.
    public var tunnelTargets: [String] {
        core.record.withLock { $0.tunnelTargets }
    }

    /// Every connection the proxy tried to open to an origin or tunnel target (`host:port`),
    /// oldest first, whether it succeeded or not. Non-local targets never appear here.
    public var connectAttempts: [String] {
        core.record.withLock { $0.connectAttempts }
    }

    /// Sets the counters back to zero and forgets the recorded heads, tunnels and attempts.
    public func resetCounters() {
        core.record.withLock { $0 = ForwardProxyCore.Record() }
    }

    /// Waits until at least `count` request heads have been received, suspending (not
    /// blocking a thread) between checks.
    /// - Parameters:
    ///   - count: how many requests to wait for.
    ///   - timeout: the longest wait.
    /// - Returns: whether that many arrived in time.
    public func waitForRequests(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await waitUntil(timeout: timeout) { requestCount >= count }
    }
}
