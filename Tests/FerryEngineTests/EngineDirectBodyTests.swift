// A delegate that takes body bytes as arrays of its own gets large slices read straight from
// the connection into such an array (no copy out of the read buffer): the bytes, the framing,
// the limits and the connection's reuse must come out as on the ordinary path.
@testable import FerryEngine
import FerryIO
import FerryWire
import HTTPTypes
import Synchronization
import Testing
import TestSupport

@Suite("Engine: body bytes read straight into the consumer's arrays")
struct EngineDirectBodyTests {
    /// Larger than one array, so most of it is read directly into several.
    static let size = 3 * HTTP1Connection.directChunkCapacity(secure: false) + 12_345

    /// A chunked `200 OK` whose body is `chunk` `times` over, then the last chunk and `trailer`
    /// (field lines, each ending in CRLF).
    static func chunkedResponse(_ chunk: [UInt8], times: Int, trailer: String = "") -> [UInt8] {
        var raw = EngineTest.bytes(EngineTest.response(["Transfer-Encoding: chunked"]))
        let size = EngineTest.bytes(String(chunk.count, radix: 16) + "\r\n")
        for _ in 0..<times { raw += size + chunk + EngineTest.bytes("\r\n") }
        return raw + EngineTest.bytes("0\r\n" + trailer + "\r\n")
    }

