// Broken and hostile replies from a raw-socket server: each must end the exchange with one
// precise EngineError, never a hang, a crash or a wrong success.
@testable import FerryEngine
import FerryIO
import FerryWire
import Glibc
import HTTPTypes
import Testing
import TestSupport

/// Runs one GET against one scripted connection; the engine is shut down before returning,
/// so every callback has arrived.
func runAgainstScript(
    _ script: ConnectionScript, adjust: (inout ExchangeRequest) -> Void = { _ in },
    delegate: CollectingDelegate = CollectingDelegate()
) async throws -> CollectingDelegate {
    let server = try ScriptedServer(scripts: [script])
    let engine = try EngineTest.makeEngine()
    var request = EngineTest.request(server, target: "/m")
    adjust(&request)
    await EngineTest.run(engine, request, delegate: delegate)
    await EngineTest.shutdown(engine)
    await server.shutdownGracefully()
    #expect(delegate.record.endings.count == 1, "exactly one ending: \(delegate.record.endings)")
    return delegate
}

@Suite("Engine: malformed and truncated replies")
struct EngineMalformedReplyTests {
    @Test("closed before any byte: emptyReply")
    func emptyReply() async throws {
        let delegate = try await runAgainstScript([.readRequest, .close])
        #expect(delegate.error?.kind == .emptyReply)
        #expect(delegate.record.heads.isEmpty)
    }

    @Test("closed inside the head: incompleteHead at the first missing byte")
    func closedInHead() async throws {
        let partial = "HTTP/1.1 200 OK\r\nContent-Le"
        let delegate = try await runAgainstScript([.readRequest, .send(partial), .close])
        #expect(delegate.parseError?.kind == .incompleteHead)
        #expect(delegate.parseError?.offset == partial.utf8.count)
        #expect(delegate.record.heads.isEmpty)
    }

    @Test("closed after an interim 100 and before the final head: incompleteHead, not emptyReply")
    func closedAfterInterim() async throws {
        let delegate = try await runAgainstScript([.readRequest, .send("HTTP/1.1 100 Continue\r\n\r\n"), .close])
        #expect(delegate.parseError?.kind == .incompleteHead)
    }

