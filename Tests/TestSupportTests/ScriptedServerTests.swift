import Foundation
import Testing

@testable import TestSupport

/// ScriptedServer replays scripts exactly and is always bounded.
@Suite struct ScriptedServerTests {
    @Test func replySendsExactBytesAndCloses() async throws {
        let raw = "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-Odd:  spaced \r\n\r\nhello"
        let server = try ScriptedServer(scripts: [.reply(raw)])
        defer { server.shutdown() }
        let received = try await RawHTTPClient.exchange(port: server.port, request: "GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(received == Array(raw.utf8))
        #expect(await server.waitForFinishedConnections(1))
        #expect(server.acceptedConnections == 1)
        #expect(server.receivedBytes(connection: 0) == Array("GET /a HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
        #expect(server.receivedRequestHeads(connection: 0).first?.startLine == "GET /a HTTP/1.1")
        #expect(server.mismatches.isEmpty)
    }

    @Test func readsContentLengthAndChunkedBodiesThenChecksRequestLines() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .expectRequestLine(prefix: "POST /one"), .send("A"),
            .readRequest, .expectRequestLine(prefix: "PUT /two"), .send("B"),
            .readRequest, .expectRequestLine(prefix: "GET /nope"), .close,
        ]])
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try await client.send("POST /one HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc")
        try await client.send("PUT /two HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n")
        try await client.send("2\r\nxy\r\n1;ext=1\r\nz\r\n0\r\nT: 1\r\n\r\n")
        try await client.send("GET /three HTTP/1.1\r\n\r\n")
        #expect(try await client.readUntilClose() == Array("AB".utf8))
        #expect(await server.waitForFinishedConnections(1))
        #expect(server.receivedRequestHeads(connection: 0).map(\.startLine)
            == ["POST /one HTTP/1.1", "PUT /two HTTP/1.1", "GET /three HTTP/1.1"])
        #expect(server.mismatches.count == 1)
        #expect(server.mismatches.first?.contains("GET /three") == true)
    }

    @Test func resetIsSeenAsConnectionReset() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send("HTTP/1.1 200 OK\r\n"), .reset]])
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try await client.send("GET / HTTP/1.1\r\n\r\n")
        #expect(await server.waitForFinishedConnections(1))
        // The RST may arrive before or after the partial head is read; either way reading ends in an error.
        await #expect(throws: TestServerError.self) { _ = try await client.readUntilClose() }
    }

    @Test func sendSlowlyDripsAndShutdownWriteSendsFIN() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .sendSlowly("abcdef", chunk: 2, interval: .milliseconds(20)), .shutdownWrite,
            .readBytes(3), .close,
        ]], ioTimeout: .seconds(30))  // the full suite on 2 cores can delay the client's resumption by seconds
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port, timeout: .seconds(30))
        let start = ContinuousClock.now
        try await client.send("GET / HTTP/1.1\r\n\r\n")
        #expect(try await client.readUntilClose() == Array("abcdef".utf8))
        #expect(ContinuousClock.now - start >= .milliseconds(35))
        try await client.send("xyz")
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
        #expect(server.receivedBytes(connection: 0).suffix(3) == Array("xyz".utf8))
        #expect(server.mismatches.isEmpty)
    }

    @Test func stallEndsWhenTheClientCloses() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .stallUntilClosed, .send("late")]])
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try await client.send("GET / HTTP/1.1\r\n\r\n")
        #expect(await !client.serverClosed(within: .milliseconds(100)))
        client.close()
        #expect(await server.waitForFinishedConnections(1))
    }

    @Test func shutdownUnblocksAStallQuickly() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .stallUntilClosed]])
        let client = try RawHTTPClient(port: server.port)
        try await client.send("GET / HTTP/1.1\r\n\r\n")
        #expect(await !client.serverClosed(within: .milliseconds(50)))
        server.shutdown()
        server.shutdown()  // idempotent
        #expect(await client.serverClosed(within: .seconds(2)))
        #expect(server.mismatches.isEmpty)
    }

    @Test func readTimeoutIsRecordedAsAMismatch() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest]], ioTimeout: .milliseconds(100))
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try await client.send("GET / HTTP/1.1\r\n")  // head never completes
        #expect(await server.waitForFinishedConnections(1))
        #expect(server.mismatches.first?.contains("timedOut") == true)
        client.close()
    }

    @Test func extraConnectionsAreClosedOrRepeatTheLastScript() async throws {
        let closing = try ScriptedServer(scripts: [.reply("HTTP/1.1 204 No Content\r\n\r\n")])
        defer { closing.shutdown() }
        _ = try await RawHTTPClient.exchange(port: closing.port, request: "GET / HTTP/1.1\r\n\r\n")
        let extra = try await RawHTTPClient.exchange(port: closing.port, request: "GET / HTTP/1.1\r\n\r\n")
        #expect(extra.isEmpty)
        #expect(closing.acceptedConnections == 2)

        let repeating = try ScriptedServer(
            scripts: [.reply("HTTP/1.1 204 No Content\r\n\r\n")], extraConnections: .repeatLastScript)
        defer { repeating.shutdown() }
        for _ in 0..<3 {
            let reply = try await RawHTTPClient.exchange(port: repeating.port, request: "GET / HTTP/1.1\r\n\r\n")
            #expect(reply == Array("HTTP/1.1 204 No Content\r\n\r\n".utf8))
        }
    }

    @Test func refusesNonLoopbackHosts() {
        #expect(throws: TestServerError.self) { _ = try ScriptedServer(host: "0.0.0.0", scripts: []) }
    }

    @Test func shutdownCutsASleepOrDripShort() async throws {
        let server = try ScriptedServer(scripts: [[
            .readRequest, .sendSlowly("abc", chunk: 1, interval: .seconds(30)), .sleep(.seconds(30)),
        ]])
        let client = try RawHTTPClient(port: server.port)
        try await client.sendRequest("GET", "/")
        #expect(try await client.readUntilCount(1) == Array("a".utf8))
        server.shutdown()
        #expect(server.finishedConnections == 1)
    }

    @Test func expectRequestLineReadsARequestWhenNoneWasRead() async throws {
        let server = try ScriptedServer(scripts: [[
            .expectRequestLine(prefix: "DELETE /x "), .readBytes(4), .send("ok"), .close,
        ]])
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        defer { client.close() }
        try await client.send("DELETE /x HTTP/1.1\r\nHost: h\r\n\r\nraw!")
        #expect(try await client.readUntilClose() == Array("ok".utf8))
        #expect(await server.waitForFinishedConnections(1))
        #expect(server.mismatches.isEmpty)
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "host") == "h")
    }

    @Test func replyCanKeepTheConnectionOpenUntilTheClientCloses() async throws {
        let raw = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
        let server = try ScriptedServer(scripts: [.reply(raw, closeAfter: false)])
        defer { server.shutdown() }
        let client = try RawHTTPClient(port: server.port)
        try await client.sendRequest("GET", "/")
        #expect(try await client.readResponse().text == "hi")
        #expect(await !client.serverClosed(within: .milliseconds(50)))
        client.close()
        #expect(await server.waitForFinishedConnections(1))
    }
}
