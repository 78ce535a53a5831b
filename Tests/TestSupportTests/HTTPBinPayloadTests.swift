import Foundation
import Testing

@testable import TestSupport

/// HTTPBinServer: byte routes, framing, ranges, compression and pacing.
@Suite struct HTTPBinPayloadTests {
    @Test func bytesAreTheExactPattern() async throws {
        try await HTTPBinServer.withServer { server in
            let response = try await HTTPBinTest.fetch(server, "/bytes/1000")
            #expect(response.header("Content-Length") == "1000")
            #expect(response.chunkSizes == nil)
            #expect(response.body == TestBytes.pattern(count: 1000))
            #expect(try await HTTPBinTest.fetch(server, "/bytes/0").body.isEmpty)
            #expect(try await HTTPBinTest.fetch(server, "/bytes/-1").status == 400)
        }
    }

    @Test func streamBytesAndChunkedUseChunkFraming() async throws {
        try await HTTPBinServer.withServer { server in
            let streamed = try await HTTPBinTest.fetch(server, "/stream-bytes/1000?chunk_size=300")
            #expect(streamed.header("Transfer-Encoding") == "chunked")
            #expect(streamed.header("Content-Length") == nil)
            #expect(streamed.chunkSizes == [300, 300, 300, 100])
            #expect(streamed.body == TestBytes.pattern(count: 1000))
            let chunked = try await HTTPBinTest.fetch(server, "/chunked?n=3&size=5")
            #expect(chunked.chunkSizes == [5, 5, 5])
            #expect(chunked.body == TestBytes.pattern(count: 15))
        }
    }

    @Test func largeBodyStreamsWithBackpressure() async throws {
        try await HTTPBinServer.withServer { server in
            let size = 10 * 1024 * 1024
            let response = try await HTTPBinTest.fetch(server, "/large/\(size)")
            #expect(response.header("Content-Length") == String(size))
            #expect(response.body.count == size)
            #expect(response.body == TestBytes.pattern(count: size))
        }
    }

    @Test func noLengthBodyEndsAtClose() async throws {
        try await HTTPBinServer.withServer { server in
            let response = try await HTTPBinTest.fetch(server, "/no-length?size=5000")
            #expect(response.header("Content-Length") == nil && response.header("Transfer-Encoding") == nil)
            #expect(response.header("Connection") == "close")
            #expect(response.body == TestBytes.pattern(count: 5000))
        }
    }

    @Test func rangeRequests() async throws {
        try await HTTPBinServer.withServer { server in
            let partial = try await HTTPBinTest.fetch(server, "/range/1000", headers: [("Range", "bytes=10-19")])
            #expect(partial.status == 206)
            #expect(partial.header("Content-Range") == "bytes 10-19/1000")
            #expect(partial.body == TestBytes.pattern(from: 10, count: 10))
            let open = try await HTTPBinTest.fetch(server, "/range/1000", headers: [("Range", "bytes=990-")])
            #expect(open.status == 206 && open.body == TestBytes.pattern(from: 990, count: 10))
            let suffix = try await HTTPBinTest.fetch(server, "/range/1000", headers: [("Range", "bytes=-5")])
            #expect(suffix.header("Content-Range") == "bytes 995-999/1000")
            let matching = try await HTTPBinTest.fetch(
                server, "/range/1000", headers: [("Range", "bytes=500-"), ("If-Range", "\"range-1000\"")])
            #expect(matching.status == 206 && matching.body.count == 500)
            let stale = try await HTTPBinTest.fetch(
                server, "/range/1000", headers: [("Range", "bytes=500-"), ("If-Range", "\"old\"")])
            #expect(stale.status == 200 && stale.body == TestBytes.pattern(count: 1000))
            let beyond = try await HTTPBinTest.fetch(server, "/range/1000", headers: [("Range", "bytes=1000-")])
            #expect(beyond.status == 416 && beyond.header("Content-Range") == "bytes */1000")
            let plain = try await HTTPBinTest.fetch(server, "/range/100")
            #expect(plain.status == 200 && plain.header("Accept-Ranges") == "bytes" && plain.body.count == 100)
        }
    }

