// Shared pieces of the engine-level integration tests: a delegate that records everything the
// engine reports, a scripted request body, and small builders for requests and raw responses.
@testable import FerryEngine
import FerryBase
import FerryIO
import FerryWire
import HTTPTypes
import Synchronization
import Testing
import TestSupport

/// How an exchange ended, as its delegate was told.
enum ExchangeEnding: Sendable, Equatable {
    case finished(trailers: HTTPFields)
    case failed(EngineError)
}

/// An ``ExchangeDelegate`` that records every callback and lets the test wait for the end.
///
/// Callbacks arrive on the engine's loop thread; the record is guarded by a mutex, and the
/// test suspends on an ``AsyncEvent`` with a bounded wait. It never blocks a thread: tests run
/// on the cooperative pool, whose few threads every other test needs too.
final class CollectingDelegate: ExchangeDelegate, Sendable {
    struct Record: Sendable {
        var sentHeads: [RequestHead] = []
        /// Per sent head: whether the engine added its `Expect: 100-continue`.
        var addedExpectations: [Bool] = []
        var connections: [ConnectionFacts] = []
        var sentBodyBytes: Int64 = 0
        var heads: [ResponseHead] = []
        var body: [UInt8] = []
        var bodyCalls = 0
        /// Body callbacks that handed over an array read straight from the connection.
        var ownedBodyCalls = 0
        /// The largest capacity an owned array had for each byte it held.
        var ownedCapacityRatio = 0.0
        /// The byte count of each owned array, in order.
        var ownedChunkSizes: [Int] = []
        var endings: [ExchangeEnding] = []
        var metrics: ExchangeMetrics?
    }

    /// Decides the demand after the `call`-th body callback (0-based) of `count` bytes.
    typealias BodyPolicy = @Sendable (_ call: Int, _ count: Int) -> BodyDemand

    private let state = Locked(Record())
    private let ended = AsyncEvent()
    private let policy: BodyPolicy?
    /// Decides the demand after the response head.
    private let headPolicy: (@Sendable () -> BodyDemand)?
    /// Whether the delegate asks for body bytes as arrays of its own.
    let prefersOwnedBodyChunks: Bool

    init(policy: BodyPolicy? = nil, headPolicy: (@Sendable () -> BodyDemand)? = nil, takesOwnedChunks: Bool = false) {
        self.policy = policy
        self.headPolicy = headPolicy
        self.prefersOwnedBodyChunks = takesOwnedChunks
    }

    /// A copy of what was recorded so far.
    var record: Record { state.withLock { $0 } }

    /// The single ending, if exactly one arrived.
    var ending: ExchangeEnding? {
        let endings = record.endings
        return endings.count == 1 ? endings[0] : nil
    }

    /// The error the exchange failed with, if it failed.
    var error: EngineError? {
        if case .failed(let error) = ending { return error }
        return nil
    }

    /// The parse error inside ``error``, if it is one.
    var parseError: HTTPParseError? {
        if case .parse(let parse) = error?.kind { return parse }
        return nil
    }

    /// The content-decoding error inside ``error``, if it is one.
    var decodingError: ContentDecodingError? {
        if case .decoding(let decoding) = error?.kind { return decoding }
        return nil
    }

    /// Whether the exchange finished successfully.
    var succeeded: Bool {
        if case .finished = ending { return true }
        return false
    }

    /// Suspends until the exchange ends; `false` when `timeout` passed first. An ending that
    /// arrived before the call counts, and calling it again after the end returns at once.
    func wait(timeout: Duration = .seconds(30)) async -> Bool {
        await ended.wait(timeout: timeout)
    }

    // MARK: - ExchangeDelegate

    func exchangeDidSendHead(_ head: RequestHead, addedExpectation: Bool, connection: ConnectionFacts) {
        state.withLock {
            $0.sentHeads.append(head)
            $0.addedExpectations.append(addedExpectation)
            $0.connections.append(connection)
        }
    }

    func exchangeDidSendBody(bytes: Int64, total: Int64, expected: Int64?) {
        state.withLock { $0.sentBodyBytes += bytes }
    }

    func exchangeDidReceiveHead(_ head: ResponseHead) -> BodyDemand {
        state.withLock { $0.heads.append(head) }
        return headPolicy?() ?? .more
    }

    func exchangeDidReceiveBody(_ bytes: UnsafeRawBufferPointer) -> BodyDemand {
        let call = state.withLock { record in
            record.body.append(contentsOf: bytes)
            record.bodyCalls += 1
            return record.bodyCalls - 1
        }
        return policy?(call, bytes.count) ?? .more
    }

    func exchangeDidReceiveBody(owned chunk: consuming [UInt8]) -> BodyDemand {
        let chunk = consume chunk
        let call = state.withLock { record in
            record.body.append(contentsOf: chunk)
            record.bodyCalls += 1
            record.ownedBodyCalls += 1
            record.ownedChunkSizes.append(chunk.count)
            record.ownedCapacityRatio = max(record.ownedCapacityRatio, Double(chunk.capacity) / Double(max(chunk.count, 1)))
            return record.bodyCalls - 1
        }
        return policy?(call, chunk.count) ?? .more
    }

