// Less common but legal (or legally refused) exchanges: early answers during an upload, body
// sources that fail, trailers, ambiguous framing, late junk, and backpressure with decoding.
import Dispatch
@testable import FerryEngine
import FerryIO
import FerryWire
import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestSupport

@Suite("Engine: edge cases on the wire")
struct EngineEdgeCaseTests {
    private static let stall = ScriptStep.stallUntilClosed(limit: .seconds(30))
    private static let upload = [UInt8](repeating: UInt8(ascii: "u"), count: 8 * 1024 * 1024)

    // MARK: - Uploads

    /// POSTs `body` to a server that answers 413 at once, without reading it, and closes.
    private func postAnsweredEarly(_ body: ExchangeBody) async throws -> CollectingDelegate {
        let server = try ScriptedServer(scripts: [[
            .sleep(.milliseconds(100)),
            .send(EngineTest.response(status: "413 Content Too Large", ["Content-Length: 4", "Connection: close"], body: "nope")),
            // The engine's FIN queues behind request bytes nobody reads, so the server closes.
            .sleep(.milliseconds(300)), .close,
        ]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, EngineTest.request(server, method: .post, body: body))
        #expect(delegate.succeeded, "ended with \(delegate.record.endings)")
        #expect(delegate.record.heads.first?.status.code == 413)
        return delegate
    }

    @Test("an early 413 while the body is still being written: the response is delivered, the upload stops")
    func earlyResponseStopsUpload() async throws {
        let delegate = try await postAnsweredEarly(.bytes(Self.upload))
        #expect(delegate.record.body == EngineTest.bytes("nope"))
        #expect(delegate.record.sentBodyBytes < Int64(Self.upload.count))
    }

    @Test("an early answer while a streamed body waits for its producer: the response is delivered, the source told to stop")
    func earlyResponseCancelsTheSource() async throws {
        final class StalledSource: BodyChunkSource {
            let cancelled = AsyncEvent()
            let calls = Atomic<Int>(0)
            func nextChunk(_ completion: @escaping @Sendable (Result<[UInt8]?, EngineError>) -> Void) {
                // One chunk, then the producer has nothing more for now.
                if calls.add(1, ordering: .relaxed).newValue == 1 { completion(.success(Array("abc".utf8))) }
            }
            func cancel() { cancelled.set() }
        }
        let source = StalledSource()
        _ = try await postAnsweredEarly(.stream(source, length: nil))
        #expect(await source.cancelled.wait(timeout: .seconds(30)), "the producer was told to stop")
    }

    @Test("an early keep-alive answer during an upload still retires the connection")
    func earlyResponseConnectionNotReused() async throws {
        let server = try ScriptedServer(scripts: [
            // The server closes itself: the engine's FIN would queue behind unread request bytes.
            [.sleep(.milliseconds(100)), .send(EngineTest.response(status: "403 Forbidden", ["Content-Length: 0"])),
             .sleep(.milliseconds(300)), .close],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let first = await EngineTest.run(engine, EngineTest.request(server, method: .post, body: .bytes(Self.upload)))
        #expect(first.record.heads.first?.status.code == 403)
        #expect(first.succeeded)
        let second = await EngineTest.run(engine, EngineTest.request(server))
        #expect(second.succeeded)
        // Reusing the first connection would show as `true` first (and a retry after it).
        #expect(second.record.connections.map(\.isReused) == [false])
        #expect(server.acceptedConnections == 2)
    }

    @Test("a server that reads nothing: requestTimedOut while sending the request")
    func idleTimeoutWhileSending() async throws {
        let delegate = try await runAgainstScript([Self.stall]) {
            $0.head.method = .post
            $0.body = .bytes(Self.upload)
            $0.requestTimeout = .milliseconds(300)
        }
        #expect(delegate.error?.kind == .requestTimedOut(.sendingRequest))
    }

    @Test("a body stream that fails: requestBodyFailed, the source is cancelled, the connection closed")
    func failingStream() async throws {
        final class FailingSource: BodyChunkSource {
            let cancelled = Atomic<Bool>(false)
            let calls = Atomic<Int>(0)
            func nextChunk(_ completion: @escaping @Sendable (Result<[UInt8]?, EngineError>) -> Void) {
                let call = calls.add(1, ordering: .relaxed).newValue
                completion(call == 1 ? .success(Array("abc".utf8)) : .failure(EngineError(.requestBodyFailed("disk gone"))))
            }
            func cancel() { cancelled.store(true, ordering: .relaxed) }
        }
        let source = FailingSource()
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("unexpected")), Self.stall]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, EngineTest.request(server, method: .post, body: .stream(source, length: nil)))
        #expect(delegate.error?.kind == .requestBodyFailed("disk gone"))
        let cancelled = source.cancelled.load(ordering: .relaxed)
        #expect(cancelled)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
    }

