import FerryBase
import FerryTLS
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

/// Bodies and connections over TLS: what the engine's `Transport` must get right between the
/// socket and HTTP/1.1 (plaintext buffered where epoll cannot see it, ciphertext a full socket
/// leaves behind, the end of input arriving with the last record).
@Suite struct SessionTLSTransportTests {
    /// A session trusting the test root.
    private static func session() throws -> Session {
        let roots = try TrustStore(contentsOf: TestCertificateFiles.url("root-ca.pem"))
        return Session(configuration: SessionTest.configuration { $0.tlsConfiguration.trustStore = roots })
    }

    private static func url(_ server: TLSTestServer, _ path: String) throws -> URL {
        try #require(URL(string: "https://localhost:\(server.port)\(path)"))
    }

    @Test("an 8 MiB body arrives intact over TLS")
    func largeDownload() async throws {
        try await TLSTestServer.withServer { server in
            let session = try Self.session()
            defer { session.invalidateAndCancel() }
            let count = 8 << 20
            let (data, response) = try await session.data(for: NetworkRequest(url: Self.url(server, "/bytes/\(count)")))
            #expect(response.statusCode == 200)
            #expect(data.count == count)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("a slow reader pauses and resumes a TLS body without losing or reordering a byte")
    func slowReaderOverTLS() async throws {
        try await TLSTestServer.withServer { server in
            let session = try Self.session()
            defer { session.invalidateAndCancel() }
            let count = 6 << 20
            let (body, response) = try await session.bytes(for: NetworkRequest(url: Self.url(server, "/stream-bytes/\(count)")))
            #expect(response.statusCode == 200)
            var received = 0
            var mismatch: Int?
            var pieces = 0
            for try await chunk in body {
                if mismatch == nil, let index = TestBytes.firstMismatch(in: chunk, offset: received) { mismatch = received + index }
                received += chunk.count
                pieces += 1
                // Let the 1 MiB high-water mark fill now and then, so reading pauses.
                if pieces % 64 == 0 { try await Task.sleep(for: .milliseconds(5)) }
            }
            #expect(received == count)
            #expect(mismatch == nil)
        }
    }

    @Test("a 3 MiB upload goes out whole over TLS, from memory and from a file")
    func largeUpload() async throws {
        try await TLSTestServer.withServer { server in
            let session = try Self.session()
            defer { session.invalidateAndCancel() }
            let text = Array(String(repeating: "Ferry over TLS 0123456789. ", count: 3 << 20 / 27).utf8)
            let file = SessionTest.temporaryURL("upload.txt")
            try Data(text).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            for body in [RequestBody.bytes(text), .file(file)] {
                var request = NetworkRequest(url: try Self.url(server, "/post"))
                request.method = .post
                let (data, response) = try await session.upload(for: request, from: body)
                #expect(response.statusCode == 200)
                // The server echoes the first MiB it stored; its byte counter saw the rest.
                let echoed = try SessionTest.json(data)["data"] as? String
                #expect(echoed.map { Array($0.utf8) == Array(text.prefix(1 << 20)) } == true)
            }
            #expect(server.applicationBytesReceived > 2 * text.count)
        }
    }

    @Test("a streamed upload whose producer waits for the server still gets its last chunk out")
    func streamedUploadWaitingForTheServer() async throws {
        try await TLSTestServer.withServer { server in
            let session = try Self.session()
            defer { session.invalidateAndCancel() }
            let chunk = [UInt8](repeating: UInt8(ascii: "x"), count: 4 << 20)
            // The producer ends the stream only once the server holds the whole chunk: the
            // chunk's last ciphertext must leave without waiting for another chunk.
            let chunks = AsyncThrowingStream<[UInt8], any Error> { continuation in
                continuation.yield(chunk)
                Task {
                    let arrived = await waitUntil(timeout: .seconds(60)) { server.applicationBytesReceived >= chunk.count }
                    if arrived { continuation.finish() } else { continuation.finish(throwing: CancellationError()) }
                }
            }
            var request = NetworkRequest(url: try Self.url(server, "/post"))
            request.method = .post
            let (_, response) = try await session.upload(for: request, from: .stream(chunks, length: nil))
            #expect(response.statusCode == 200)
        }
    }

    @Test("a body delimited by the end of the connection ends at close_notify")
    func bodyUntilClose() async throws {
        try await TLSTestServer.withServer { server in
            let session = try Self.session()
            defer { session.invalidateAndCancel() }
            let (data, _) = try await session.data(for: NetworkRequest(url: Self.url(server, "/no-length?size=300000")))
            #expect(data.count == 300_000)
            #expect(TestBytes.firstMismatch(in: data) == nil)
        }
    }

    @Test("keep-alive reuses the TLS connection; after the server closes it, a new one is opened")
    func reuseAndReconnect() async throws {
        try await TLSTestServer.withServer { server in
            let session = try Self.session()
            defer { session.invalidateAndCancel() }
            let first = MetricsRecorder()
            _ = try await session.data(for: NetworkRequest(url: Self.url(server, "/get")), delegate: first)
            let second = MetricsRecorder()
            _ = try await session.data(for: NetworkRequest(url: Self.url(server, "/close")), delegate: second)
            let third = MetricsRecorder()
            _ = try await session.data(for: NetworkRequest(url: Self.url(server, "/get")), delegate: third)
            let transactions = [first, second, third].map { $0.transaction }
            #expect(transactions.map { $0?.isReusedConnection } == [false, true, false])
            #expect(transactions.map { $0?.secureConnectionEnd != nil } == [true, false, true])
            #expect(transactions.allSatisfy { $0?.negotiatedTLSProtocolVersion == "TLSv1.3" })
            #expect(server.handshakeCount == 2)
        }
    }

    @Test("a handshake whose request was cancelled meanwhile is still finished, and the connection serves the next request",
          arguments: [TLSServerConfiguration.Version.tls12, .tls13])
    func handshakeFinishedWithoutRequest(version: TLSServerConfiguration.Version) async throws {
        var configuration = TLSServerConfiguration()
        configuration.versions = version...version
        try await TLSTestServer.withServer(configuration) { server in
            // The evaluator holds the handshake until the request is cancelled.
            let evaluator = GatedEvaluator()
            let session = Session(configuration: try TLSSessionTest.configuration { $0.serverTrustEvaluator = evaluator })
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: try Self.url(server, "/get"))
            let cancelled = Task { try await session.data(for: request) }
            #expect(await waitUntil { evaluator.isWaiting })
            cancelled.cancel()
            evaluator.open()
            #expect(await networkError { _ = try await cancelled.value }?.code == .cancelled)
            // The client's last flight waits for a request; with none coming it goes alone.
            #expect(await waitUntil { server.connections.first?.handshakeCompleted == true })
            #expect(server.applicationBytesReceived == 0)
            let (_, response) = try await session.data(for: request)
            #expect(response.statusCode == 200)
            #expect(server.connectionCount == 1, "the connection the cancelled request opened served the next one")
        }
    }
}

/// Approves what the default rules approve once the test opens it (or after 30 s).
private final class GatedEvaluator: ServerTrustEvaluating {
    private let state = Locked((waiting: false, open: false))
    var isWaiting: Bool { state.withLock { $0.waiting } }
    func open() { state.withLock { $0.open = true } }

    func evaluate(_ trust: ServerTrust, forDomain domain: String) throws(ServerTrustError) {
        state.withLock { $0.waiting = true }
        let deadline = ContinuousClock.now.advanced(by: .seconds(30))
        while !state.withLock({ $0.open }), ContinuousClock.now < deadline { usleep(1_000) }
        try DefaultTrustEvaluator().evaluate(trust, forDomain: domain)
    }
}

/// Keeps the metrics of one request.
private final class MetricsRecorder: SessionTaskDelegate, @unchecked Sendable {
    // Written on the delegate queue before the request's `await` returns, read after.
    private(set) var transaction: TransactionMetrics?

    func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        transaction = metrics.transactionMetrics.last
    }
}