    @Test func parseRangeCoversTheForms() {
        #expect(HTTPBinRouter.parseRange("bytes=0-0", size: 10) == .partial(0...0))
        #expect(HTTPBinRouter.parseRange("bytes=5-100", size: 10) == .partial(5...9))
        #expect(HTTPBinRouter.parseRange("bytes=-100", size: 10) == .partial(0...9))
        #expect(HTTPBinRouter.parseRange("bytes=-0", size: 10) == .unsatisfiable)
        #expect(HTTPBinRouter.parseRange("bytes=0-1,3-4", size: 10) == .full)
        #expect(HTTPBinRouter.parseRange("items=0-1", size: 10) == .full)
        #expect(HTTPBinRouter.parseRange("bytes=4-2", size: 10) == .full)
    }

    @Test func compressedRoutesDecodeWithZlib() async throws {
        try await HTTPBinServer.withServer { server in
            let gzip = try await HTTPBinTest.fetch(server, "/gzip")
            #expect(gzip.header("Content-Encoding") == "gzip")
            #expect(try HTTPBinTest.json(Zlib.decompress(gzip.body, format: .gzip))["gzipped"] as? Bool == true)
            let deflate = try await HTTPBinTest.fetch(server, "/deflate")
            #expect(deflate.header("Content-Encoding") == "deflate")
            #expect(try HTTPBinTest.json(Zlib.decompress(deflate.body, format: .zlib))["deflated"] as? Bool == true)
            #expect(throws: ZlibError.self) { _ = try Zlib.decompress(deflate.body, format: .raw) }
            let raw = try await HTTPBinTest.fetch(server, "/deflate-raw")
            #expect(try HTTPBinTest.json(Zlib.decompress(raw.body, format: .raw))["method"] as? String == "GET")
            let bytes = try await HTTPBinTest.fetch(server, "/gzip-bytes/100000")
            #expect(try Zlib.decompress(bytes.body, format: .gzip) == TestBytes.pattern(count: 100_000))
        }
    }

    @Test func gzipBombIsTinyOnTheWire() async throws {
        try await HTTPBinServer.withServer { server in
            let size = 8 * 1024 * 1024
            let bomb = try await HTTPBinTest.fetch(server, "/gzip-bomb?size=\(size)")
            #expect(bomb.body.count < size / 500)
            let decoded = try Zlib.decompress(bomb.body, format: .gzip)
            #expect(decoded.count == size && decoded.allSatisfy { $0 == 0 })
            #expect(throws: ZlibError.self) { _ = try Zlib.decompress(bomb.body, format: .gzip, limit: 1024) }
            #expect(throws: ZlibError.self) { _ = try Zlib.decompress(Array(bomb.body.dropLast(10)), format: .gzip) }
        }
    }

    @Test func delayAnswersLater() async throws {
        try await HTTPBinServer.withServer { server in
            let start = ContinuousClock.now
            let response = try await HTTPBinTest.fetch(server, "/delay/0.2")
            #expect(ContinuousClock.now - start >= .milliseconds(190))
            #expect(response.status == 200)
            #expect(try await HTTPBinTest.fetch(server, "/delay/61").status == 400)
        }
    }

    @Test func dripSpreadsBytesOverTime() async throws {
        try await HTTPBinServer.withServer { server in
            let start = ContinuousClock.now
            let response = try await HTTPBinTest.fetch(server, "/drip?numbytes=5&duration=0.25&delay=0.1")
            // Head after 0.1 s, then bytes 0.05 s apart: at least 0.3 s in all (never asserted as an upper bound).
            #expect(ContinuousClock.now - start >= .milliseconds(290))
            #expect(response.header("Content-Length") == "5")
            #expect(response.body == TestBytes.pattern(count: 5))
        }
    }

    @Test func dripBytesArriveOneByOne() async throws {
        try await HTTPBinServer.withServer { server in
            let client = try RawHTTPClient(port: server.port)
            defer { client.close() }
            try await client.sendRequest("GET", "/drip?numbytes=3&duration=0.3&delay=0")
            let head = try await client.readInterimStatusLine()
            #expect(head.hasPrefix("HTTP/1.1 200"))
            #expect(try await client.readUntilCount(1) == [0])
            #expect(try await client.readUntilCount(2) == [1, 2])
        }
    }

    @Test func patternHelpers() {
        #expect(TestBytes.pattern(count: 253).suffix(3) == [250, 0, 1])
        #expect(TestBytes.pattern(from: 250, count: 2) == [250, 0])
        #expect(TestBytes.firstMismatch(in: [0, 1, 3]) == 2)
        #expect(TestBytes.firstMismatch(in: [5, 6], offset: 256) == nil)
    }
}