    @Test("a body stream shorter than its announced length: requestBodyFailed")
    func streamShorterThanLength() async throws {
        let source = ScriptedChunkSource([Array("12345".utf8)])
        let delegate = try await runAgainstScript([Self.stall]) {
            $0.head.method = .put
            $0.body = .stream(source, length: 10)
        }
        guard case .requestBodyFailed = delegate.error?.kind else {
            Issue.record("expected requestBodyFailed, got \(delegate.record.endings)")
            return
        }
        #expect(source.wasCancelled)
    }

    // MARK: - Framing

    @Test("chunked trailers are delivered with the end")
    func trailersDelivered() async throws {
        let raw = EngineTest.response(["Transfer-Encoding: chunked", "Trailer: X-Sum"]) + "3\r\nabc\r\n0\r\nX-Sum: 42\r\n\r\n"
        let delegate = try await runAgainstScript(.reply(raw, closeAfter: false))
        #expect(delegate.record.endings == [.finished(trailers: [.test("X-Sum"): "42"])])
        #expect(delegate.record.body == EngineTest.bytes("abc"))
    }

    @Test("Transfer-Encoding and Content-Length together: read as chunked, then the connection is retired")
    func chunkedWithContentLength() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.response(["Content-Length: 100", "Transfer-Encoding: chunked"]) + "3\r\nabc\r\n0\r\n\r\n"), Self.stall],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let first = await EngineTest.run(engine, EngineTest.request(server))
        #expect(first.succeeded)
        #expect(first.record.body == EngineTest.bytes("abc"))
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        #expect(server.acceptedConnections == 2)
    }

    @Test("a repeated identical Content-Length is one length")
    func repeatedIdenticalContentLength() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.response(["Content-Length: 5, 5", "Content-Length: 5"], body: "hello"), closeAfter: false))
        #expect(delegate.succeeded)
        #expect(delegate.record.body == EngineTest.bytes("hello"))
    }

    @Test("a chunk size beyond 63 bits: chunkSizeOverflow")
    func chunkSizeOverflow() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.response(["Transfer-Encoding: chunked"]) + "1ffffffffffffffff\r\n"))
        #expect(delegate.parseError?.kind == .chunkSizeOverflow)
    }

    @Test("bytes arriving later on a parked connection retire it: the next request uses a new one")
    func lateJunkOnIdleConnection() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .sleep(.milliseconds(100)), .send("HTTP/1.1 200 OK\r\n"), Self.stall],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        // The stall of the first script ends only when the engine closes that connection.
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
        let second = await EngineTest.run(engine, EngineTest.request(server))
        #expect(second.succeeded)
        #expect(second.record.body == EngineTest.bytes("two"))
    }

    // MARK: - Backpressure with decoding

    // MARK: - Retried requests send their whole body again

    /// A connection that serves one GET, then reads the next request and closes (stale), and
    /// a fresh one that reads the retried request and answers it.
    private func staleThenFresh() throws -> ScriptedServer {
        // A long I/O timeout: the stale connection must still be open when the second request
        // comes, however slowly a loaded machine gets there.
        try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .readRequest, .close],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ], ioTimeout: .seconds(120))
    }

    /// Runs a GET, then `second` on the stale connection; returns its delegate.
    private func retried(_ server: ScriptedServer, _ second: ExchangeRequest) async throws -> CollectingDelegate {
        let engine = try HTTPClientEngine(loopCount: 1, maxConnectionsPerHost: 6, idleTimeout: .seconds(60))
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        return await EngineTest.run(engine, second)
    }

    @Test("a PUT with a bytes body is retried with the whole body, byte for byte")
    func retriedPutBytes() async throws {
        let server = try staleThenFresh()
        defer { server.shutdown() }
        let body = TestBytes.pattern(count: 300_000)
        let delegate = try await retried(server, EngineTest.request(server, method: .put, target: "/p", body: .bytes(body)))
        #expect(delegate.succeeded)
        #expect(delegate.record.sentHeads.count == 2)
        let head = EngineTest.bytes("PUT /p HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 300000\r\n\r\n")
        #expect(server.receivedBytes(connection: 1) == head + body)
    }

    @Test("a PUT with a file body is retried from the file's first byte")
    func retriedPutFile() async throws {
        let server = try staleThenFresh()
        defer { server.shutdown() }
        let body = TestBytes.pattern(count: 200_000)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("ferry-retry-\(UUID().uuidString)").path
        #expect(FileManager.default.createFile(atPath: path, contents: Data(body)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let delegate = try await retried(server, EngineTest.request(server, method: .put, target: "/f", body: .file(path: path)))
        #expect(delegate.succeeded)
        #expect(delegate.record.sentHeads.count == 2)
        let head = EngineTest.bytes("PUT /f HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 200000\r\n\r\n")
        #expect(server.receivedBytes(connection: 1) == head + body)
    }

    @Test("a PUT with a streamed body is not retried: its source cannot be replayed")
    func streamedPutNotRetried() async throws {
        let server = try staleThenFresh()
        defer { server.shutdown() }
        let source = ScriptedChunkSource([Array("once".utf8)])
        let delegate = try await retried(server, EngineTest.request(server, method: .put, body: .stream(source, length: nil)))
        #expect(delegate.error?.kind == .emptyReply)
        #expect(delegate.record.sentHeads.count == 1)
    }
}
