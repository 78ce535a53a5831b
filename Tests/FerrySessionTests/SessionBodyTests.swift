// Request bodies through upload(for:from:): memory, file (streamed, Content-Length), async
// stream (chunked, or with a length that is enforced), and a missing file.
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session request bodies")
struct SessionBodyTests {
    @Test("upload from bytes: /post counts every byte and echoes them")
    func uploadBytes() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let body = Array("hello, ferry".utf8)
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let (data, response) = try await session.upload(for: request, from: .bytes(body))
            #expect(response.statusCode == 200)
            let json = try SessionTest.json(data)
            #expect(json["bodyLength"] as? Int == body.count)
            #expect(json["data"] as? String == "hello, ferry")
            #expect(server.lastRequest?.value(of: "Content-Length") == String(body.count))
        }
    }

    @Test("a body over 1 MiB asks with Expect: 100-continue first; a session without a threshold never asks",
          arguments: [true, false])
    func expectContinue(asks: Bool) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { if !asks { $0.expectContinueThreshold = nil } })
            defer { session.invalidateAndCancel() }
            let body = TestBytes.pattern(count: 3 << 20)
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let (data, response) = try await session.upload(for: request, from: .bytes(body))
            #expect(response.statusCode == 200)
            #expect(try SessionTest.json(data)["bodyLength"] as? Int == body.count)
            #expect(server.lastRequest?.value(of: "Expect") == (asks ? "100-continue" : nil))
        }
    }

    @Test("upload from Data round-trips through /echo")
    func uploadData() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let body = TestBytes.pattern(count: 100_000)
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let (data, _) = try await session.upload(for: request, from: .data(Data(body)))
            #expect(data.count == body.count)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("an empty POST says Content-Length: 0")
    func emptyPost() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let (data, _) = try await session.upload(for: request, from: .bytes([]))
            #expect(try SessionTest.json(data)["bodyLength"] as? Int == 0)
            #expect(server.lastRequest?.value(of: "Content-Length") == "0")
        }
    }

    @Test("upload from a 1 MiB file: streamed with Content-Length, echoed byte for byte")
    func uploadFile() async throws {
        let file = SessionTest.temporaryURL("upload.bin")
        let body = TestBytes.pattern(count: 1 << 20)
        try Data(body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/echo"), method: .put)
            let (data, response) = try await session.upload(for: request, from: .file(file))
            #expect(response.statusCode == 200)
            #expect(data.count == body.count)
            #expect(TestBytes.firstMismatch(in: data) == nil)
            let head = try #require(server.lastRequest)
            #expect(head.value(of: "Content-Length") == String(body.count))
            #expect(head.value(of: "Transfer-Encoding") == nil)
        }
    }

    @Test("upload from a stream without a length is sent chunked and echoed whole")
    func uploadChunkedStream() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let body = TestBytes.pattern(count: 300_000)
            // Odd piece sizes, and an empty chunk that must not end the body early.
            var chunks = SessionTest.split(body, size: 70_001)
            chunks.insert([], at: 1)
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let (data, _) = try await session.upload(for: request, from: .stream(SessionTest.stream(chunks), length: nil))
            #expect(data.count == body.count)
            #expect(TestBytes.firstMismatch(in: data) == nil)
            let head = try #require(server.lastRequest)
            #expect(head.value(of: "Transfer-Encoding")?.lowercased() == "chunked")
            #expect(head.value(of: "Content-Length") == nil)
        }
    }

    @Test("a stream with a declared length is sent with Content-Length")
    func uploadStreamWithLength() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let body = TestBytes.pattern(count: 50_000)
            let chunks = SessionTest.split(body, size: 4096)
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let (data, _) = try await session.upload(
                for: request, from: .stream(SessionTest.stream(chunks), length: Int64(body.count)))
            #expect(data.count == body.count)
            #expect(TestBytes.firstMismatch(in: data) == nil)
            #expect(server.lastRequest?.value(of: "Content-Length") == String(body.count))
        }
    }

    @Test("a stream that ends before its declared length fails with requestBodyFailed")
    func lyingShortStream() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let chunks = [TestBytes.pattern(count: 500)]
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let error = await networkError {
                try await session.upload(for: request, from: .stream(SessionTest.stream(chunks), length: 1000))
            }
            #expect(error?.code == .requestBodyFailed)
            #expect(error?.failingURL == request.url)
        }
    }

    @Test("a stream that yields more than its declared length fails with requestBodyFailed")
    func lyingLongStream() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let chunks = [TestBytes.pattern(count: 600), TestBytes.pattern(count: 600)]
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let error = await networkError {
                try await session.upload(for: request, from: .stream(SessionTest.stream(chunks), length: 1000))
            }
            #expect(error?.code == .requestBodyFailed)
        }
    }

    @Test("a stream that throws fails the request with requestBodyFailed")
    func throwingStream() async throws {
        struct Broken: Error {}
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let chunks = AsyncThrowingStream<[UInt8], any Error> { continuation in
                continuation.yield(TestBytes.pattern(count: 100))
                continuation.finish(throwing: Broken())
            }
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let error = await networkError { try await session.upload(for: request, from: .stream(chunks, length: nil)) }
            #expect(error?.code == .requestBodyFailed)
        }
    }

    @Test("empty bodies: an empty file and an empty stream with length 0 send Content-Length: 0, an empty chunked stream only the last chunk")
    func emptyBodies() async throws {
        let file = SessionTest.temporaryURL("empty.bin")
        try Data().write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let bodies: [(RequestBody, String?)] = [
                (.file(file), "0"), (.stream(SessionTest.stream([]), length: 0), "0"),
                (.stream(SessionTest.stream([]), length: nil), nil),
                (.stream(SessionTest.stream([[]]), length: nil), nil),
            ]
            for (body, contentLength) in bodies {
                let (data, _) = try await session.upload(for: request, from: body)
                #expect(data.isEmpty)
                let head = try #require(server.lastRequest)
                #expect(head.value(of: "Content-Length") == contentLength)
                #expect(head.value(of: "Transfer-Encoding") == (contentLength == nil ? "chunked" : nil))
            }
        }
    }

    @Test("a directory as upload file fails with cannotOpenFile before anything is sent")
    func directoryAsFile() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let error = await networkError { try await session.upload(for: request, from: .file(FileManager.default.temporaryDirectory)) }
            #expect(error?.code == .cannotOpenFile)
            await Self.expectOnlyMarkerArrives(at: server)
            #expect(server.requestCount == 1, "a body that cannot be read must not announce itself")
        }
    }

    @Test("a stream that stalls is cut by the request timeout; cancelling one ends it at once", arguments: [false, true])
    func stalledStream(cancel: Bool) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.timeoutIntervalForRequest = cancel ? .seconds(30) : .milliseconds(300)
            })
            defer { session.invalidateAndCancel() }
            // One chunk, then nothing, ever.
            let (chunks, continuation) = AsyncThrowingStream<[UInt8], any Error>.makeStream()
            continuation.yield(TestBytes.pattern(count: 10))
            let request = NetworkRequest(url: server.url("/echo"), method: .post)
            let task = Task { await networkError { try await session.upload(for: request, from: .stream(chunks, length: nil)) } }
            if cancel {
                try #require(await waitUntil { server.requestCount > 0 }, "precondition not reached")
                task.cancel()
            }
            let error = await task.value
            #expect(error?.code == (cancel ? .cancelled : .timedOut))
            continuation.finish()
        }
    }

    @Test("a missing upload file fails with cannotOpenFile before anything is sent")
    func missingFile() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let missing = SessionTest.temporaryURL("missing.bin")
            let request = NetworkRequest(url: server.url("/post"), method: .post)
            let error = await networkError { try await session.upload(for: request, from: .file(missing)) }
            #expect(error?.code == .cannotOpenFile)
            #expect(error?.failingURL == request.url)
            await Self.expectOnlyMarkerArrives(at: server)
            #expect(server.requestCount == 1)
            #expect(server.connectionCount == 1, "a refused request never opens a connection")
        }
    }

    /// Sends `GET /get?marker` from a session of its own and expects it to be the only request
    /// `server` saw. An event instead of a pause: the server runs on one event loop, accepting
    /// connections in the order the kernel queued them and reading each as it is accepted, so a
    /// connection or head that went out before the marker is counted before the marker's
    /// response. A fresh session, because one that parked a stray connection would reuse it.
    private static func expectOnlyMarkerArrives(
        at server: HTTPBinServer, sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        let session = Session(configuration: SessionTest.configuration())
        let error = await networkError { try await session.data(for: NetworkRequest(url: server.url("/get?marker"))) }
        await offThePool { session.invalidateAndCancel() }
        #expect(error == nil, "the marker request failed: \(String(describing: error))", sourceLocation: sourceLocation)
        #expect(server.receivedRequests.map(\.uri) == ["/get?marker"], sourceLocation: sourceLocation)
    }
}
