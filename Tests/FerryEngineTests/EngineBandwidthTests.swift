// Bandwidth caps on live exchanges: every byte still arrives or leaves, in order, on every
// read and write path; no read takes more than the cap has; a held connection survives the
// peer's close, the no-progress timeout and cancellation. How close the achieved rate comes
// to the cap is a benchmark figure (Benchmarks/, the rate workloads); the durations here are
// lower bounds only, which a loaded machine cannot break.
@testable import FerryEngine
import FerryIO
import Foundation
import Testing
import TestSupport

@Suite("Engine: bandwidth caps")
struct EngineBandwidthTests {
    static func capped(_ request: ExchangeRequest, download: BandwidthLimiter? = nil, upload: BandwidthLimiter? = nil)
        -> ExchangeRequest {
        var request = request
        request.bandwidth = BandwidthLimits(download: download, upload: upload)
        return request
    }

    @Test("a capped download arrives whole, no read larger than the burst, and the connection is reused",
          arguments: [false, true])
    func download(ownedChunks: Bool) async throws {
        let body = TestBytes.pattern(count: CappedTransfer.size)
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"]))
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(head + body), .readRequest, .send(EngineTest.bytes(EngineTest.ok("next")))],
        ])
        let engine = try EngineTest.makeEngine()
        let limiter = BandwidthLimiter(bytesPerSecond: CappedTransfer.rate)
        let delegate = CollectingDelegate(takesOwnedChunks: ownedChunks)
        let (_, elapsed) = await CappedTransfer.timed {
            await EngineTest.run(engine, Self.capped(EngineTest.request(server, target: "/big"), download: limiter), delegate: delegate)
        }
        let next = await EngineTest.run(engine, EngineTest.request(server, target: "/next"))
        await EngineTest.shutdown(engine)
        await server.shutdownGracefully()

        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
        #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        #expect(delegate.record.ownedChunkSizes.allSatisfy { $0 <= 4_000 }, "\(delegate.record.ownedChunkSizes)")
        #expect(next.succeeded && next.record.connections.first?.isReused == true, "the capped connection went back to the pool")
    }

    @Test("a fast cap (20 MB/s) moves whole quanta: the body arrives, and the loop still serves another exchange")
    func fastCap() async throws {
        let body = TestBytes.pattern(count: 8 << 20)
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"]))
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(head + body)], [.readRequest, .send(EngineTest.bytes(EngineTest.ok("other")))],
        ])
        let engine = try EngineTest.makeEngine()
        let big = CollectingDelegate()
        _ = engine.execute(Self.capped(EngineTest.request(server, target: "/big"),
                                       download: BandwidthLimiter(bytesPerSecond: 20_000_000)), delegate: big)
        #expect(await eventually { big.record.body.count > 1 << 20 })
        let other = await EngineTest.run(engine, EngineTest.request(server, target: "/other"))
        #expect(other.succeeded && other.record.body == Array("other".utf8))
        #expect(await big.wait())
        await EngineTest.shutdown(engine)
        server.shutdown()
        #expect(big.succeeded, "\(big.record.endings)")
        #expect(big.record.body == body)
        #expect(big.record.bodyCalls >= 2)
    }

    @Test("a close-delimited body under a cap: the peer's close while reading is held back loses nothing")
    func closeWhileHeld() async throws {
        let body = TestBytes.pattern(count: CappedTransfer.size)
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.bytes(EngineTest.response(["Connection: close"])) + body), .close],
        ])
        let engine = try EngineTest.makeEngine()
        let delegate = await EngineTest.run(
            engine, Self.capped(EngineTest.request(server), download: BandwidthLimiter(bytesPerSecond: CappedTransfer.rate)))
        await EngineTest.shutdown(engine)
        server.shutdown()
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
    }

    @Test("waiting for the cap is not the peer's silence: a request timeout shorter than the transfer does not fire")
    func heldIsNotStalled() async throws {
        let body = TestBytes.pattern(count: CappedTransfer.size)
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"])) + body)],
        ])
        let engine = try EngineTest.makeEngine()
        var request = Self.capped(EngineTest.request(server), download: BandwidthLimiter(bytesPerSecond: CappedTransfer.rate),
                                  upload: BandwidthLimiter(bytesPerSecond: 1))
        request.requestTimeout = .milliseconds(300)
        let delegate = await EngineTest.run(engine, request)
        await EngineTest.shutdown(engine)
        server.shutdown()
        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.body == body)
    }

    @Test("cancelling a held download ends it at once, and nothing fires afterwards")
    func cancelWhileHeld() async throws {
        let body = TestBytes.pattern(count: 1_000_000)
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"])) + body)],
        ])
        let engine = try EngineTest.makeEngine()
        let delegate = CollectingDelegate()
        let handle = engine.execute(
            Self.capped(EngineTest.request(server), download: BandwidthLimiter(bytesPerSecond: 10_000)), delegate: delegate)
        #expect(await eventually { delegate.record.body.count >= 1_000 })
        handle.cancel()
        #expect(await delegate.wait())
        #expect(delegate.error?.kind == .cancelled)
        #expect(delegate.record.body.count < body.count)
        #expect(delegate.record.endings.count == 1)
        await EngineTest.shutdown(engine)
        server.shutdown()
    }

    @Test("a capped upload leaves whole from memory, a file and a stream", arguments: ["bytes", "file", "stream"])
    func upload(source: String) async throws {
        let body = TestBytes.pattern(count: CappedTransfer.size)
        let directory = try TemporaryDirectory()
        let exchangeBody: ExchangeBody
        switch source {
        case "bytes": exchangeBody = .bytes(body)
        case "file":
            let path = directory.path("upload.bin")
            try Data(body).write(to: URL(fileURLWithPath: path))
            exchangeBody = .file(path: path)
        default:
            exchangeBody = .stream(ScriptedChunkSource(stride(from: 0, to: body.count, by: 7_000).map {
                Array(body[$0..<min(body.count, $0 + 7_000)])
            }), length: nil)
        }
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("done"))]])
        let engine = try EngineTest.makeEngine()
        let delegate = CollectingDelegate()
        let (_, elapsed) = await CappedTransfer.timed {
            await EngineTest.run(
                engine, Self.capped(EngineTest.request(server, method: .put, body: exchangeBody),
                                    upload: BandwidthLimiter(bytesPerSecond: CappedTransfer.rate)), delegate: delegate)
        }
        await EngineTest.shutdown(engine)
        await server.shutdownGracefully()

        #expect(delegate.succeeded, "\(delegate.record.endings)")
        #expect(delegate.record.sentBodyBytes == Int64(body.count))
        #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
        let received = server.receivedBytes(connection: 0)
        if source == "stream" {
            // Chunked: the payload is the chunks' data, in order.
            #expect(Self.dechunked(received) == body)
        } else {
            #expect(received.suffix(body.count).elementsEqual(body))
        }
    }

    @Test("two exchanges under one shared cap take turns: together they keep to it")
    func sharedCap() async throws {
        let body = TestBytes.pattern(count: CappedTransfer.size / 2)
        let reply = EngineTest.bytes(EngineTest.response(["Content-Length: \(body.count)"])) + body
        let server = try ScriptedServer(scripts: [[.readRequest, .send(reply)], [.readRequest, .send(reply)]])
        let engine = try HTTPClientEngine(loopCount: 2, maxConnectionsPerHost: 6, idleTimeout: .seconds(60))
        let session = BandwidthLimiter(bytesPerSecond: CappedTransfer.rate)
        let first = CollectingDelegate(), second = CollectingDelegate()
        let (_, elapsed) = await CappedTransfer.timed {
            _ = engine.execute(Self.capped(EngineTest.request(server, target: "/1"),
                                           download: BandwidthLimiter(bytesPerSecond: 1_000_000, parent: session)), delegate: first)
            _ = engine.execute(Self.capped(EngineTest.request(server, target: "/2"), download: session), delegate: second)
            _ = await first.wait()
            _ = await second.wait()
        }
        await EngineTest.shutdown(engine)
        server.shutdown()
        #expect(first.succeeded && second.succeeded, "\(first.record.endings) \(second.record.endings)")
        #expect(first.record.body == body && second.record.body == body)
        #expect(elapsed >= CappedTransfer.atLeast, "\(elapsed)")
    }

    /// The data of a chunked body (sizes in hex, CRLFs) after its request head.
    static func dechunked(_ raw: [UInt8]) -> [UInt8] {
        let text = Array(raw)
        guard let headEnd = text.indices.first(where: { text[$0...].starts(with: [13, 10, 13, 10]) }) else { return [] }
        var index = headEnd + 4
        var data: [UInt8] = []
        while let lineEnd = text[index...].indices.first(where: { text[$0...].starts(with: [13, 10]) }),
              let size = Int(String(decoding: text[index..<lineEnd], as: UTF8.self), radix: 16), size > 0 {
            data += text[(lineEnd + 2)..<(lineEnd + 2 + size)]
            index = lineEnd + 2 + size + 2
        }
        return data
    }
}
