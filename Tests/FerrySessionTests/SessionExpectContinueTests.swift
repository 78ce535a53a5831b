// `Expect: 100-continue` through a session (RFC 9110 §10.1.1): the configuration's threshold
// reaches the engine, and a server that refuses the expectation with 417 gets the request
// again without it, body and all, as curl sends it.
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session: Expect 100-continue")
struct SessionExpectContinueTests {
    private static let body = Data(TestBytes.pattern(count: 5_000))

    private static func upload(to server: ScriptedServer, threshold: Int64?) async throws -> (Data, NetworkResponse) {
        let session = Session(configuration: SessionTest.configuration { $0.expectContinueThreshold = threshold })
        defer { session.invalidateAndCancel() }
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/upload")!)
        request.method = .put
        return try await session.upload(for: request, from: .data(body))
    }

    private static func expectation(in head: MessageHead?) -> String? {
        head?.fields.first { $0.name.lowercased() == "expect" }?.value
    }

    @Test func a417ToTheExpectationSendsTheRequestAgainWithoutIt() async throws {
        let server = try ScriptedServer(scripts: [
            [.readHead, .send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"), .close],
            [.readRequest, .send("HTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndone"), .stallUntilClosed(limit: .seconds(30))],
        ])
        defer { server.shutdown() }
        let (data, response) = try await Self.upload(to: server, threshold: 1_000)
        #expect(response.statusCode == 201)
        #expect(data == Data("done".utf8))
        #expect(Self.expectation(in: server.receivedRequestHeads(connection: 0).first) == "100-continue")
        #expect(Self.expectation(in: server.receivedRequestHeads(connection: 1).first) == nil, "sent again without it")
        #expect(Data(server.receivedBytes(connection: 1).suffix(Self.body.count)) == Self.body, "with the whole body")
    }

    @Test func a417WithoutTheExpectationIsTheTasks() async throws {
        // Below the threshold no expectation is sent: a 417 is just the server's answer.
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send("HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n"), .stallUntilClosed(limit: .seconds(30))],
        ])
        defer { server.shutdown() }
        let (_, response) = try await Self.upload(to: server, threshold: nil)
        #expect(response.statusCode == 417)
        #expect(Self.expectation(in: server.receivedRequestHeads(connection: 0).first) == nil)
        #expect(server.acceptedConnections == 1)
    }

    private static let refusal = "HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"

    @Test func aCallersOwnExpectationIsTheCallers() async throws {
        // The caller asked for the expectation: the server's 417 is the caller's answer.
        let server = try ScriptedServer(scripts: [[.readHead, .send(Self.refusal), .close]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration { $0.expectContinueThreshold = 1_000 })
        defer { session.invalidateAndCancel() }
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/upload")!, method: .put)
        request.headerFields[.expect] = "100-continue"
        let (_, response) = try await session.upload(for: request, from: .data(Self.body))
        #expect(response.statusCode == 417)
        #expect(server.acceptedConnections == 1)
    }

    /// A stream's source is let go with the refused exchange: the delegate gives a new one
    /// (as after a 307), else the 417 stands.
    @Test(arguments: [false, true])
    func aStreamIsSentAgainOnlyWithANewOne(delegateGives: Bool) async throws {
        let server = try ScriptedServer(scripts: [
            [.readHead, .send(Self.refusal), .close],
            [.readRequest, .send("HTTP/1.1 201 Created\r\nContent-Length: 4\r\n\r\ndone"), .stallUntilClosed(limit: .seconds(30))],
        ])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration { $0.expectContinueThreshold = 1_000 })
        defer { session.invalidateAndCancel() }
        let length = Int64(Self.body.count)
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/upload")!, method: .put)
        request.body = .stream(SessionTest.stream([Array(Self.body)]), length: length)
        let delegate = NewBodyDelegate(body: delegateGives ? .stream(SessionTest.stream([Array(Self.body)]), length: length) : nil)
        let (data, response) = try await session.data(for: request, delegate: delegate)
        #expect(delegate.asked == 1)
        #expect(Self.expectation(in: server.receivedRequestHeads(connection: 0).first) == "100-continue")
        if delegateGives {
            #expect(response.statusCode == 201)
            #expect(data == Data("done".utf8))
            #expect(Self.expectation(in: server.receivedRequestHeads(connection: 1).first) == nil)
            #expect(Data(server.receivedBytes(connection: 1).suffix(Self.body.count)) == Self.body)
        } else {
            #expect(response.statusCode == 417)
            #expect(server.acceptedConnections == 1)
        }
    }

    @Test func aSecond417IsTheTasks() async throws {
        // Sent again without the expectation and refused again: no third try.
        let server = try ScriptedServer(scripts: [
            [.readHead, .send(Self.refusal), .close],
            [.readRequest, .send(Self.refusal), .close],
        ])
        defer { server.shutdown() }
        let (_, response) = try await Self.upload(to: server, threshold: 1_000)
        #expect(response.statusCode == 417)
        #expect(server.acceptedConnections == 2)
    }
}
