// Timeouts, interim responses, decoding and size limits against a raw-socket server.
@testable import FerryEngine
import FerryWire
import HTTPTypes
import Testing
import TestSupport

@Suite("Engine: timeouts, interim responses and body limits")
struct EngineTimeoutAndLimitTests {
    // MARK: - Timeouts

    @Test("a server that stalls after the head: requestTimedOut while receiving the body")
    func idleTimeoutAfterHead() async throws {
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nab"), .stallUntilClosed(limit: .seconds(30)),
        ]) { $0.requestTimeout = .milliseconds(300) }
        #expect(delegate.error?.kind == .requestTimedOut(.receivingBody))
        #expect(delegate.record.body == EngineTest.bytes("ab"))
    }

    @Test("a server that never answers: requestTimedOut while awaiting the response")
    func idleTimeoutBeforeResponse() async throws {
        let delegate = try await runAgainstScript([.readRequest, .stallUntilClosed(limit: .seconds(30))]) {
            $0.requestTimeout = .milliseconds(300)
        }
        #expect(delegate.error?.kind == .requestTimedOut(.awaitingResponse))
    }

    @Test("a body dripped steadily, each byte within the idle timeout: totalTimedOut")
    func totalTimeoutWhileDripping() async throws {
        // 600 bytes, one per 50 ms: the drip lasts 30 s, far longer than any stall of a loaded
        // machine, so the total timeout always fires first; the idle timeout is 40 intervals.
        let body = String(repeating: "d", count: 600)
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 600\r\n\r\n"),
            .sendSlowly(body, chunk: 1, interval: .milliseconds(50)),
        ]) {
            $0.requestTimeout = .seconds(2)
            $0.totalTimeout = .seconds(3)
        }
        #expect(delegate.error?.kind == .totalTimedOut(.receivingBody))
        // Progress was real: some bytes arrived, and not all of them.
        #expect(!delegate.record.body.isEmpty)
        #expect(delegate.record.body.count < 600)
    }

    // MARK: - Interim responses

    @Test("100 Continue, then 200: only the 200 is delivered, with its body")
    func continueThenOK() async throws {
        let delegate = try await runAgainstScript(.reply("HTTP/1.1 100 Continue\r\n\r\n" + EngineTest.ok("done")))
        #expect(delegate.succeeded)
        #expect(delegate.record.heads.map(\.status.code) == [200])
        #expect(delegate.record.body == EngineTest.bytes("done"))
    }

    @Test("100 Continue and 103 Early Hints sent apart from the 200: still only the 200")
    func interimResponsesInSeparateSegments() async throws {
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 100 Continue\r\n\r\n"), .sleep(.milliseconds(50)),
            .send("HTTP/1.1 103 Early Hints\r\nLink: </s.css>; rel=preload\r\n\r\n"), .sleep(.milliseconds(50)),
            .send(EngineTest.response(["Content-Length: 2", "X-Final: yes"], body: "ok")), .stallUntilClosed(limit: .seconds(30)),
        ])
        #expect(delegate.succeeded)
        #expect(delegate.record.heads.count == 1)
        #expect(delegate.record.heads.first?.status.code == 200)
        #expect(delegate.record.heads.first?.headerFields[.test("X-Final")] == "yes")
        #expect(delegate.record.heads.first?.headerFields[.test("Link")] == nil)
        #expect(delegate.record.body == EngineTest.bytes("ok"))
    }

    @Test("103 Early Hints then 200 in one write")
    func earlyHintsThenOK() async throws {
        let raw = "HTTP/1.1 103 Early Hints\r\nLink: </a.js>; rel=preload\r\n\r\n" + EngineTest.ok("body")
        let delegate = try await runAgainstScript(.reply(raw, closeAfter: false))
        #expect(delegate.succeeded)
        #expect(delegate.record.heads.map(\.status.code) == [200])
        #expect(delegate.record.body == EngineTest.bytes("body"))
    }

    // MARK: - Decoding

    @Test("a gzip body is decoded when asked")
    func gzipDecoded() async throws {
        let plain = TestBytes.pattern(count: 100_000)
        let gzip = Zlib.compress(plain, format: .gzip)
        let head = EngineTest.bytes(EngineTest.response(["Content-Encoding: gzip", "Content-Length: \(gzip.count)"]))
        let delegate = try await runAgainstScript(.reply(bytes: head + gzip, closeAfter: false)) { $0.decodesContent = true }
        #expect(delegate.succeeded)
        #expect(delegate.record.body.count == plain.count)
        #expect(TestBytes.firstMismatch(in: delegate.record.body) == nil)
    }

    @Test("a 100 MiB gzip bomb with default limits: decoding(expansionRatioExceeded), bounded delivery")
    func gzipBomb() async throws {
        let bomb = Zlib.compressZeros(count: 100 * 1024 * 1024, format: .gzip)
        let head = EngineTest.bytes(EngineTest.response(["Content-Encoding: gzip", "Content-Length: \(bomb.count)"]))
        let delegate = try await runAgainstScript(.reply(bytes: head + bomb, closeAfter: false)) { $0.decodesContent = true }
        #expect(delegate.decodingError?.kind == .expansionRatioExceeded)
        #expect(delegate.record.body.count <= Int(DecodingLimits.default.ratioGraceBytes) + ContentDecoder.outputBufferSize)
    }

    @Test("corrupt gzip: decoding(corruptData)")
    func corruptGzip() async throws {
        let junk = [UInt8](repeating: 0x42, count: 64)
        let head = EngineTest.bytes(EngineTest.response(["Content-Encoding: gzip", "Content-Length: 64"]))
        let delegate = try await runAgainstScript(.reply(bytes: head + junk, closeAfter: false)) { $0.decodesContent = true }
        #expect(delegate.decodingError?.kind == .corruptData)
    }

    @Test("a gzip stream cut short though its framing is complete: decoding(truncatedStream)")
    func truncatedGzip() async throws {
        let gzip = Array(Zlib.compress(TestBytes.pattern(count: 10_000), format: .gzip).dropLast(12))
        let head = EngineTest.bytes(EngineTest.response(["Content-Encoding: gzip", "Content-Length: \(gzip.count)"]))
        let delegate = try await runAgainstScript(.reply(bytes: head + gzip, closeAfter: false)) { $0.decodesContent = true }
        #expect(delegate.decodingError?.kind == .truncatedStream)
    }

    // MARK: - Body size limit

    @Test("an announced Content-Length over maximumBodySize is refused at the head")
    func bodyTooLargeAnnounced() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.ok(String(repeating: "x", count: 100)), closeAfter: false)) {
            $0.maximumBodySize = 10
        }
        #expect(delegate.error?.kind == .bodyTooLarge(limit: 10))
        #expect(delegate.record.body.isEmpty)
    }

    @Test("a chunked body growing past maximumBodySize fails, delivering no more than the limit")
    func bodyTooLargeChunked() async throws {
        let raw = EngineTest.response(["Transfer-Encoding: chunked"])
            + "8\r\n01234567\r\n8\r\n89abcdef\r\n8\r\nghijklmn\r\n0\r\n\r\n"
        let delegate = try await runAgainstScript(.reply(raw, closeAfter: false)) { $0.maximumBodySize = 20 }
        #expect(delegate.error?.kind == .bodyTooLarge(limit: 20))
        #expect(delegate.record.body.count <= 20)
    }

    @Test("a body of exactly maximumBodySize is accepted")
    func bodyAtLimit() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.ok("0123456789"), closeAfter: false)) { $0.maximumBodySize = 10 }
        #expect(delegate.succeeded)
        #expect(delegate.record.body.count == 10)
    }

    @Test("maximumBodySize bounds the decoded size of a gzip body")
    func bodyTooLargeDecoded() async throws {
        let gzip = Zlib.compress(TestBytes.pattern(count: 50_000), format: .gzip)
        let head = EngineTest.bytes(EngineTest.response(["Content-Encoding: gzip", "Content-Length: \(gzip.count)"]))
        let delegate = try await runAgainstScript(.reply(bytes: head + gzip, closeAfter: false)) {
            $0.decodesContent = true
            $0.maximumBodySize = 1_000
        }
        #expect(delegate.error?.kind == .bodyTooLarge(limit: 1_000))
        #expect(delegate.record.body.count <= 1_000)
    }
}
