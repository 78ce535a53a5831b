// A raw-socket HTTP server that replays scripts byte for byte: for wire-exact and malformed
// replies. Plain POSIX sockets and one Thread; no SwiftNIO, no Ferry code.
import FerryBase
import Dispatch
import Foundation
import Synchronization

/// A server on 127.0.0.1 (or ::1), random port, that runs one ``ConnectionScript`` per
/// accepted connection.
///
/// Connections are served one after another on a single thread, in accept order: the first
/// connection runs `scripts[0]`, the second `scripts[1]`, and so on. A client that opens a
/// second connection while the first script runs waits in the listen backlog. Connections
/// beyond the scripts are handled per ``ExtraConnections`` (closed at once by default).
///
/// Everything is bounded: each read or write waits at most `ioTimeout`, stalls end at their
/// limit, and ``shutdown()`` cuts every wait short and joins the thread (at most 5 seconds).
///
/// ```swift
/// try await ScriptedServer.withServer(scripts: [.reply("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi")]) { server in
///     // ... talk to server.port ...
/// }
/// ```
///
/// Async tests wait with ``waitForFinishedConnections(_:timeout:)`` and shut down with
/// ``shutdownGracefully()`` (or ``withServer(host:scripts:extraConnections:ioTimeout:isolation:_:)``),
/// which suspend rather than block one of the cooperative pool's few threads.
public final class ScriptedServer: Sendable, GracefulShutdown {
    /// What happens to connections accepted after every script has been used.
    public enum ExtraConnections: Sendable, Equatable {
        /// Close them immediately (the default): a test sees unexpected reconnects as failures.
        case close
        /// Run the last script again for each of them.
        case repeatLastScript
    }

    /// The address the server listens on.
    public let host: String
    /// The port the kernel chose.
    public let port: Int
    private let core: ScriptedServerCore

    /// Starts listening and serving in the background.
    /// - Parameters:
    ///   - host: `"127.0.0.1"` (default) or `"::1"`; nothing else is accepted.
    ///   - scripts: one script per connection, in accept order.
    ///   - extraConnections: what to do with connections beyond `scripts`.
    ///   - ioTimeout: the longest any single read or write waits.
    /// - Throws: ``TestServerError`` when the host is not loopback or the socket cannot listen.
    public init(
        host: String = "127.0.0.1",
        scripts: [ConnectionScript],
        extraConnections: ExtraConnections = .close,
        ioTimeout: Duration = .seconds(30)
    ) throws {
        let sockets = try ServerSockets(host: host)
        self.host = host
        self.port = sockets.port
        core = ScriptedServerCore(
            sockets: sockets, scripts: scripts, extraConnections: extraConnections, ioTimeout: ioTimeout)
        let core = self.core
        let thread = Thread { core.run() }
        thread.name = "ScriptedServer:\(port)"
        thread.start()
    }

    deinit {
        core.shutdown()
    }

    /// `http://127.0.0.1:PORT` (or `http://[::1]:PORT`), without a trailing slash.
    public var baseURL: URL {
        URL(string: baseURLString)!
    }

    /// ``baseURL`` as a string.
    public var baseURLString: String {
        host.contains(":") ? "http://[\(host)]:\(port)" : "http://\(host):\(port)"
    }

    /// The URL of `pathAndQuery` on this server.
    /// - Parameter pathAndQuery: starts with `/`, e.g. `"/a?b=c"`.
    /// - Returns: the absolute URL.
    public func url(_ pathAndQuery: String) -> URL {
        URL(string: baseURLString + pathAndQuery)!
    }

    /// Stops accepting, cuts short any read, write, sleep or stall, closes the sockets and
    /// joins the thread (waiting at most 5 seconds). Safe to call more than once. Blocks the
    /// calling thread (briefly: every wait of the server thread watches the wake pipe); async
    /// tests use ``shutdownGracefully()``.
    public func shutdown() {
        core.shutdown()
    }

    /// ``shutdown()`` without blocking a thread: suspends until the server thread has ended
    /// (at most 5 seconds). Safe to call more than once, and together with ``shutdown()``.
    public func shutdownGracefully() async {
        await core.shutdownGracefully()
    }

    /// Runs `body` with a fresh server and always shuts it down afterwards, without blocking a
    /// thread. `body` runs in the caller's isolation.
    /// - Parameters:
    ///   - host: `"127.0.0.1"` (default) or `"::1"`.
    ///   - scripts: one script per connection, in accept order.
    ///   - extraConnections: what to do with connections beyond `scripts`.
    ///   - ioTimeout: the longest any single read or write waits.
    ///   - isolation: the caller's actor, filled in by the compiler.
    ///   - body: the test.
    /// - Returns: what `body` returns.
    /// - Throws: what `init` or `body` throws.
    public static func withServer<T>(
        host: String = "127.0.0.1",
        scripts: [ConnectionScript],
        extraConnections: ExtraConnections = .close,
        ioTimeout: Duration = .seconds(30),
        isolation: isolated (any Actor)? = #isolation,
        _ body: (ScriptedServer) async throws -> T
    ) async throws -> T {
        let server = try ScriptedServer(
            host: host, scripts: scripts, extraConnections: extraConnections, ioTimeout: ioTimeout)
        return try await server.run(body)
    }

    /// How many connections were accepted so far.
    public var acceptedConnections: Int {
        core.record.withLock { $0.received.count }
    }

    /// How many connections have finished their script (and been closed) so far.
    public var finishedConnections: Int {
        core.record.withLock { $0.finished }
    }

    /// Everything read from connection `connection` (0-based, accept order), capped at 4 MiB.
    /// - Parameter connection: the connection's index.
    /// - Returns: the bytes, or `[]` for a connection not accepted (yet).
    public func receivedBytes(connection: Int) -> [UInt8] {
        core.record.withLock { $0.received.indices.contains(connection) ? $0.received[connection] : [] }
    }

    /// The request heads ``ScriptStep/readRequest`` read on connection `connection`.
    /// - Parameter connection: the connection's index.
    /// - Returns: the heads in order, or `[]`.
    public func receivedRequestHeads(connection: Int) -> [MessageHead] {
        core.record.withLock { $0.heads.indices.contains(connection) ? $0.heads[connection] : [] }
    }

    /// Expectations the client did not meet and I/O failures, one readable line each
    /// (`"connection 0: readRequest: timedOut"`). Empty when every script ran cleanly.
    public var mismatches: [String] {
        core.record.withLock { $0.mismatches }
    }

    /// Waits until at least `count` connections have finished their scripts, suspending (not
    /// blocking a thread) between checks.
    /// - Parameters:
    ///   - count: how many finished connections to wait for.
    ///   - timeout: the longest wait.
    /// - Returns: whether that many finished in time.
    public func waitForFinishedConnections(_ count: Int, timeout: Duration = .seconds(30)) async -> Bool {
        await waitUntil(timeout: timeout) { finishedConnections >= count }
    }
}
