import Foundation
import TestSupport
import Testing

/// The built `ferry` binary against replies written byte for byte: framing edge cases and a
/// server that drops a kept-alive connection, each compared with curl 7.88's behaviour.
struct EndToEndScriptedTests {
    private static let okHi = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"

    private func server(_ scripts: [ConnectionScript]) throws -> ScriptedServer {
        try ScriptedServer(scripts: scripts, ioTimeout: .seconds(5))
    }

    /// The server answers, then closes the kept-alive connection while the second request is
    /// already on its way. A GET that got no byte back may be retried (RFC 9112 §9.3.1), and
    /// curl does: "Connection died, retrying a fresh connect".
    @Test func staleKeptAliveConnectionIsRetriedForGET() async throws {
        let server = try staleServer()
        defer { server.shutdown() }
        let url = server.url("/a").absoluteString
        let result = try await FerryProcess.run("-sS", "-w", "%{num_connects}\\n", url, url)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutText == "hi1\nhi1\n")
        #expect(server.receivedRequestHeads(connection: 1).count == 1)
    }

    /// The retry needs one new connection; Ferry opens two, and the second is never used.
    @Test
    func retryOpensOneConnection() async throws {
        let server = try staleServer()
        defer { server.shutdown() }
        let url = server.url("/a").absoluteString
        let result = try await FerryProcess.run("-sS", url, url)
        #expect(result.status == 0, "\(result)")
        #expect(server.acceptedConnections == 2)
    }

    private func staleServer() throws -> ScriptedServer {
        try server([
            [.readRequest, .send(Self.okHi), .sleep(.milliseconds(300)), .close],
            .reply(Self.okHi),
        ])
    }

    @Test func conflictingLengthsAreEight() async throws {
        for reply in [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nabcde",
            "HTTP/1.1 200 OK\r\nContent-Length: -1\r\n\r\nabcde",
            "HTTP/1.1 200 OK\r\nContent-Length: 5x\r\n\r\nabcde",
        ] {
            let server = try server([.reply(reply)])
            defer { server.shutdown() }
            let result = try await FerryProcess.run("-sS", server.url("/").absoluteString)
            #expect(result.status == 8, "\(reply.debugDescription): \(result)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("ferry: (8) "), "\(result)")
        }
    }

    @Test func closeInsideTheHeadIsAnError() async throws {
        let server = try server([.reply("HTTP/1.1 200 OK\r\nContent-Len")])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", server.url("/").absoluteString)
        #expect(result.status == 8 || result.status == 52, "\(result)")
        #expect(result.stderrLines.count == 1)
    }

    @Test func chunkedBodyWithTrailersAndExtensions() async throws {
        let reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n2\r\nde\r\n0\r\nX-T: 1\r\n\r\n"
        let server = try server([.reply(reply, closeAfter: false)])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", "-w", "|%{size_download}", server.url("/").absoluteString)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutText == "abcde|5")
    }

    @Test func informationalResponsesAreSkipped() async throws {
        let reply = "HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi"
        let server = try server([.reply(reply)])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", "-w", "|%{http_code}", server.url("/").absoluteString)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutText == "hi|200")
    }

    /// RFC 9112 §6.3: 204 and 304 never have a body, whatever their fields say. Stray bytes
    /// after the head are not read as one, and the transfer does not wait for them.
    @Test(arguments: ["204 No Content", "304 Not Modified"])
    func noContentAndNotModifiedHaveNoBody(status: String) async throws {
        let server = try server([.reply("HTTP/1.1 \(status)\r\nContent-Length: 2\r\n\r\nhi", closeAfter: false)])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", "-m", "5", "-w", "%{http_code}", server.url("/").absoluteString)
        #expect(result.status == 0, "\(result)")
        #expect(result.stdoutText == String(status.prefix(3)))
    }

    @Test func badChunkSizeFails() async throws {
        let reply = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n"
        let server = try server([.reply(reply)])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", server.url("/").absoluteString)
        #expect(result.status != 0, "\(result)")
        #expect(result.stderrLines.count == 1)
    }

    @Test func requestHeadOnTheWireIsCurlShaped() async throws {
        let server = try server([.reply(Self.okHi)])
        defer { server.shutdown() }
        let result = try await FerryProcess.run("-sS", "-d", "k=v", server.url("/p?q=1").absoluteString)
        #expect(result.status == 0, "\(result)")
        let wire = String(decoding: server.receivedBytes(connection: 0), as: UTF8.self)
        #expect(wire.hasPrefix("POST /p?q=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"), "\(wire)")
        #expect(wire.hasSuffix("\r\n\r\nk=v"), "\(wire)")
        #expect(wire.contains("\r\nContent-Length: 3\r\n"))
    }
}
