// Content decoding (gzip, zlib deflate, raw deflate), turning it off, the decompression-bomb
// guard, and maximumResponseBodySize for announced and unannounced bodies.
import Ferry
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session content decoding and body limits")
struct SessionDecodingTests {
    @Test("gzip, deflate and raw deflate bodies are decoded to the JSON echo", arguments: ["gzip", "deflate", "deflate-raw"])
    func decodesJSON(route: String) async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "decode.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/\(route)")), delegate: delegate)
            #expect(response.value(forHTTPHeaderField: "Content-Encoding") == (route == "gzip" ? "gzip" : "deflate"))
            #expect(response.expectedContentLength == nil, "the announced length is the encoded size")
            let json = try SessionTest.json(data)
            #expect(json["method"] as? String == "GET")
            #expect(json[route == "gzip" ? "gzipped" : "deflated"] as? Bool == true)
            let transaction = try #require(delegate.metrics?.transactionMetrics.first)
            #expect(transaction.responseBodyBytesDecoded == Int64(data.count))
        }
    }

    @Test("/gzip-bytes/N decodes to the pattern", arguments: [0, 1, 100_000, 3 << 20])
    func decodesPattern(size: Int) async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "decode.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/gzip-bytes/\(size)")), delegate: delegate)
            #expect(data.count == size)
            #expect(TestBytes.firstMismatch(in: data) == nil)
            let encoded = try #require(response.value(forHTTPHeaderField: "Content-Length").flatMap { Int64($0) })
            let transaction = try #require(delegate.metrics?.transactionMetrics.first)
            #expect(transaction.responseBodyBytesReceived == encoded)
            #expect(transaction.responseBodyBytesDecoded == Int64(size))
        }
    }

    @Test("bytes(for:) decodes a gzip body as it streams")
    func streamsDecoded() async throws {
        try await HTTPBinServer.withServer { server in
            // A short idle timeout turns the hang into a prompt failure.
            let session = Session(configuration: SessionTest.configuration { $0.timeoutIntervalForRequest = .seconds(2) })
            defer { session.invalidateAndCancel() }
            let size = 2 << 20
            let (body, _) = try await session.bytes(for: NetworkRequest(url: server.url("/gzip-bytes/\(size)")))
            let data = try await body.collect()
            #expect(data.count == size)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("Content-Encoding: identity is passed through untouched")
    func identityEncoding() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/response-headers?Content-Encoding=identity")))
            #expect(try SessionTest.json(data)["Content-Encoding"] as? String == "identity")
        }
    }

    @Test("with automaticallyDecodesContent off, no Accept-Encoding is sent and gzip bytes arrive raw")
    func decodingOff() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.automaticallyDecodesContent = false })
            defer { session.invalidateAndCancel() }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/gzip-bytes/10000")))
            #expect(server.lastRequest?.value(of: "Accept-Encoding") == nil)
            #expect(Array(data.prefix(2)) == [0x1F, 0x8B], "gzip magic")
            #expect(response.value(forHTTPHeaderField: "Content-Length") == String(data.count))
            let decoded = try Zlib.decompress(Array(data), format: .gzip)
            #expect(decoded == TestBytes.pattern(count: 10_000))
        }
    }

    @Test("a 1 GiB gzip bomb fails with cannotDecodeContentData (ratio limit)")
    func gzipBomb() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "bomb.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            let request = NetworkRequest(url: server.url("/gzip-bomb?size=\(1 << 30)"))
            let error = await networkError { try await session.data(for: request, delegate: delegate) }
            #expect(error?.code == .cannotDecodeContentData)
            #expect(error?.underlyingError is ContentDecodingError)
            // Refused early: a few MiB decoded at most, not the gigabyte.
            let decoded = try #require(delegate.metrics?.transactionMetrics.first?.responseBodyBytesDecoded)
            #expect(decoded < 64 << 20)
            // The connection is not reused after a refused body, and the session still works.
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/bytes/10")))
            #expect(data.count == 10)
        }
    }

    @Test("an absolute decoded-size cap refuses a body that decodes larger")
    func decodedSizeCap() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.decodingLimits.maxDecodedBytes = 50_000
            })
            defer { session.invalidateAndCancel() }
            let error = await networkError { try await session.data(for: NetworkRequest(url: server.url("/gzip-bytes/200000"))) }
            #expect(error?.code == .cannotDecodeContentData)
        }
    }

    // MARK: - maximumResponseBodySize

    @Test("an announced body over maximumResponseBodySize fails with dataLengthExceedsMaximum")
    func announcedBodyTooLarge() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumResponseBodySize = 1000 })
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/bytes/1001"))
            let error = await networkError { try await session.data(for: request) }
            #expect(error?.code == .dataLengthExceedsMaximum)
            #expect(error?.failingURL == request.url)
            // Exactly at the limit is fine.
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/bytes/1000")))
            #expect(data.count == 1000)
        }
    }

    @Test("an unannounced (chunked) body over maximumResponseBodySize fails with dataLengthExceedsMaximum")
    func chunkedBodyTooLarge() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumResponseBodySize = 100_000 })
            defer { session.invalidateAndCancel() }
            let error = await networkError { try await session.data(for: NetworkRequest(url: server.url("/stream-bytes/5000000"))) }
            #expect(error?.code == .dataLengthExceedsMaximum)
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/stream-bytes/100000")))
            #expect(data.count == 100_000)
        }
    }

    @Test("the request's maximumResponseBodySize overrides the session's")
    func perRequestLimit() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumResponseBodySize = 10 })
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/bytes/5000"))
            request.maximumResponseBodySize = 5000
            let (data, _) = try await session.data(for: request)
            #expect(data.count == 5000)
        }
    }

    @Test("maximumResponseBodySize applies to the decoded size of a gzip body")
    func decodedBodyTooLarge() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumResponseBodySize = 50_000 })
            defer { session.invalidateAndCancel() }
            let error = await networkError { try await session.data(for: NetworkRequest(url: server.url("/gzip-bytes/500000"))) }
            #expect(error?.code == .dataLengthExceedsMaximum)
        }
    }

    @Test("bytes(for:): a limit broken mid-body is thrown by the iterator, after the head was returned")
    func streamedBodyTooLarge() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.maximumResponseBodySize = 100_000 })
            defer { session.invalidateAndCancel() }
            let (body, response) = try await session.bytes(for: NetworkRequest(url: server.url("/stream-bytes/3000000")))
            #expect(response.statusCode == 200)
            var received = 0
            let error = await networkError {
                for try await chunk in body { received += chunk.count }
            }
            #expect(error?.code == .dataLengthExceedsMaximum)
            #expect(received <= 100_000)
        }
    }
}
