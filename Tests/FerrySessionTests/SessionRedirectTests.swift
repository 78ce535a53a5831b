// Redirects through the task layer against the in-process httpbin server: followed hops with
// their metrics, the limit, method and body rules, credentials across origins, and the
// delegate's say.
import FerryBase
import Dispatch
import Foundation
import HTTPTypes
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session redirects")
struct SessionRedirectTests {
    static func echo(_ data: Data) -> [String: Any] {
        (try? JSONSerialization.jsonObject(with: data) as? [String: Any]) ?? [:]
    }

    @Test func redirectsAreFollowedOnOneConnectionWithAMetricPerHop() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/redirect/3")), delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(response.url.path == "/get", "the response names where it came from")
            #expect(Self.echo(data)["method"] as? String == "GET")
            let metrics = try #require(delegate.metrics)
            #expect(metrics.transactionMetrics.count == 4)
            #expect(metrics.redirectCount == 3)
            #expect(metrics.transactionMetrics.map { $0.url?.path } == ["/redirect/3", "/redirect/2", "/redirect/1", "/get"],
                    "each hop names its own URL")
            #expect(metrics.transactionMetrics.map(\.statusCode) == [302, 302, 302, 200])
            let reused = metrics.transactionMetrics.dropFirst().filter { $0.isReusedConnection }.count
            #expect(reused == 3, "the 3xx bodies were read, not the connections dropped")
            #expect(server.requestCount == 4)
            #expect(server.connectionCount == 1)
            #expect(delegate.names.filter { $0 == "response" }.count == 1, "only the final response is the task's")
            #expect(delegate.names.filter { $0 == "head" }.count == 4, "every request head is reported")
        }
    }

    @Test("a redirect's body that ends early or does not decode does not stop the redirect", arguments: [
        "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 10\r\n\r\nabc",
        "HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Encoding: gzip\r\nContent-Length: 4\r\n\r\nnope",
    ])
    func aBrokenRedirectBodyIsIgnored(redirect: String) async throws {
        let server = try ScriptedServer(scripts: [
            .reply(redirect),
            [.expectRequestLine(prefix: "GET /next "), .send("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello"), .close],
        ])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/start")!))
        let (data, response) = try await task.data()
        #expect(response.statusCode == 200)
        #expect(data == Data("hello".utf8))
        #expect(task.metrics?.redirectCount == 1)
        #expect(server.mismatches.isEmpty, "\(server.mismatches)")
    }

    @Test("a redirect's body with broken framing, or a reset, still fails the task, as curl's 56", arguments: [
        [ScriptStep.readRequest, .send("HTTP/1.1 302 Found\r\nLocation: /next\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n"),
         .stallUntilClosed(limit: .seconds(10))],
        [ScriptStep.readRequest, .send("HTTP/1.1 302 Found\r\nLocation: /next\r\nContent-Length: 100\r\n\r\nabc"),
         .sleep(.milliseconds(50)), .reset],
        // A chunked body the close cuts: curl 7.88 exits 18 rather than follow.
        [ScriptStep.readRequest, .send("HTTP/1.1 302 Found\r\nLocation: /next\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nab"), .close],
    ])
    func aBrokenRedirectResponseFails(script: [ScriptStep]) async throws {
        let server = try ScriptedServer(scripts: [ConnectionScript(script)])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/start")!))
        do {
            _ = try await task.data()
            Issue.record("the redirect was followed")
        } catch {
            #expect(error.code == .cannotParseResponse || error.code == .networkConnectionLost, "\(error)")
        }
        #expect(server.acceptedConnections == 1, "no second request")
    }

    @Test func aTaskKnowsItsCurrentRequest() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = SessionTaskTests.HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/redirect/2")), completionHandler: result.handler)
            task.resume()
            let (_, response, error, _) = try await result.wait()
            #expect(error == nil)
            #expect(response?.statusCode == 200)
            #expect(task.originalRequest.url.path == "/redirect/2")
            #expect(task.currentRequest.url.path == "/get")
            #expect(task.metrics?.redirectCount == 2)
        }
    }

    @Test func oneRedirectTooManyFails() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumRedirects = 3 })
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let error = await networkError { try await session.data(for: NetworkRequest(url: server.url("/redirect/4")), delegate: delegate) }
            #expect(error?.code == .httpTooManyRedirects)
            #expect(error?.reason.contains("3") == true, "\(String(describing: error))")
            #expect(delegate.metrics?.transactionMetrics.count == 4, "three followed, the fourth refused")
            #expect(server.requestCount == 4)
            // The error names the redirect it did not follow, as the last transaction does.
            #expect(error?.response?.statusCode == 302)
            #expect(error?.response?.url.path == "/redirect/1")
            #expect(error?.response?.value(forHTTPHeaderField: "Location") == "/get")
        }
    }

    @Test func aLimitOfZeroDeliversTheRedirect() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumRedirects = 0 })
            defer { session.invalidateAndCancel() }
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/redirect/1")))
            #expect(response.statusCode == 302)
            #expect(response.value(forHTTPHeaderField: "Location") == "/get")
        }
    }

    @Test("POST becomes GET on 302 and 303; 307 and 308 send it again with its body", arguments: [
        (302, "GET", ""), (303, "GET", ""), (307, "POST", "payload"), (308, "POST", "payload"),
    ])
    func methodAndBody(status: Int, method: String, body: String) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/redirect-to?url=/anything&status_code=\(status)"))
            request.method = .post
            request.body = .bytes(Array("payload".utf8))
            let (data, response) = try await session.data(for: request)
            #expect(response.statusCode == 200)
            let echo = Self.echo(data)
            #expect(echo["method"] as? String == method)
            #expect(echo["data"] as? String == body)
        }
    }

    /// A stream body is read once: a 307 asks the delegate for a new one (URLSession's
    /// `needNewBodyStream`); without one, the 307 is the answer.
    @Test func aStreamBodyIsSentAgainOnlyWithANewStream() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            func request() -> NetworkRequest {
                var request = NetworkRequest(url: server.url("/redirect-to?url=/anything&status_code=307"))
                request.method = .post
                request.body = .stream(SessionTest.stream([Array("pay".utf8), Array("load".utf8)]), length: 7)
                return request
            }
            let (_, alone) = try await session.data(for: request())
            #expect(alone.statusCode == 307, "no delegate, no new stream")
            let refusing = NewBodyDelegate(body: nil)
            let (_, refused) = try await session.data(for: request(), delegate: refusing)
            #expect(refused.statusCode == 307)
            #expect(refusing.asked == 1)
            let giving = NewBodyDelegate(body: .stream(SessionTest.stream([Array("payload".utf8)]), length: 7))
            let (data, followed) = try await session.data(for: request(), delegate: giving)
            #expect(followed.statusCode == 200)
            #expect(Self.echo(data)["data"] as? String == "payload")
            #expect(Self.echo(data)["method"] as? String == "POST")
            #expect(giving.asked == 1)
        }
    }

    /// A stream that says every iteration starts again from the first byte is sent again
    /// by itself, without asking a delegate.
    @Test func aReplayableStreamIsSentAgainByItself() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/redirect-to?url=/anything&status_code=308"), method: .put)
            request.body = .stream(ReplayableChunks(chunks: [Array("pay".utf8), Array("load".utf8)]), length: 7, replayable: true)
            let delegate = NewBodyDelegate(body: nil)
            let (data, response) = try await session.data(for: request, delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(Self.echo(data)["data"] as? String == "payload")
            #expect(Self.echo(data)["method"] as? String == "PUT")
            #expect(delegate.asked == 0)
        }
    }

    @Test func credentialsAreNotSentToAnotherOrigin() async throws {
        try await HTTPBinServer.withServer { other in
            try await HTTPBinServer.withServer { server in
                let session = Session(configuration: SessionTest.configuration())
                defer { session.invalidateAndCancel() }
                let target = other.url("/headers").absoluteString
                var request = NetworkRequest(url: server.url("/redirect-to?url=\(target)"))
                try request.setValue("Bearer secret", forHTTPHeaderField: "Authorization")
                try request.setValue("kept", forHTTPHeaderField: "X-Other")
                let (data, _) = try await session.data(for: request)
                let headers = Self.echo(data)["headers"] as? [String: String] ?? [:]
                #expect(headers["Authorization"] == nil)
                #expect(headers["X-Other"] == "kept")
                #expect(server.lastRequest?.headers.first { $0.name.lowercased() == "authorization" }?.value == "Bearer secret", "the first origin got it")
            }
        }
    }

    @Test func theDelegateCanTakeTheRedirectAsTheAnswer() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RedirectDeciding { _ in nil }
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/redirect/2")), delegate: delegate)
            #expect(response.statusCode == 302)
            #expect(delegate.asked == 1)
            #expect(server.requestCount == 1)
        }
    }

    @Test func theDelegateCanChangeTheNextRequest() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let changed = server.url("/anything/changed")
            let delegate = RedirectDeciding { proposed in
                var request = proposed
                request.url = changed
                return request
            }
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/redirect/1")), delegate: delegate)
            #expect(response.statusCode == 200)
            #expect((Self.echo(data)["url"] as? String)?.hasSuffix("/anything/changed") == true)
            #expect(delegate.asked == 1)
        }
    }
}

