// A tiny HTTP/1.1 client on plain POSIX sockets, for TestSupport's own tests of the servers
// (other targets test through Ferry). Not Ferry's code, not NIO. Its blocking I/O runs on a
// queue of its own; callers await it.
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// One response read by ``RawHTTPClient``.
public struct RawHTTPResponse: Sendable {
    /// The status line and fields as received.
    public let head: MessageHead
    /// The decoded body (chunk framing removed), at most the limit passed to the read.
    public let body: [UInt8]
    /// For a chunked body, each chunk's size in wire order; `nil` when not chunked.
    public let chunkSizes: [Int]?

    /// The status code from the status line (0 if unparsable).
    public var status: Int {
        let parts = head.startLine.split(separator: " ", maxSplits: 2)
        return parts.count > 1 ? Int(parts[1]) ?? 0 : 0
    }

    /// The first value of the field `name` (case-insensitive), or `nil`.
    /// - Parameter name: a field name.
    public func header(_ name: String) -> String? {
        head.value(of: name)
    }

    /// The body as UTF-8 text.
    public var text: String {
        String(decoding: body, as: UTF8.self)
    }
}

/// A client that writes raw bytes and reads raw or framed responses; each wait is bounded by
/// `timeout`. Use it to test the test servers; use Ferry everywhere else.
///
/// Its I/O blocks, so every call runs on the client's own serial queue and the caller suspends
/// meanwhile: a test never parks a thread of the cooperative pool, which has one thread per
/// core. Use one client from one task at a time (calls are serialized on the queue anyway).
public final class RawHTTPClient: @unchecked Sendable {
    fileprivate(set) var socket: BufferedSocket
    private var isClosed = false
    private let queue = DispatchQueue(label: "RawHTTPClient")

    /// Connects to `host:port`.
    /// - Parameters:
    ///   - port: the server's port.
    ///   - host: `"127.0.0.1"` (default) or `"::1"`.
    ///   - timeout: the longest any connect, read or write waits.
    /// - Throws: ``TestServerError`` when the connection fails.
    public init(port: Int, host: String = "127.0.0.1", timeout: Duration = .seconds(30)) throws {
        let fd = try POSIXSocket.connect(host: host, port: port, timeout: timeout)
        socket = BufferedSocket(fd: fd, timeout: timeout)
    }

    deinit {
        close()
    }

