// Keep-alive and the connection pool, seen from the server: how many connections it
// accepted, and from the metrics: whether each request reused one.
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session keep-alive and pool")
struct SessionKeepAliveTests {
    @Test("20 sequential GETs share one connection; metrics say reused after the first")
    func sequentialRequestsReuse() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "keepalive.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            for index in 0..<20 {
                let delegate = RecordingDelegate(queue: queue)
                let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/bytes/\(index * 100)")), delegate: delegate)
                #expect(data.count == index * 100)
                let transaction = try #require(delegate.metrics?.transactionMetrics.first)
                #expect(transaction.isReusedConnection == (index > 0), "request \(index)")
                #expect(transaction.connectionsOpened == (index == 0 ? 1 : 0), "request \(index)")
            }
            #expect(server.connectionCount == 1)
            #expect(server.requestCount == 20)
        }
    }

    @Test("after a Connection: close response the next request opens a new connection")
    func closeRouteForcesNewConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "close.delegate")
            let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")))
            let (_, closing) = try await session.data(for: NetworkRequest(url: server.url("/close")))
            #expect(closing.value(forHTTPHeaderField: "Connection")?.lowercased() == "close")
            let delegate = RecordingDelegate(queue: queue)
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/get")), delegate: delegate)
            #expect(response.statusCode == 200)
            #expect(server.connectionCount == 2)
            #expect(delegate.metrics?.transactionMetrics.first?.isReusedConnection == false)
            #expect(delegate.metrics?.transactionMetrics.first?.connectionsOpened == 1)
        }
    }

    @Test("30 concurrent requests with at most 3 connections per host all succeed on ≤ 3 connections")
    func concurrencyLimit() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 3 })
            defer { session.invalidateAndCancel() }
            let url = server.url("/delay/0.2")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<30 {
                    group.addTask { try await session.data(for: NetworkRequest(url: url)).1.statusCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses == Array(repeating: 200, count: 30))
            #expect(server.connectionCount <= 3)
            #expect(server.connectionCount >= 1)
            #expect(server.requestCount == 30)
        }
    }

    @Test("the default limit is 6 connections per host")
    func defaultConcurrencyLimit() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            #expect(session.configuration.httpMaximumConnectionsPerHost == 6)
            let url = server.url("/delay/0.2")
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<12 {
                    group.addTask { try await session.data(for: NetworkRequest(url: url)).1.statusCode }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            #expect(statuses.count == 12)
            #expect(statuses.allSatisfy { $0 == 200 })
            #expect(server.connectionCount <= 6)
        }
    }

    @Test("the per-host limit holds with several event loops")
    func concurrencyLimitAcrossLoops() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.eventLoopCount = 4
                $0.httpMaximumConnectionsPerHost = 2
            })
            defer { session.invalidateAndCancel() }
            let url = server.url("/delay/0.1")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<10 {
                    group.addTask { _ = try await session.data(for: NetworkRequest(url: url)) }
                }
                try await group.waitForAll()
            }
            #expect(server.connectionCount <= 2)
        }
    }

    @Test("an idle connection is closed after connectionIdleTimeout; the next request opens a new one")
    func idleTimeoutClosesConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.connectionIdleTimeout = .milliseconds(200)
            })
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")))
            #expect(await waitUntil { server.closedConnectionCount == 1 }, "the parked connection was closed")
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")))
            #expect(server.connectionCount == 2)
        }
    }

    @Test("a connection used within the idle timeout stays open")
    func connectionKeptWithinIdleTimeout() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                // Far longer than any stall of a loaded, parallel test run between the two requests.
                $0.connectionIdleTimeout = .seconds(600)
            })
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")))
            try await Task.sleep(for: .milliseconds(300))
            let second = RecordingDelegate(queue: session.delegateQueue)
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")), delegate: second)
            // The client's own account, which no stray connection from a parallel test can blur.
            #expect(second.metrics?.transactionMetrics.first?.isReusedConnection == true)
            #expect(second.metrics?.transactionMetrics.first?.connectionsOpened == 0)
        }
    }

    @Test("a pooled connection the server closed is not reused: the request still succeeds")
    func serverClosedPooledConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            // HTTP/1.0-style: the server closes after answering a request that asked it to.
            var request = NetworkRequest(url: server.url("/get"))
            try request.setValue("close", forHTTPHeaderField: "Connection")
            _ = try await session.data(for: request)
            for _ in 0..<3 {
                let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/get")))
                #expect(response.statusCode == 200)
            }
            #expect(server.connectionCount == 2)
        }
    }

    // MARK: - The keep-alive race (RFC 9112 §9.3.1), on the scripted server

    static let okReply = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"

    @Test("a GET whose reused connection closes without a reply is retried once on a fresh connection")
    func idempotentRetry() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(Self.okReply), .readRequest, .close],
            .reply(Self.okReply, closeAfter: false),
        ])
        defer { server.shutdown() }
        let queue = DispatchQueue(label: "retry.delegate")
        let session = Session(configuration: SessionTest.configuration(), delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        _ = try await session.data(for: NetworkRequest(url: url))
        let delegate = RecordingDelegate(queue: queue)
        let (data, _) = try await session.data(for: NetworkRequest(url: url), delegate: delegate)
        #expect(String(decoding: data, as: UTF8.self) == "ok")
        let transaction = try #require(delegate.metrics?.transactionMetrics.first)
        #expect(transaction.connectionsOpened == 1)
        #expect(transaction.isReusedConnection == false)
    }

    @Test("a POST whose reused connection closes without a reply is not retried")
    func nonIdempotentNotRetried() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(Self.okReply), .readRequest, .close],
            .reply(Self.okReply, closeAfter: false),
        ])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        _ = try await session.data(for: NetworkRequest(url: url))
        let post = NetworkRequest(url: url, method: .post, body: .bytes(Array("x".utf8)))
        let error = await networkError { try await session.data(for: post) }
        #expect(error?.code == .zeroByteResource)
    }

    @Test("an HTTP/1.0 reply, or one saying Connection: close, is never reused even if the server keeps the socket open",
          arguments: ["HTTP/1.0 200 OK\r\nContent-Length: 2\r\n\r\nok", "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"])
    func notReusable(reply: String) async throws {
        let server = try ScriptedServer(scripts: [.reply(reply, closeAfter: false), .reply(reply, closeAfter: false)])
        defer { server.shutdown() }
        // If the first connection were reused, the second request would wait for a server
        // that no longer reads it: the short timeout turns that into a failure.
        let session = Session(configuration: SessionTest.configuration { $0.timeoutIntervalForRequest = .seconds(2) })
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        for _ in 0..<2 {
            let (data, _) = try await session.data(for: NetworkRequest(url: url))
            #expect(String(decoding: data, as: UTF8.self) == "ok")
        }
    }
}
