// Expect: 100-continue against the scripted server (RFC 9110 §10.1.1): the head announces it
// for bodies over the threshold or of unknown length; the body waits for 100 Continue, goes out
// anyway after the timeout, and is never sent when a final response comes first.
@testable import FerryEngine
import FerryWire
import HTTPTypes
import Testing
import TestSupport

@Suite("Engine: Expect: 100-continue")
struct EngineExpectContinueTests {
    static let body = TestBytes.pattern(count: 2 << 20)

    private func upload(
        _ server: ScriptedServer, body: ExchangeBody = .bytes(Self.body), threshold: Int64? = 1 << 20,
        timeout: Duration = .seconds(30)
    ) async throws -> CollectingDelegate {
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        var request = EngineTest.request(server, method: .post, target: "/upload", body: body)
        request.expectsContinueAbove = threshold
        request.continueTimeout = timeout
        return await EngineTest.run(engine, request)
    }

    @Test("100 Continue releases the body; the head announced the expectation")
    func continueReleasesTheBody() async throws {
        let server = try ScriptedServer(scripts: [[
            .readHead, .send("HTTP/1.1 100 Continue\r\n\r\n"), .readBody, .send(EngineTest.ok("stored")), .stallUntilClosed,
        ]])
        defer { server.shutdown() }
        let delegate = try await upload(server)
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.heads.first?.status == .ok)
        #expect(delegate.record.sentBodyBytes == Int64(Self.body.count))
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "Expect") == "100-continue")
        #expect(delegate.record.addedExpectations == [true], "the delegate learns the expectation was the engine's")
        #expect(server.mismatches.isEmpty, "\(server.mismatches)")
    }

    @Test("a final response before 100 Continue: the body is never sent and the connection not reused")
    func earlyRefusalSendsNoBody() async throws {
        let refusal = EngineTest.response(status: "413 Content Too Large", ["Content-Length: 0"])
        let server = try ScriptedServer(scripts: [[.readHead, .send(refusal), .stallUntilClosed]])
        defer { server.shutdown() }
        let delegate = try await upload(server)
        #expect(delegate.succeeded)
        #expect(delegate.record.heads.first?.status.code == 413)
        #expect(delegate.record.sentBodyBytes == 0)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)), "the connection is closed, not kept")
        let head = server.receivedBytes(connection: 0)
        #expect(head.count < 1024, "only the head reached the server: \(head.count) bytes")
    }

    @Test("a final head before 100 Continue withdraws the body, however long its response takes to end")
    func aSlowRefusalStillSendsNoBody() async throws {
        // The refusal's body ends well after the continue timeout: the timer must not send the
        // body the head already refused.
        let head = EngineTest.response(status: "413 Content Too Large", ["Content-Length: 20"], body: "0123456789")
        let server = try ScriptedServer(scripts: [[
            .readHead, .send(head), .sleep(.milliseconds(300)), .send("abcdefghij"), .stallUntilClosed,
        ]])
        defer { server.shutdown() }
        let delegate = try await upload(server, timeout: .milliseconds(20))
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.heads.first?.status.code == 413)
        #expect(delegate.record.body == EngineTest.bytes("0123456789abcdefghij"))
        #expect(delegate.record.sentBodyBytes == 0, "the refused body went out")
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)), "the connection is closed, not kept")
    }

    @Test("only 100 Continue releases the body: a 103 before a refusal does not")
    func otherInterimResponsesDoNotReleaseTheBody() async throws {
        let server = try ScriptedServer(scripts: [[
            .readHead, .send("HTTP/1.1 103 Early Hints\r\nLink: </style.css>; rel=preload\r\n\r\n"),
            .sleep(.milliseconds(100)),
            .send(EngineTest.response(status: "401 Unauthorized", ["Content-Length: 0"])), .stallUntilClosed,
        ]])
        defer { server.shutdown() }
        let delegate = try await upload(server)
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.heads.map(\.status.code) == [401])
        #expect(delegate.record.sentBodyBytes == 0, "a 103 released the body")
    }

    @Test("a 103 and then 100 Continue: the body goes after the 100")
    func continueAfterEarlyHints() async throws {
        let server = try ScriptedServer(scripts: [[
            .readHead, .send("HTTP/1.1 103 Early Hints\r\n\r\nHTTP/1.1 100 Continue\r\n\r\n"), .readBody,
            .send(EngineTest.ok("stored")), .stallUntilClosed,
        ]])
        defer { server.shutdown() }
        let delegate = try await upload(server)
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.sentBodyBytes == Int64(Self.body.count))
        #expect(server.mismatches.isEmpty, "\(server.mismatches)")
    }

    @Test("a server that ignores the expectation gets the body after the timeout")
    func timeoutSendsTheBodyAnyway() async throws {
        let server = try ScriptedServer(scripts: [[.readHead, .readBody, .send(EngineTest.ok("late")), .stallUntilClosed]])
        defer { server.shutdown() }
        let delegate = try await upload(server, timeout: .milliseconds(50))
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        // The expectation was announced and never answered, yet the whole body arrived.
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "Expect") == "100-continue")
        #expect(delegate.record.sentBodyBytes == Int64(Self.body.count))
        #expect(server.receivedBytes(connection: 0).suffix(Self.body.count).elementsEqual(Self.body))
        #expect(server.mismatches.isEmpty, "\(server.mismatches)")
    }

    @Test("bodies at or below the threshold, and sessions without one, do not ask", arguments: [Int64(2 << 20), nil] as [Int64?])
    func noExpectationBelowTheThreshold(threshold: Int64?) async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("ok")), .stallUntilClosed]])
        defer { server.shutdown() }
        let delegate = try await upload(server, threshold: threshold)
        #expect(delegate.succeeded)
        #expect(server.receivedRequestHeads(connection: 0).first?.value(of: "Expect") == nil)
        #expect(delegate.record.addedExpectations == [false])
    }

    @Test("the announcement rule", arguments: [
        (Int64(2 << 20), Int64(1 << 20), nil, true),
        (Int64(1 << 20), Int64(1 << 20), nil, false),
        (nil, Int64(1 << 20), nil, true),  // chunked: unknown length
        (Int64(0), Int64(1 << 20), nil, false),
        (Int64(2 << 20), nil, nil, false),
        (Int64(10), nil, "100-continue", true),  // the caller's own expectation is honoured
        (Int64(2 << 20), Int64(1 << 20), "something-else", false),
    ] as [(Int64?, Int64?, String?, Bool)])
    func announcement(length: Int64?, threshold: Int64?, callerExpect: String?, expects: Bool) {
        var head = RequestHead(method: .post, target: "/", host: "h")
        if let callerExpect { head.headerFields[.expect] = callerExpect }
        let announced = Exchange.announcesContinue(&head, length: length, threshold: threshold)
        #expect(announced.awaits == expects)
        // Only a head without the caller's own `Expect` gets the engine's.
        #expect(announced.added == (expects && callerExpect == nil))
        if callerExpect == nil {
            #expect((head.headerFields[.expect] == "100-continue") == expects)
        }
    }
}