    /// Runs blocking `work` on the client's queue; the caller suspends until it returns.
    fileprivate func io<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { try work() }) }
        }
    }

    /// Writes `bytes` exactly.
    /// - Throws: ``TestServerError`` on a timeout or a closed connection.
    public func send(_ bytes: [UInt8]) async throws {
        try await io {
            do { try self.socket.write(bytes) } catch { throw Self.error(error, while: "sending") }
        }
    }

    /// Writes the UTF-8 bytes of `text` exactly (write `\r\n` yourself).
    /// - Throws: ``TestServerError`` on a timeout or a closed connection.
    public func send(_ text: String) async throws {
        try await send(Array(text.utf8))
    }

    /// Writes a simple request: `METHOD target HTTP/1.1`, `Host`, the given fields, a
    /// `Content-Length` when there is a body, the empty line and the body.
    /// - Parameters:
    ///   - method: e.g. `"GET"`.
    ///   - target: e.g. `"/get?a=1"`.
    ///   - headers: extra field lines as (name, value).
    ///   - body: the body, or `nil` for none.
    /// - Throws: ``TestServerError`` on a timeout or a closed connection.
    public func sendRequest(
        _ method: String, _ target: String, headers: [(String, String)] = [], body: [UInt8]? = nil
    ) async throws {
        var head = "\(method) \(target) HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try await send(Array(head.utf8) + (body ?? []))
    }

    /// Reads one response, framed per RFC 9112 §6.3: none for HEAD, 1xx, 204 and 304; chunked;
    /// Content-Length; else until the connection closes. Interim 1xx responses are skipped.
    /// - Parameters:
    ///   - isHEAD: the request was HEAD (no body follows).
    ///   - limit: the most body bytes kept (all are consumed).
    /// - Returns: the response.
    /// - Throws: ``TestServerError`` on a timeout, a close mid-message or bad framing.
    public func readResponse(isHEAD: Bool = false, limit: Int = 256 * 1024 * 1024) async throws -> RawHTTPResponse {
        try await io { try self.readResponseBlocking(isHEAD: isHEAD, limit: limit) }
    }

    private func readResponseBlocking(isHEAD: Bool, limit: Int) throws -> RawHTTPResponse {
        do {
            while true {
                let head = try socket.readHead()
                let response = RawHTTPResponse(head: head, body: [], chunkSizes: nil)
                let status = response.status
                if (100..<200).contains(status) && status != 101 { continue }
                if isHEAD || status == 204 || status == 304 || status == 101 { return response }
                if head.isChunked {
                    let (body, sizes) = try socket.readChunkedBody(limit: limit)
                    return RawHTTPResponse(head: head, body: body, chunkSizes: sizes)
                }
                if let length = head.contentLength {
                    var body: [UInt8] = []
                    if length <= limit {
                        body = try socket.read(exactly: length)
                    } else {
                        body = try socket.read(exactly: limit)
                        try socket.discard(length - limit)
                    }
                    return RawHTTPResponse(head: head, body: body, chunkSizes: nil)
                }
                return RawHTTPResponse(head: head, body: try socket.readToEOF(limit: limit), chunkSizes: nil)
            }
        } catch {
            throw Self.error(error, while: "reading a response")
        }
    }

    /// Reads every remaining byte until the server closes (or the timeout passes).
    /// - Parameter limit: the most bytes kept.
    /// - Returns: the raw bytes, head and framing included.
    /// - Throws: ``TestServerError`` on a timeout or a reset.
    public func readUntilClose(limit: Int = 64 * 1024 * 1024) async throws -> [UInt8] {
        try await io {
            do { return try self.socket.readToEOF(limit: limit) } catch { throw Self.error(error, while: "reading to EOF") }
        }
    }

    /// Whether the server has closed the connection: waits up to `timeout` for EOF. Bytes that
    /// arrive meanwhile are kept for the next read.
    /// - Returns: `true` on EOF or reset, `false` if bytes arrived or nothing happened in time.
    public func serverClosed(within timeout: Duration) async -> Bool {
        (try? await io { self.serverClosedBlocking(within: timeout) }) ?? false
    }

    private func serverClosedBlocking(within timeout: Duration) -> Bool {
        let saved = socket.timeout
        socket.timeout = timeout
        defer { socket.timeout = saved }
        if !socket.buffered.isEmpty { return false }
        do { return try socket.fill() == 0 } catch .system { return true } catch { return false }
    }

    /// Sends a FIN: no more bytes from this side, reading still works.
    public func shutdownWrite() {
        if !isClosed { Glibc.shutdown(socket.fd, Int32(SHUT_WR)) }
    }

    /// Closes the socket. Safe to call more than once.
    public func close() {
        guard !isClosed else { return }
        isClosed = true
        Glibc.close(socket.fd)
    }

    /// Sends `request` on a new connection and returns everything until the server closes.
    /// - Parameters:
    ///   - port: the server's port.
    ///   - request: the raw request text.
    ///   - timeout: the longest any wait.
    /// - Returns: the raw response bytes.
    /// - Throws: ``TestServerError``.
    public static func exchange(port: Int, request: String, timeout: Duration = .seconds(30)) async throws -> [UInt8] {
        let client = try RawHTTPClient(port: port, timeout: timeout)
        defer { client.close() }
        try await client.send(request)
        return try await client.readUntilClose()
    }

    fileprivate static func error(_ failure: any Error, while action: String) -> TestServerError {
        TestServerError("RawHTTPClient: \(failure) while \(action)")
    }
}

extension RawHTTPClient {
    /// Reads one interim (1xx) response head and returns its status line, for
    /// `Expect: 100-continue` tests.
    /// - Throws: ``TestServerError`` on a timeout or a close.
    public func readInterimStatusLine() async throws -> String {
        try await io {
            do {
                return try self.socket.readHead().startLine
            } catch {
                throw Self.error(error, while: "reading an interim head")
            }
        }
    }

    /// Reads exactly `count` more bytes, whatever they are (after ``readInterimStatusLine()``,
    /// a body's raw bytes).
    /// - Throws: ``TestServerError`` on a timeout or a close.
    public func readUntilCount(_ count: Int) async throws -> [UInt8] {
        try await io {
            do { return try self.socket.read(exactly: count) } catch { throw Self.error(error, while: "reading \(count) bytes") }
        }
    }
}
