// What ScriptedServer does on one accepted connection, step by step.

/// One action of a ``ConnectionScript``.
///
/// Steps run in order on the connection's socket. Reads wait at most the server's read
/// timeout; a read that fails (timeout, EOF, malformed framing) is recorded in
/// ``ScriptedServer/mismatches`` and ends the script. A write the client refuses (reset,
/// closed) is recorded the same way. After ``close``, ``reset`` or the last step, the
/// connection is closed (FIN) if still open, and later steps are ignored.
public struct ScriptStep: Sendable, CustomStringConvertible {
    enum Kind: Sendable {
        case readRequest
        case readHead
        case readBody
        case readBytes(Int)
        case expectRequestLine(prefix: String)
        case send([UInt8])
        case sendSlowly([UInt8], chunk: Int, interval: Duration)
        case sleep(Duration)
        case waitUntil(@Sendable () -> Bool, limit: Duration)
        case stallUntilClosed(limit: Duration)
        case close
        case reset
        case shutdownWrite
    }

    let kind: Kind

    /// Reads one request: the head up to the empty line, then the body per `Content-Length`
    /// or `Transfer-Encoding: chunked` (none otherwise). The head is recorded in
    /// ``ScriptedServer/receivedRequestHeads(connection:)``.
    public static let readRequest = ScriptStep(kind: .readRequest)

    /// Reads one request head only, recorded as ``readRequest`` records it; its body is left
    /// unread (for `Expect: 100-continue`: the server answers before the body comes).
    public static let readHead = ScriptStep(kind: .readHead)

    /// Reads the body the last head announced (chunked, else Content-Length, else none).
    public static let readBody = ScriptStep(kind: .readBody)

    /// Reads exactly `count` bytes (whatever they are).
    /// - Parameter count: how many bytes to consume.
    public static func readBytes(_ count: Int) -> ScriptStep {
        ScriptStep(kind: .readBytes(count))
    }

    /// Checks that the request line of the last request read on this connection starts with
    /// `prefix` (e.g. `"GET /a HTTP/1.1"`); reads a request first if none was read yet. A
    /// mismatch is recorded in ``ScriptedServer/mismatches`` and the script goes on.
    /// - Parameter prefix: the expected start of the request line.
    public static func expectRequestLine(prefix: String) -> ScriptStep {
        ScriptStep(kind: .expectRequestLine(prefix: prefix))
    }

    /// Writes `bytes` exactly as given.
    /// - Parameter bytes: raw bytes for the wire.
    public static func send(_ bytes: [UInt8]) -> ScriptStep {
        ScriptStep(kind: .send(bytes))
    }

    /// Writes the UTF-8 bytes of `text` exactly as given (write `\r\n` yourself).
    /// - Parameter text: raw text for the wire.
    public static func send(_ text: String) -> ScriptStep {
        ScriptStep(kind: .send(Array(text.utf8)))
    }

    /// Writes `bytes` in pieces of `chunk` bytes, waiting `interval` between pieces.
    /// - Parameters:
    ///   - bytes: raw bytes for the wire.
    ///   - chunk: the piece size, 1 or more.
    ///   - interval: the pause between pieces.
    public static func sendSlowly(_ bytes: [UInt8], chunk: Int, interval: Duration) -> ScriptStep {
        ScriptStep(kind: .sendSlowly(bytes, chunk: max(1, chunk), interval: interval))
    }

    /// ``sendSlowly(_:chunk:interval:)`` for text.
    /// - Parameters:
    ///   - text: raw text for the wire.
    ///   - chunk: the piece size in bytes, 1 or more.
    ///   - interval: the pause between pieces.
    public static func sendSlowly(_ text: String, chunk: Int, interval: Duration) -> ScriptStep {
        sendSlowly(Array(text.utf8), chunk: chunk, interval: interval)
    }

    /// Does nothing for `duration` (cut short by ``ScriptedServer/shutdown()``).
    /// - Parameter duration: how long to wait.
    public static func sleep(_ duration: Duration) -> ScriptStep {
        ScriptStep(kind: .sleep(duration))
    }

