// What the engine puts on the wire, byte for byte, as a raw-socket server (not Ferry's code)
// received it.
@testable import FerryEngine
import FerryWire
import HTTPTypes
import Testing
import TestSupport

@Suite("Engine: exact request bytes")
struct EngineRequestBytesTests {
    /// Runs one request against a server that answers `200 OK` with an empty body, and returns
    /// the delegate and everything the server read on the connection.
    private func capture(_ build: (ScriptedServer) -> ExchangeRequest) async throws -> (CollectingDelegate, [UInt8], ScriptedServer) {
        let server = try ScriptedServer(scripts: [.reply("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = await EngineTest.run(engine, build(server))
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
        return (delegate, server.receivedBytes(connection: 0), server)
    }

    @Test("GET: request line, Host first, the fields in order, no framing field")
    func getWithCustomFields() async throws {
        let fields: HTTPFields = [.test("X-One"): "1", .accept: "*/*", .test("x-lower"): "mixed Case"]
        let (delegate, received, server) = try await capture { EngineTest.request($0, target: "/path?q=1", fields: fields) }
        #expect(delegate.succeeded)
        let expected = "GET /path?q=1 HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
            + "X-One: 1\r\nAccept: */*\r\nx-lower: mixed Case\r\n\r\n"
        #expect(received == EngineTest.bytes(expected))
        #expect(server.mismatches.isEmpty)
    }

    @Test("POST with a bytes body: Content-Length and the body exactly")
    func postBytes() async throws {
        let body = EngineTest.bytes("hello world")
        let fields: HTTPFields = [.contentType: "text/plain"]
        let (delegate, received, server) = try await capture {
            EngineTest.request($0, method: .post, target: "/upload", fields: fields, body: .bytes(body))
        }
        #expect(delegate.succeeded)
        #expect(delegate.record.sentBodyBytes == 11)
        let expected = "POST /upload HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
            + "Content-Type: text/plain\r\nContent-Length: 11\r\n\r\nhello world"
        #expect(received == EngineTest.bytes(expected))
    }

    @Test("POST without a body announces Content-Length: 0")
    func postEmpty() async throws {
        let (delegate, received, server) = try await capture { EngineTest.request($0, method: .post, target: "/e") }
        #expect(delegate.succeeded)
        let expected = "POST /e HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 0\r\n\r\n"
        #expect(received == EngineTest.bytes(expected))
    }

    @Test("a stream of unknown length goes out chunked: hex sizes, CRLFs, last chunk; empty chunks skipped")
    func streamChunked() async throws {
        let big = [UInt8](repeating: UInt8(ascii: "z"), count: 26)
        let source = ScriptedChunkSource([EngineTest.bytes("hello"), [], EngineTest.bytes(" world!"), big])
        let (delegate, received, server) = try await capture {
            EngineTest.request($0, method: .put, target: "/s", body: .stream(source, length: nil))
        }
        #expect(delegate.succeeded)
        #expect(delegate.record.sentBodyBytes == 38)
        let expected = "PUT /s HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nTransfer-Encoding: chunked\r\n\r\n"
            + "5\r\nhello\r\n7\r\n world!\r\n1a\r\n" + String(repeating: "z", count: 26) + "\r\n0\r\n\r\n"
        #expect(received == EngineTest.bytes(expected))
        #expect(server.mismatches.isEmpty)
    }

    @Test("a stream of known length goes out raw after Content-Length")
    func streamWithLength() async throws {
        let source = ScriptedChunkSource([EngineTest.bytes("abc"), EngineTest.bytes("defg")])
        let (delegate, received, server) = try await capture {
            EngineTest.request($0, method: .post, target: "/k", body: .stream(source, length: 7))
        }
        #expect(delegate.succeeded)
        let expected = "POST /k HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nContent-Length: 7\r\n\r\nabcdefg"
        #expect(received == EngineTest.bytes(expected))
    }

    @Test("Content-Length and Transfer-Encoding in the fields are dropped: the body decides the framing")
    func callerFramingFieldsIgnored() async throws {
        let fields: HTTPFields = [.contentLength: "999", .transferEncoding: "chunked", .test("X-After"): "y"]
        let (delegate, received, server) = try await capture {
            EngineTest.request($0, method: .post, target: "/f", fields: fields, body: .bytes(EngineTest.bytes("ab")))
        }
        #expect(delegate.succeeded)
        let expected = "POST /f HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-After: y\r\nContent-Length: 2\r\n\r\nab"
        #expect(received == EngineTest.bytes(expected))
    }

    @Test("a Host field overrides the derived Host, keeps its place first, and is sent once")
    func hostOverride() async throws {
        let fields: HTTPFields = [.test("X-Before"): "b", .test("Host"): "example.test:8080"]
        let (delegate, received, _) = try await capture { EngineTest.request($0, target: "/h", fields: fields) }
        #expect(delegate.succeeded)
        let expected = "GET /h HTTP/1.1\r\nHost: example.test:8080\r\nX-Before: b\r\n\r\n"
        #expect(received == EngineTest.bytes(expected))
    }

    @Test("HTTPField(name:value:[UInt8]) legalizes a control byte to a space before the engine sees it")
    func legalizedByteValueIsSent() async throws {
        let field = HTTPField(name: .test("X-Ctl"), value: [UInt8(ascii: "a"), 0x01, UInt8(ascii: "b")])
        let (delegate, received, server) = try await capture { EngineTest.request($0, target: "/l", fields: HTTPFields([field])) }
        #expect(delegate.succeeded)
        let expected = "GET /l HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\nX-Ctl: a b\r\n\r\n"
        #expect(received == EngineTest.bytes(expected))
    }

    @Test("a control byte in a field value is refused before any connection is opened")
    func invalidFieldValueRefused() async throws {
        // `value:` legalizes (see above); `lenientValue:` keeps 0x01, so the engine must check.
        let field = HTTPField(name: .test("X-Bad"), lenientValue: [UInt8(ascii: "a"), 0x01, UInt8(ascii: "b")])
        #expect(field.withUnsafeBytesOfValue { $0.contains(0x01) })
        try await expectRefused(fields: HTTPFields([field]), kind: .invalidFieldValue)
    }

    @Test("a space in the target is refused before any connection is opened")
    func invalidTargetRefused() async throws {
        try await expectRefused(target: "/a b", kind: .invalidRequestTarget)
    }

    @Test("an empty Host is refused before any connection is opened")
    func emptyHostRefused() async throws {
        try await expectRefused(kind: .invalidHost) { $0.head.host = "" }
    }

    private func expectRefused(
        target: String = "/", fields: HTTPFields = [:], kind: RequestEncodingError.Kind,
        adjust: (inout ExchangeRequest) -> Void = { _ in }
    ) async throws {
        let server = try ScriptedServer(scripts: [.reply("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        var request = EngineTest.request(server, target: target, fields: fields)
        adjust(&request)
        let delegate = await EngineTest.run(engine, request)
        // Joining the loops first means no connection attempt can still be on its way.
        await EngineTest.shutdown(engine)
        guard case .invalidRequest(let error) = delegate.error?.kind else {
            Issue.record("expected invalidRequest, got \(String(describing: delegate.record.endings))")
            return
        }
        #expect(error.kind == kind)
        #expect(delegate.record.sentHeads.isEmpty)
        #expect(delegate.record.endings.count == 1)
        #expect(server.acceptedConnections == 0)
        #expect(server.receivedBytes(connection: 0).isEmpty)
    }
}
