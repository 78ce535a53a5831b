// A connection whose response was framed ambiguously, or carried bytes past its end, never
// carries the next request (issue 20; RFC 9112 §6.3, §9.3, §11.2). Each reply below goes out on
// connection 0, which then waits for a second request and would answer it "reused"; a second
// connection answers "fresh". The first request must end as the parser reads it (a typed
// error, or one safe reading), and the second must get "fresh" from a new connection, so a
// response smuggled into the first can never be taken as the answer to the second. Two
// unambiguous replies are the control: their connection is reused.
//
// The parser's reading of each shape, and many more, is in FerryWireTests'
// ResponseSmugglingTests, ResponseParserErrorTests and BodyFramingTests.
import Foundation
import HTTPTypes
import Testing
import TestSupport

@testable import FerrySession

@Suite("A connection after an ambiguously framed response is never reused")
struct AmbiguousFramingTests {
    /// How the first request ends.
    enum Ending: Sendable, CustomStringConvertible {
        case response(status: Int, body: String)
        case failure(NetworkError.Code)

        var description: String {
            switch self {
            case .response(let status, let body): "\(status) \(body.debugDescription)"
            case .failure(let code): "failure \(code)"
            }
        }
    }

    struct Shape: Sendable, CustomTestStringConvertible {
        var name: String
        var method: HTTPRequest.Method = .get
        var reply: String
        var ending: Ending
        var reused = false
        var testDescription: String { name }
    }

    private static let smuggled = "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled"
    private static let chunkedHello = "5\r\nhello\r\n0\r\n\r\n"

    static let shapes: [Shape] = [
        Shape(name: "control: a Content-Length reply", reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi",
              ending: .response(status: 200, body: "hi"), reused: true),
        Shape(name: "control: trailers naming Content-Length and Transfer-Encoding change nothing",
              reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nContent-Length: 50\r\nTransfer-Encoding: gzip\r\n\r\n",
              ending: .response(status: 200, body: "hello"), reused: true),
        Shape(name: "Transfer-Encoding and Content-Length: TE wins, then close",
              reply: "HTTP/1.1 200 OK\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedHello,
              ending: .response(status: 200, body: "hello")),
        Shape(name: "Content-Length then Transfer-Encoding: TE wins, then close",
              reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 100\r\n\r\n" + chunkedHello,
              ending: .response(status: 200, body: "hello")),
        Shape(name: "chunked in HTTP/1.0, even with keep-alive",
              reply: "HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedHello,
              ending: .response(status: 200, body: "hello")),
        Shape(name: "a second response after the Content-Length body",
              reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nhi" + smuggled, ending: .response(status: 200, body: "hi")),
        Shape(name: "a second response after the last chunk", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedHello + smuggled,
              ending: .response(status: 200, body: "hello")),
        Shape(name: "204 with a Content-Length body", reply: "HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\nhello",
              ending: .response(status: 204, body: "")),
        Shape(name: "304 with a chunked body", reply: "HTTP/1.1 304 Not Modified\r\nTransfer-Encoding: chunked\r\n\r\n" + chunkedHello,
              ending: .response(status: 304, body: "")),
        Shape(name: "a HEAD response followed by the body it announced", method: .head,
              reply: "HTTP/1.1 200 OK\r\nContent-Length: 8\r\n\r\nsmuggled", ending: .response(status: 200, body: "")),
        Shape(name: "100 Continue carrying a body", reply: "HTTP/1.1 100 Continue\r\nContent-Length: 5\r\n\r\nhello" + smuggled,
              ending: .failure(.cannotParseResponse)),
        Shape(name: "two Content-Length values", reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nContent-Length: 10\r\n\r\nhi" + smuggled,
              ending: .failure(.cannotParseResponse)),
        Shape(name: "a Content-Length list that disagrees", reply: "HTTP/1.1 200 OK\r\nContent-Length: 2, 10\r\n\r\nhi" + smuggled,
              ending: .failure(.cannotParseResponse)),
        Shape(name: "Transfer-Encoding with a space before the colon", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding : chunked\r\nContent-Length: 2\r\n\r\nhi",
              ending: .failure(.cannotParseResponse)),
        Shape(name: "obs-fold continuing Transfer-Encoding", reply: "HTTP/1.1 200 OK\r\nContent-Length: 2\r\nTransfer-Encoding: gzip,\r\n chunked\r\n\r\nhi",
              ending: .failure(.cannotParseResponse)),
        Shape(name: "a bare CR inside a field value", reply: "HTTP/1.1 200 OK\r\nX-A: a\rContent-Length: 2\r\nContent-Length: 2\r\n\r\nhi",
              ending: .failure(.cannotParseResponse)),
        Shape(name: "a chunk extension with a bare CR", reply: "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5;a\rb\r\nhello\r\n0\r\n\r\n",
              ending: .failure(.cannotParseResponse)),
    ]

    @Test("the first request ends as the parser reads it, and the next one goes out on a new connection", arguments: shapes)
    func nextRequestOnANewConnection(shape: Shape) async throws {
        let server = try ScriptedServer(
            scripts: [
                [.readRequest, .send(shape.reply), .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 6\r\n\r\nreused")],
                .reply("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh"),
            ],
            // Only the control rows wait for a second request on connection 0: bound that wait
            // for a loaded machine, not for speed (the other rows see their close at once).
            ioTimeout: .seconds(90))
        let session = Session(configuration: SessionTest.configuration())
        var ending: Ending
        do throws(NetworkError) {
            let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/first"), method: shape.method))
            ending = .response(status: response.statusCode, body: String(decoding: data, as: UTF8.self))
        } catch {
            ending = .failure(error.code)
        }
        let (second, _) = try await session.data(for: NetworkRequest(url: server.url("/second")))
        session.invalidateAndCancel()
        await server.shutdownGracefully()

        #expect("\(ending)" == "\(shape.ending)")
        #expect(String(decoding: second, as: UTF8.self) == (shape.reused ? "reused" : "fresh"))
        #expect(server.acceptedConnections == (shape.reused ? 1 : 2))
        let first = try ReceivedRequests.parse(server.receivedBytes(connection: 0))
        #expect(first.map(\.target) == (shape.reused ? ["/first", "/second"] : ["/first"]), "connection 0 carried the first request only")
    }
}
