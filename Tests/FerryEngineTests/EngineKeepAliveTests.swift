// Keep-alive reuse, the refusal to reuse a connection that cannot be trusted, and the retry of
// an idempotent request that hit the keep-alive race (RFC 9112 §9.3, §9.3.1).
//
// ScriptedServer serves connections one after another: a second connection waits in the
// backlog until the first script ends. A test that needs a new connection therefore also
// proves the engine closed the old one (its `stallUntilClosed` ended).
import Dispatch
@testable import FerryEngine
import FerryIO
import FerryWire
import Foundation
import Glibc
import HTTPTypes
import Testing
import TestSupport

@Suite("Engine: keep-alive, reuse and retry")
struct EngineKeepAliveTests {
    private static let stall = ScriptStep.stallUntilClosed(limit: .seconds(30))

    /// Runs `count` GETs one after another on one engine; returns their delegates.
    private func sequential(
        _ server: ScriptedServer, _ requests: [ExchangeRequest], engine: HTTPClientEngine? = nil
    ) async throws -> [CollectingDelegate] {
        let engine = try engine ?? EngineTest.makeEngine()
        var delegates: [CollectingDelegate] = []
        for request in requests { delegates.append(await EngineTest.run(engine, request)) }
        await EngineTest.shutdown(engine)
        return delegates
    }

    // MARK: - Reuse