    @Test("closed inside a Content-Length body: partialBody with what arrived and what was announced")
    func closedInContentLengthBody() async throws {
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nabc"), .close,
        ])
        #expect(delegate.error?.kind == .partialBody(received: 3, expected: 10))
        #expect(delegate.record.body == EngineTest.bytes("abc"))
    }

    @Test("closed right after a Content-Length head: partialBody(0 of n)")
    func closedBeforeContentLengthBody() async throws {
        let delegate = try await runAgainstScript([.readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\n"), .close])
        #expect(delegate.error?.kind == .partialBody(received: 0, expected: 4))
        #expect(delegate.record.heads.count == 1)
    }

    @Test("closed inside chunk data: partialBody counting data bytes only, length unknown")
    func closedInChunkData() async throws {
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n4\r\nwo"), .close,
        ])
        #expect(delegate.error?.kind == .partialBody(received: 7, expected: nil))
        #expect(delegate.record.body == EngineTest.bytes("hellowo"))
    }

    @Test("closed before the last chunk: partialBody, not success")
    func closedBeforeLastChunk() async throws {
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n"), .close,
        ])
        #expect(delegate.error?.kind == .partialBody(received: 5, expected: nil))
    }

    @Test("reset inside the body: receiveFailed with ECONNRESET while receiving the body")
    func resetMidBody() async throws {
        let delegate = try await runAgainstScript([
            .readRequest, .send("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc"),
            .sleep(.milliseconds(200)), .reset,
        ])
        guard case .receiveFailed(let system, let phase) = delegate.error?.kind else {
            Issue.record("expected receiveFailed, got \(String(describing: delegate.record.endings))")
            return
        }
        #expect(system.errno == ECONNRESET)
        #expect(phase == .receivingBody)
        #expect(delegate.record.body == EngineTest.bytes("abc"))
    }

    @Test("two different Content-Length values: conflictingContentLength")
    func conflictingContentLength() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.response(["Content-Length: 5", "Content-Length: 6"], body: "hello!")))
        #expect(delegate.parseError?.kind == .conflictingContentLength)
        #expect(delegate.record.heads.isEmpty)
    }

    @Test("a chunk size that is not hex: invalidChunkSize at its offset")
    func invalidChunkSize() async throws {
        let head = EngineTest.response(["Transfer-Encoding: chunked"])
        let delegate = try await runAgainstScript(.reply(head + "zz\r\nhello\r\n0\r\n\r\n"))
        #expect(delegate.parseError?.kind == .invalidChunkSize)
        #expect(delegate.parseError?.offset == head.utf8.count)
    }

    @Test("obs-fold in the head is refused")
    func obsFold() async throws {
        let delegate = try await runAgainstScript(.reply("HTTP/1.1 200 OK\r\nX-A: 1\r\n  folded\r\nContent-Length: 0\r\n\r\n"))
        #expect(delegate.parseError?.kind == .obsoleteLineFolding)
    }

    @Test("a status line that is not HTTP: invalidStatusLine")
    func garbageStatusLine() async throws {
        let delegate = try await runAgainstScript(.reply("SSH-2.0-OpenSSH_9.6\r\n\r\n"))
        #expect(delegate.parseError?.kind == .invalidStatusLine)
    }

    @Test("5,100 fields, over the default 5,000: tooManyFields")
    func tooManyFields() async throws {
        let fields = (0..<5_100).map { "X-F\($0): v" } + ["Content-Length: 0"]
        let delegate = try await runAgainstScript(.reply(EngineTest.response(fields), closeAfter: false))
        #expect(delegate.parseError?.kind == .tooManyFields)
    }

    @Test("a 350 KiB header section of 7 KiB lines: headerSectionTooLarge")
    func headerSectionTooLarge() async throws {
        let value = String(repeating: "v", count: 7 * 1024)
        let fields = (0..<50).map { "X-Big\($0): \(value)" } + ["Content-Length: 0"]
        let delegate = try await runAgainstScript(.reply(EngineTest.response(fields), closeAfter: false))
        #expect(delegate.parseError?.kind == .headerSectionTooLarge)
    }

    @Test("one 110 KiB field line: fieldLineTooLong")
    func fieldLineTooLong() async throws {
        let fields = ["X-Huge: " + String(repeating: "h", count: 110 * 1024), "Content-Length: 0"]
        let delegate = try await runAgainstScript(.reply(EngineTest.response(fields), closeAfter: false))
        #expect(delegate.parseError?.kind == .fieldLineTooLong)
    }

    @Test("what curl accepts is accepted: a 20 KiB field line, 300 fields, a 200 KiB head")
    func largeButOrdinaryHeadsAreAccepted() async throws {
        let fields = ["Content-Security-Policy: " + String(repeating: "c", count: 20 * 1024)]
            + (0..<300).map { "Set-Cookie: c\($0)=" + String(repeating: "v", count: 600) } + ["Content-Length: 2"]
        let delegate = try await runAgainstScript(.reply(EngineTest.response(fields, body: "ok"), closeAfter: false))
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.heads.first?.headerFields[values: .setCookie].count == 300)
        #expect(delegate.record.body == EngineTest.bytes("ok"))
    }

    @Test("the request's own parser limits are honoured on the connection")
    func customParserLimits() async throws {
        let fields = (0..<5).map { "X-F\($0): v" } + ["Content-Length: 0"]
        let delegate = try await runAgainstScript(.reply(EngineTest.response(fields))) {
            $0.parserLimits = ParserLimits(maxFieldCount: 3)
        }
        #expect(delegate.parseError?.kind == .tooManyFields)
    }

    @Test("bytes after a HEAD response's head are not taken as its body")
    func headIgnoresContentLength() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.response(["Content-Length: 1000"]), closeAfter: false)) {
            $0.head.method = .head
        }
        #expect(delegate.succeeded)
        #expect(delegate.record.body.isEmpty)
    }

    @Test("a chunked response with trailers dripped one byte at a time arrives exactly as sent whole")
    func drippedResponse() async throws {
        let raw = EngineTest.response(["Transfer-Encoding: chunked", "X-Head: h"]) + "4;ext=1\r\nabcd\r\n2\r\nef\r\n0\r\nX-Tail: t\r\n\r\n"
        let delegate = try await runAgainstScript([.readRequest, .sendSlowly(raw, chunk: 1, interval: .milliseconds(1)), .stallUntilClosed(limit: .seconds(30))])
        #expect(delegate.record.endings == [.finished(trailers: [.test("X-Tail"): "t"])])
        #expect(delegate.record.heads.first?.headerFields[.test("X-Head")] == "h")
        #expect(delegate.record.body == EngineTest.bytes("abcdef"))
    }

    @Test("chunk extensions over the limit: chunkExtensionTooLong")
    func chunkExtensionTooLong() async throws {
        let raw = EngineTest.response(["Transfer-Encoding: chunked"]) + "3;" + String(repeating: "e", count: 20 * 1024) + "\r\nabc\r\n0\r\n\r\n"
        let delegate = try await runAgainstScript(.reply(raw, closeAfter: false))
        #expect(delegate.parseError?.kind == .chunkExtensionTooLong)
    }

    @Test("a chunk not followed by CRLF: invalidChunkFraming")
    func missingChunkCRLF() async throws {
        let delegate = try await runAgainstScript(.reply(EngineTest.response(["Transfer-Encoding: chunked"]) + "3\r\nabcX\r\n0\r\n\r\n"))
        #expect(delegate.parseError?.kind == .invalidChunkFraming)
        #expect(delegate.record.body == EngineTest.bytes("abc"))
    }
}