    /// Steps that send a `Content-Length` head alone, then `body` up to `pauseAt` in 64 KiB
    /// pieces a tenth of a millisecond apart (arrays fill over several reads, which raises the
    /// receive low-water mark), then `pause` (a sleep, or a wait for the client), then the rest
    /// at once.
    static func pacedBody(_ body: [UInt8], pauseAt: Int, pause: ScriptStep) -> [ScriptStep] {
        [.send(EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"]))), .sleep(.milliseconds(100)),
         .sendSlowly(Array(body[..<pauseAt]), chunk: 64 * 1024, interval: .microseconds(100)),
         pause, .send(Array(body[pauseAt...]))]
    }

    /// Where each array the delegate owned ended, counted from the body's start: bytes a late
    /// first read took in behind the head went through the read buffer, before the arrays.
    static func arrayEnds(of delegate: CollectingDelegate) -> (ends: [Int], text: String) {
        let sizes = delegate.record.ownedChunkSizes
        let copied = delegate.record.body.count - sizes.reduce(0, +)
        return (sizes.reduce(into: [copied]) { $0.append($0.last! + $1) }, "\(copied) copied, then \(sizes)")
    }

    @Test("a Content-Length body arrives exactly, mostly in owned arrays, and the connection is reused")
    func contentLength() async throws {
        let body = TestBytes.pattern(count: Self.size)
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"]))
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(head + body), .readRequest, .send(EngineTest.bytes(EngineTest.ok("next")))],
        ])
        let engine = try EngineTest.makeEngine()
        let first = CollectingDelegate(takesOwnedChunks: true)
        await EngineTest.run(engine, EngineTest.request(server, target: "/big"), delegate: first)
        let second = CollectingDelegate(takesOwnedChunks: true)
        await EngineTest.run(engine, EngineTest.request(server, target: "/next"), delegate: second)
        await EngineTest.shutdown(engine)
        await server.shutdownGracefully()

        #expect(first.succeeded, "\(first.record.endings)")
        #expect(first.record.body.count == body.count)
        #expect(TestBytes.firstMismatch(in: first.record.body) == nil)
        #expect(first.record.ownedBodyCalls > 0)
        // The head came in a short read, so at most the rest of that read went through the
        // read buffer (and was copied out); the server sent head and body in one write.
        let (ends, text) = Self.arrayEnds(of: first)
        #expect(ends[0] < HTTP1Connection.directBodyReadMinimum, "\(text)")
        #expect(first.record.metrics?.responseBodyBytes == Int64(body.count))
        #expect(first.record.metrics?.responseBodyBytesDelivered == Int64(body.count))
        #expect(second.succeeded && second.record.body == EngineTest.bytes("next"))
        #expect(second.record.connections.first?.isReused == true, "the body's end left the connection reusable")
    }

    @Test("chunks read directly keep the chunked framing: data, CRLF, next size, trailers")
    func chunked() async throws {
        let chunk = TestBytes.pattern(count: 100_000)
        let raw = Self.chunkedResponse(chunk, times: 4, trailer: "X-Checksum: done\r\n")
        let delegate = try await runAgainstScript(.reply(bytes: raw, closeAfter: false), delegate: CollectingDelegate(takesOwnedChunks: true))
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == Array([[UInt8]](repeating: chunk, count: 4).joined()))
        #expect(delegate.record.ownedBodyCalls > 0)
        #expect(delegate.ending == .finished(trailers: [HTTPField.Name("X-Checksum")!: "done"]))
    }

    @Test("a body trickling in small pieces is handed over in arrays not much larger than their bytes")
    func shortReadsAreNotHeldAtFullCapacity() async throws {
        let body = TestBytes.pattern(count: 64 * 1024)
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"]))
        let delegate = try await runAgainstScript(
            [.readRequest, .send(head), .sendSlowly(body, chunk: 2048, interval: .milliseconds(2)), .readRequest],
            delegate: CollectingDelegate(takesOwnedChunks: true))
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
        #expect(delegate.record.ownedBodyCalls > 0)
        // A read of under a quarter of the array is copied into one of its own size.
        #expect(delegate.record.ownedCapacityRatio <= 4.1, "\(delegate.record.ownedCapacityRatio)")
    }

    @Test("bytes that came before the server paused reach the consumer during the pause, not with what follows")
    func bytesBeforeAPauseAreHandedOver() async throws {
        let body = TestBytes.pattern(count: 100_000)
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"]))
        // The head comes alone, so the body is read straight into the consumer's arrays (bytes
        // that a late first read finds behind the head go through the read buffer, first). The
        // server goes on once the consumer has the first 40,000 bytes, or after 30 s.
        let collecting = CollectingDelegate(takesOwnedChunks: true)
        let delegate = try await runAgainstScript(
            [.readRequest, .send(head), .sleep(.milliseconds(100)), .send(Array(body[..<40_000])),
             .waitUntil { collecting.record.body.count >= 40_000 }, .send(Array(body[40_000...])), .readRequest],
            delegate: collecting)
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
        #expect(!delegate.record.ownedChunkSizes.isEmpty)
        // An array that gathered bytes from both sides of the pause would have waited 30 s.
        let (ends, text) = Self.arrayEnds(of: delegate)
        #expect(ends.contains(40_000), "\(text)")
    }

    @Test("bytes a fast body left below the raised low-water mark reach the consumer while the server pauses")
    func bytesBelowTheLowWaterMarkAreRead() async throws {
        // Pieces a tenth of a millisecond apart: chunks fill over several reads, which raises the
        // mark. The pause leaves 40,000 bytes queued, fewer than the mark, which epoll does not
        // announce; the read timer must lower the mark and take them.
        let chunkSize = HTTP1Connection.directChunkCapacity(secure: false)
        let pauseAt = 4 * chunkSize + 40_000
        let body = TestBytes.pattern(count: pauseAt + 2 * chunkSize)
        let collecting = CollectingDelegate(takesOwnedChunks: true)
        // The server goes on once the consumer has every byte before its pause (or after 30 s,
        // when the arrays' ends show the bytes waited), however slowly a loaded machine runs.
        let paused = ScriptStep.waitUntil { collecting.record.body.count >= pauseAt }
        let delegate = try await runAgainstScript(
            ConnectionScript([.readRequest] + Self.pacedBody(body, pauseAt: pauseAt, pause: paused) + [.readRequest]),
            delegate: collecting)
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
        // An array that gathered bytes from both sides of the pause would have waited 30 s.
        let (ends, text) = Self.arrayEnds(of: delegate)
        #expect(ends.contains(pauseAt), "\(text)")
    }

    @Test("a consumer that pauses a fast body and resumes gets the bytes the server left below the mark")
    func pauseLowersTheLowWaterMark() async throws {
        // Paced as above, so the mark is up; the consumer pauses for 200 ms on the array that
        // takes it within 128 KiB of the server's pause. The bytes after that array come
        // meanwhile and stay queued, under the mark; the server goes on only once they arrived.
        // (Under load a timer may hand an array over early and move where arrays end; the
        // pause then falls on a later one, or on the one ending at the server's pause.)
        let chunkSize = HTTP1Connection.directChunkCapacity(secure: false)
        let pauseAt = 4 * chunkSize + 40_000
        let body = TestBytes.pattern(count: pauseAt + chunkSize)
        let delivered = RunningCount()
        // The server goes on once the consumer has every byte before its pause (or after 30 s,
        // when the arrays' ends show the bytes waited), however slowly a loaded machine runs.
        let server = try ScriptedServer(scripts: [
            ConnectionScript([.readRequest]
                + Self.pacedBody(body, pauseAt: pauseAt, pause: .waitUntil { delivered.value >= pauseAt }) + [.readRequest]),
        ])
        let box = HandleBox()
        let pauses = RunningCount()
        let delegate = CollectingDelegate(policy: { _, count in
            let total = delivered.add(count)
            guard total > pauseAt - Int(ReceiveLowWaterMark.raisedValue), pauses.add(1) == 1 else { return .more }
            box.resume(after: .milliseconds(200))
            return .pause
        }, takesOwnedChunks: true)
        let engine = try EngineTest.makeEngine()
        box.set(engine.execute(EngineTest.request(server, target: "/big"), delegate: delegate))
        _ = await delegate.wait()
        await EngineTest.shutdown(engine)
        await server.shutdownGracefully()

        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
        let (ends, text) = Self.arrayEnds(of: delegate)
        let resumed = box.resumed.load(ordering: .acquiring)
        #expect(resumed, "the consumer paused and resumed")
        // Read on resuming, not with what came after the server went on.
        #expect(ends.contains(pauseAt), "\(text)")
    }

    @Test("a body whose last chunk arrives in one read at the raised mark leaves it down for the next response")
    func lowWaterMarkIsDownForTheNextResponse() async throws {
        // Paced as above, and the last chunk is exactly the mark: epoll announces it whole, one
        // read takes it and ends the body while the mark is still up.
        let body = TestBytes.pattern(count: 4 * HTTP1Connection.directChunkCapacity(secure: false) + Int(ReceiveLowWaterMark.raisedValue))
        let server = try ScriptedServer(scripts: [
            // Held open after it: a FIN would be announced whatever the mark.
            ConnectionScript([.readRequest] + Self.pacedBody(body, pauseAt: body.count, pause: .sleep(.zero))
                + [.readRequest, .send(EngineTest.bytes(EngineTest.ok("next"))), .stallUntilClosed(limit: .seconds(10))]),
        ])
        let engine = try EngineTest.makeEngine()
        let first = CollectingDelegate(takesOwnedChunks: true)
        await EngineTest.run(engine, EngineTest.request(server, target: "/big"), delegate: first)
        // A head of a few dozen bytes under a mark left up would wait for the idle timeout.
        var next = EngineTest.request(server, target: "/next")
        next.requestTimeout = .seconds(5)
        let second = CollectingDelegate(takesOwnedChunks: true)
        await EngineTest.run(engine, next, delegate: second)
        await EngineTest.shutdown(engine)
        await server.shutdownGracefully()

        #expect(first.succeeded, "\(first.record.endings)")
        #expect(first.record.body == body)
        #expect(second.succeeded && second.record.body == EngineTest.bytes("next"), "\(second.record.endings)")
        #expect(second.record.connections.first?.isReused == true)
    }

    @Test("a body delimited by the connection's end arrives whole")
    func untilClose() async throws {
        let body = TestBytes.pattern(count: Self.size)
        let raw = EngineTest.bytes(EngineTest.response(["Connection: close"])) + body
        let delegate = try await runAgainstScript(.reply(bytes: raw, closeAfter: true), delegate: CollectingDelegate(takesOwnedChunks: true))
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body.count == body.count)
        #expect(TestBytes.firstMismatch(in: delegate.record.body) == nil)
    }

    @Test("a chunked body growing past maximumBodySize fails, delivering no more than the limit")
    func limit() async throws {
        let raw = Self.chunkedResponse(TestBytes.pattern(count: 100_000), times: 8)
        let delegate = try await runAgainstScript(.reply(bytes: raw, closeAfter: false), adjust: { $0.maximumBodySize = 250_000 },
                                                  delegate: CollectingDelegate(takesOwnedChunks: true))
        #expect(delegate.error?.kind == .bodyTooLarge(limit: 250_000))
        #expect(delegate.record.body.count <= 250_000)
    }

    @Test("a body cut short fails with partialBody after the bytes that came")
    func cutShort() async throws {
        let body = TestBytes.pattern(count: Self.size)
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count + 1000)"]))
        let delegate = try await runAgainstScript([.readRequest, .send(head + body), .close],
                                                  delegate: CollectingDelegate(takesOwnedChunks: true))
        #expect(delegate.error?.kind == .partialBody(received: Int64(body.count), expected: Int64(body.count + 1000)))
        #expect(delegate.record.body.count == body.count)
    }
}

/// A running total that a delegate's policy adds to (on the loop thread).
private final class RunningCount: Sendable {
    private let total = Atomic<Int>(0)

    /// Adds `count` and returns the new total.
    func add(_ count: Int) -> Int {
        total.add(count, ordering: .relaxed).newValue
    }

    /// The total so far.
    var value: Int { total.load(ordering: .relaxed) }
}