    @Test("two sequential requests share one connection; the second is marked reused")
    func twoRequestsOneConnection() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .send(EngineTest.ok("one")), .readRequest, .send(EngineTest.ok("two")), Self.stall,
        ]])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server, target: "/1"), EngineTest.request(server, target: "/2")])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(results.map(\.record.body) == [EngineTest.bytes("one"), EngineTest.bytes("two")])
        #expect(results.map { $0.record.connections.map(\.isReused) } == [[false], [true]])
        #expect(results[1].record.metrics?.connectionsOpened == 0)
        #expect(server.acceptedConnections == 1)
        #expect(server.receivedRequestHeads(connection: 0).map(\.startLine) == ["GET /1 HTTP/1.1", "GET /2 HTTP/1.1"])
    }

    @Test("HEAD, then 204 and 304 without framing fields, then GET: all on one connection")
    func bodylessResponsesKeepTheConnection() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .send(EngineTest.response(["Content-Length: 1000"])),
            .readRequest, .send(EngineTest.response(status: "204 No Content", [])),
            .readRequest, .send(EngineTest.response(status: "304 Not Modified", ["ETag: \"x\""])),
            .readRequest, .send(EngineTest.ok("last")), Self.stall,
        ]])
        defer { server.shutdown() }
        var head = EngineTest.request(server, target: "/h")
        head.head.method = .head
        let results = try await sequential(server, [
            head, EngineTest.request(server, target: "/204"), EngineTest.request(server, target: "/304"),
            EngineTest.request(server, target: "/last"),
        ])
        #expect(results.map(\.succeeded) == [true, true, true, true])
        #expect(results[3].record.body == EngineTest.bytes("last"))
        #expect(server.acceptedConnections == 1)
    }

    @Test("max one connection per host: a second concurrent request waits and then reuses it")
    func queuedRequestReusesConnection() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .send(EngineTest.ok("a")), .readRequest, .send(EngineTest.ok("b")), Self.stall,
        ]])
        defer { server.shutdown() }
        let engine = try HTTPClientEngine(loopCount: 1, maxConnectionsPerHost: 1, idleTimeout: .seconds(60))
        defer { engine.shutdown() }
        let first = CollectingDelegate()
        let second = CollectingDelegate()
        _ = engine.execute(EngineTest.request(server, target: "/a"), delegate: first)
        _ = engine.execute(EngineTest.request(server, target: "/b"), delegate: second)
        let firstEnded = await first.wait()
        let secondEnded = await second.wait()
        #expect(firstEnded && secondEnded)
        #expect(first.succeeded && second.succeeded)
        #expect(first.record.body == EngineTest.bytes("a") && second.record.body == EngineTest.bytes("b"))
        #expect(server.acceptedConnections == 1)
    }

    // MARK: - No reuse

    @Test("Connection: close in the response: the engine closes it and opens a new one")
    func connectionCloseIsHonoured() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.response(["Content-Length: 3", "Connection: close"], body: "one")), Self.stall],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server), EngineTest.request(server)])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(results[1].record.connections.map(\.isReused) == [false])
        #expect(server.acceptedConnections == 2)
    }

    @Test("an HTTP/1.0 response without keep-alive is not reused")
    func http10IsNotReused() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send("HTTP/1.0 200 OK\r\nContent-Length: 3\r\n\r\none"), Self.stall],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server), EngineTest.request(server)])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(server.acceptedConnections == 2)
    }

    @Test("an HTTP/1.0 response with Connection: keep-alive and a length is reused")
    func http10KeepAliveIsReused() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .send("HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 3\r\n\r\none"),
            .readRequest, .send(EngineTest.ok("two")), Self.stall,
        ]])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server), EngineTest.request(server)])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(server.acceptedConnections == 1)
    }

    @Test("bytes after a complete response: delivered response is exact, the connection is not reused")
    func extraBytesPreventReuse() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one") + "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nsmug!"), Self.stall],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server), EngineTest.request(server)])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(results.map(\.record.body) == [EngineTest.bytes("one"), EngineTest.bytes("two")])
        #expect(server.acceptedConnections == 2)
    }

    @Test("a body delimited by close is read to the end and its connection is not reused")
    func untilCloseFraming() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send("HTTP/1.1 200 OK\r\n\r\nuntil close"), .close],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server), EngineTest.request(server)])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(results[0].record.body == EngineTest.bytes("until close"))
        #expect(results[1].record.connections.map(\.isReused) == [false])
        #expect(server.acceptedConnections == 2)
    }

    @Test("the pool closes a connection idle longer than its idle timeout")
    func poolIdleTimeoutClosesConnection() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("one")), Self.stall]])
        defer { server.shutdown() }
        let engine = try HTTPClientEngine(loopCount: 1, maxConnectionsPerHost: 6, idleTimeout: .milliseconds(200))
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        // The stall ends only when the engine closes the parked connection.
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
    }

    // MARK: - Keep-alive race and retry

    @Test("the server closes the idle connection right after replying: the next GET succeeds on a new one")
    func serverClosesIdleConnection() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .close],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server), EngineTest.request(server)])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(results[1].record.body == EngineTest.bytes("two"))
        // Either the close was noticed while idle, or the reuse failed and was retried once.
        #expect((1...2).contains(results[1].record.sentHeads.count))
        #expect(results[1].record.connections.last?.isReused == false)
        #expect(server.acceptedConnections == 2)
    }

    @Test("a close already noticed while parked: the GET goes straight to a new connection, no retry")
    func closeNoticedWhileIdle() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .close],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
        let second = await EngineTest.run(engine, EngineTest.request(server))
        #expect(second.succeeded)
        #expect(second.record.sentHeads.count == 1)
        #expect(second.record.connections.map(\.isReused) == [false])
    }

    @Test("stale connection: the server reads the second GET and closes; it is retried once on a new connection",
          arguments: [ScriptStep.close, .reset])
    func staleGetIsRetried(_ ending: ScriptStep) async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .readRequest, ending],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let results = try await sequential(server, [EngineTest.request(server, target: "/1"), EngineTest.request(server, target: "/2")])
        #expect(results.map(\.succeeded) == [true, true])
        #expect(results[1].record.body == EngineTest.bytes("two"))
        #expect(results[1].record.connections.map(\.isReused) == [true, false])
        #expect(results[1].record.metrics?.connectionsOpened == 1)
        // The retry ran on the server's second connection. (How many connections the retry
        // opened is checked by `retryOpensExactlyOneConnection`.)
        #expect(server.receivedRequestHeads(connection: 0).map(\.startLine) == ["GET /1 HTTP/1.1", "GET /2 HTTP/1.1"])
        #expect(server.receivedRequestHeads(connection: 1).map(\.startLine) == ["GET /2 HTTP/1.1"])
    }

    @Test("a retry opens exactly one new connection")
    func retryOpensExactlyOneConnection() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .readRequest, .close],
            [.readRequest, .send(EngineTest.ok("two")), .close],
            EngineTest.markerScript,
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        #expect(await server.waitForFinishedConnections(2, timeout: .seconds(30)))
        // A surplus connection would wait in the listen backlog, ahead of the marker's.
        try await EngineTest.expectNoOtherConnection(from: engine, to: server, accepted: 2)
    }

    @Test("stale connection with a POST: emptyReply, never retried")
    func stalePostIsNotRetried() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .readRequest, .close],
            EngineTest.markerScript,
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        let post = await EngineTest.run(engine, EngineTest.request(server, method: .post, body: .bytes(EngineTest.bytes("once"))))
        #expect(post.error?.kind == .emptyReply)
        #expect(post.record.sentHeads.count == 1)
        try await EngineTest.expectNoOtherConnection(from: engine, to: server, accepted: 1)
    }

    @Test("a retried GET that fails again is not retried a second time")
    func retryHappensOnlyOnce() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .readRequest, .close],
            [.readRequest, .close],
            EngineTest.markerScript,
        ])
        defer { server.shutdown() }
        // The default six connections per host: the retry must still open exactly one.
        let engine = try HTTPClientEngine(loopCount: 1, maxConnectionsPerHost: 6, idleTimeout: .seconds(60))
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        let second = await EngineTest.run(engine, EngineTest.request(server))
        #expect(second.error?.kind == .emptyReply)
        #expect(second.record.sentHeads.count == 2)
        try await EngineTest.expectNoOtherConnection(from: engine, to: server, accepted: 2)
    }

    @Test("a reused connection that dies after part of the response: not retried, the parse error is reported")
    func partialResponseOnReusedConnectionIsNotRetried() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), .readRequest, .send("HTTP/1.1 200 O"), .close],
            EngineTest.markerScript,
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        #expect(await EngineTest.run(engine, EngineTest.request(server)).succeeded)
        let second = await EngineTest.run(engine, EngineTest.request(server))
        #expect(second.parseError?.kind == .incompleteHead)
        try await EngineTest.expectNoOtherConnection(from: engine, to: server, accepted: 1)
    }
}