    func exchangeDidFinish(trailers: HTTPFields, metrics: ExchangeMetrics) {
        end(.finished(trailers: trailers), metrics)
    }

    func exchangeDidFail(_ error: EngineError, metrics: ExchangeMetrics) {
        end(.failed(error), metrics)
    }

    private func end(_ ending: ExchangeEnding, _ metrics: ExchangeMetrics) {
        state.withLock {
            $0.endings.append(ending)
            $0.metrics = metrics
        }
        ended.set()
    }
}

/// A streamed request body that hands out prepared chunks, then the end.
final class ScriptedChunkSource: BodyChunkSource {
    private let chunks: Locked<[[UInt8]]>
    private let cancelled = Atomic<Bool>(false)

    init(_ chunks: [[UInt8]]) {
        self.chunks = Locked(chunks)
    }

    /// Whether the engine told the source to stop.
    var wasCancelled: Bool { cancelled.load(ordering: .acquiring) }

    func nextChunk(_ completion: @escaping @Sendable (Result<[UInt8]?, EngineError>) -> Void) {
        let next = chunks.withLock { $0.isEmpty ? nil : $0.removeFirst() }
        completion(.success(next))
    }

    func cancel() {
        cancelled.store(true, ordering: .releasing)
    }
}

// MARK: - Builders

/// Engine-level test utilities.
enum EngineTest {
    /// One loop, six connections per host, a minute of idle keep-alive: the brief's engine.
    static func makeEngine() throws -> HTTPClientEngine {
        try HTTPClientEngine(loopCount: 1, maxConnectionsPerHost: 6, idleTimeout: .seconds(60))
    }

    /// A request to `server`, with the Host the engine derives from it.
    static func request(
        _ server: ScriptedServer, method: HTTPRequest.Method = .get, target: String = "/",
        fields: HTTPFields = [:], body: ExchangeBody = .none
    ) -> ExchangeRequest {
        ExchangeRequest(
            key: PoolKey(scheme: "http", host: "127.0.0.1", port: server.port),
            head: RequestHead(method: method, target: target, host: "127.0.0.1:\(server.port)", headerFields: fields),
            body: body)
    }

    /// Runs `request` and waits (at most 5 s, suspended) for it to end.
    @discardableResult
    static func run(
        _ engine: HTTPClientEngine, _ request: ExchangeRequest, delegate: CollectingDelegate = CollectingDelegate()
    ) async -> CollectingDelegate {
        _ = engine.execute(request, delegate: delegate)
        _ = await delegate.wait()
        return delegate
    }

    /// Shuts `engine` down (closing connections, joining its loop threads) on a thread of its
    /// own, suspending meanwhile instead of blocking a cooperative-pool thread.
    static func shutdown(_ engine: HTTPClientEngine) async {
        await offThePool { engine.shutdown() }
    }

    /// The script for the connection ``expectNoOtherConnection(from:to:accepted:sourceLocation:)``
    /// opens: one `GET /marker`, answered, then closed.
    static let markerScript: ConnectionScript = [.readRequest, .send(ok("marker")), .close]

    /// Expects that `engine` opened exactly `accepted` connections to `server`, learnt from an
    /// event instead of a pause long enough for a stray connection to show up.
    ///
    /// Shuts `engine` down (closing its sockets; no connect starts afterwards), then sends
    /// `GET /marker` from a fresh engine. The kernel queues connections for `accept` in the order
    /// their handshakes complete, and ``ScriptedServer`` serves them in accept order, so every
    /// connection `engine` made, even one still in the listen backlog, is served before the
    /// marker: the marker lands on connection `accepted` (whose script must be ``markerScript``)
    /// only if there was no other.
    static func expectNoOtherConnection(
        from engine: HTTPClientEngine, to server: ScriptedServer, accepted: Int,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        await shutdown(engine)
        let markerEngine = try makeEngine()
        let marker = await run(markerEngine, request(server, target: "/marker"))
        await shutdown(markerEngine)
        #expect(marker.succeeded, "the marker request: \(marker.record.endings)", sourceLocation: sourceLocation)
        #expect(server.receivedRequestHeads(connection: accepted).map(\.startLine) == ["GET /marker HTTP/1.1"],
                "connection \(accepted) should be the marker's", sourceLocation: sourceLocation)
        #expect(server.acceptedConnections == accepted + 1, sourceLocation: sourceLocation)
    }

    /// The UTF-8 bytes of `text`.
    static func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    /// A raw response: status line, `fields` (each `Name: value`), the empty line, `body`.
    static func response(status: String = "200 OK", _ fields: [String], body: String = "") -> String {
        var text = "HTTP/1.1 \(status)\r\n"
        for field in fields { text += field + "\r\n" }
        return text + "\r\n" + body
    }

    /// A keep-alive `200 OK` with a Content-Length body.
    static func ok(_ body: String) -> String {
        response(["Content-Length: \(body.utf8.count)"], body: body)
    }
}

extension HTTPField.Name {
    /// A field name for tests; traps only on a typo in the test itself.
    static func test(_ name: String) -> HTTPField.Name {
        guard let parsed = HTTPField.Name(name) else { preconditionFailure("bad test field name \(name)") }
        return parsed
    }
}