/// Answers every redirect with `decide`, counting the questions.
final class RedirectDeciding: SessionTaskDelegate {
    private let decide: @Sendable (NetworkRequest) -> NetworkRequest?
    private let count = Locked(0)

    init(_ decide: @escaping @Sendable (NetworkRequest) -> NetworkRequest?) { self.decide = decide }

    var asked: Int { count.withLock { $0 } }

    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        count.withLock { $0 += 1 }
        let answer = decide(request)
        // Later, from another thread, as a real decision may come.
        DispatchQueue.global().async { completionHandler(answer) }
    }
}

/// Gives `body` when a task needs its stream body again, counting the calls.
final class NewBodyDelegate: SessionTaskDelegate {
    private let body: Locked<RequestBody?>
    private let calls = Atomic<Int>(0)

    init(body: RequestBody?) {
        self.body = Locked(body)
    }

    var asked: Int { calls.load(ordering: .relaxed) }

    func session(_ session: Session, needNewBodyStreamForTask task: SessionTask) async -> RequestBody? {
        calls.add(1, ordering: .relaxed)
        return body.withLock { $0 }
    }
}

/// Chunks from memory: every iteration yields them all from the first.
struct ReplayableChunks: AsyncSequence, Sendable {
    let chunks: [[UInt8]]

    struct AsyncIterator: AsyncIteratorProtocol {
        var rest: ArraySlice<[UInt8]>
        mutating func next() async throws -> [UInt8]? { rest.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator { AsyncIterator(rest: chunks[...]) }
}