    /// Does nothing until `condition` holds (checked every millisecond), at most `limit`, then
    /// goes on either way (cut short by ``ScriptedServer/shutdown()``). For a script whose next
    /// bytes must wait for the client to have done something, however slowly a loaded machine
    /// lets it run: the test's assertions tell whether it did.
    /// - Parameters:
    ///   - condition: checked on the server's thread.
    ///   - limit: the longest wait.
    public static func waitUntil(limit: Duration = .seconds(30), _ condition: @escaping @Sendable () -> Bool) -> ScriptStep {
        ScriptStep(kind: .waitUntil(condition, limit: limit))
    }

    /// Neither reads nor writes until the client closes (FIN or RST) or the server shuts down,
    /// at most 60 seconds.
    public static let stallUntilClosed = ScriptStep(kind: .stallUntilClosed(limit: .seconds(60)))

    /// ``stallUntilClosed`` with another upper bound.
    /// - Parameter limit: the longest stall.
    public static func stallUntilClosed(limit: Duration) -> ScriptStep {
        ScriptStep(kind: .stallUntilClosed(limit: limit))
    }

    /// Closes the connection with a FIN. Bytes the client already sent are read first (and
    /// recorded), so the kernel does not turn the close into an RST.
    public static let close = ScriptStep(kind: .close)

    /// Closes the connection with an RST (`SO_LINGER` 0, then `close`).
    public static let reset = ScriptStep(kind: .reset)

    /// Sends a FIN but keeps reading (`shutdown(SHUT_WR)`).
    public static let shutdownWrite = ScriptStep(kind: .shutdownWrite)

    /// A short readable form, for failure messages.
    public var description: String {
        switch kind {
        case .readRequest: "readRequest"
        case .readHead: "readHead"
        case .readBody: "readBody"
        case .readBytes(let count): "readBytes(\(count))"
        case .expectRequestLine(let prefix): "expectRequestLine(\(prefix))"
        case .send(let bytes): "send(\(bytes.count) bytes)"
        case .sendSlowly(let bytes, let chunk, let interval): "sendSlowly(\(bytes.count) bytes, \(chunk), \(interval))"
        case .sleep(let duration): "sleep(\(duration))"
        case .waitUntil(_, let limit): "waitUntil(limit: \(limit))"
        case .stallUntilClosed(let limit): "stallUntilClosed(limit: \(limit))"
        case .close: "close"
        case .reset: "reset"
        case .shutdownWrite: "shutdownWrite"
        }
    }
}

/// The steps ``ScriptedServer`` runs on one accepted connection.
public struct ConnectionScript: Sendable, ExpressibleByArrayLiteral {
    /// The steps, in order.
    public var steps: [ScriptStep]

    /// Creates a script from steps.
    /// - Parameter steps: what to do, in order.
    public init(_ steps: [ScriptStep]) {
        self.steps = steps
    }

    /// Creates a script from an array literal of steps.
    /// - Parameter elements: what to do, in order.
    public init(arrayLiteral elements: ScriptStep...) {
        steps = elements
    }

    /// Reads one request, sends `raw` exactly, then closes (FIN) or keeps the connection open
    /// until the client closes it.
    /// - Parameters:
    ///   - raw: the whole response as it goes on the wire (status line, `\r\n`s, body).
    ///   - closeAfter: close right after sending; when `false`, wait for the client to close.
    /// - Returns: the script.
    public static func reply(_ raw: String, closeAfter: Bool = true) -> ConnectionScript {
        ConnectionScript([.readRequest, .send(raw), closeAfter ? .close : .stallUntilClosed])
    }

    /// ``reply(_:closeAfter:)`` for raw bytes.
    /// - Parameters:
    ///   - raw: the whole response as bytes.
    ///   - closeAfter: close right after sending; when `false`, wait for the client to close.
    /// - Returns: the script.
    public static func reply(bytes raw: [UInt8], closeAfter: Bool = true) -> ConnectionScript {
        ConnectionScript([.readRequest, .send(raw), closeAfter ? .close : .stallUntilClosed])
    }
}
