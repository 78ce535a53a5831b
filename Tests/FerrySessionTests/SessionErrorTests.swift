// Failures a caller sees before or instead of a response: a refused connection, an
// unsupported scheme, a header that would smuggle a line, and a server that answers nothing.
#if canImport(Glibc)
import Glibc
#endif
import Ferry
import Foundation
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session errors")
struct SessionErrorTests {
    @Test("a closed port fails with cannotConnectToHost, ECONNREFUSED and a reason naming host and port")
    func connectionRefused() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/get"))
        let error = try #require(await networkError { try await session.data(for: NetworkRequest(url: url)) })
        #expect(error.code == .cannotConnectToHost)
        #expect(error.failingURL == url)
        let system = try #require(error.underlyingError as? SystemError)
        #expect(system.errno == ECONNREFUSED)
        #expect(error.reason.contains("127.0.0.1"))
        #expect(error.reason.contains(String(port)))
        #expect(error.description.contains("-1004"))
    }

    @Test("a refused connection does not poison the pool: the host works once it listens")
    func refusedThenServed() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let refusing = try RefusingPort()
            defer { refusing.close() }
            let port = refusing.port
            let refused = URL(string: "http://127.0.0.1:\(port)/get")!
            for _ in 0..<3 {
                let error = await networkError { try await session.data(for: NetworkRequest(url: refused)) }
                #expect(error?.code == .cannotConnectToHost)
            }
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/get")))
            #expect(response.statusCode == 200)
        }
    }

    @Test("several requests to a closed port all fail, none waits forever")
    func concurrentRefused() async throws {
        let refusing = try RefusingPort()
        defer { refusing.close() }
        let port = refusing.port
        let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 2 })
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(port)/get")!
        // A hang guard, not a speed check: generous enough for a loaded CI machine.
        let codes = try await withTimeLimit(seconds: 60) {
            await withTaskGroup(of: NetworkError.Code?.self) { group in
                for _ in 0..<8 {
                    group.addTask { await networkError { try await session.data(for: NetworkRequest(url: url)) }?.code }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
        }
        #expect(codes == Array(repeating: .cannotConnectToHost, count: 8))
    }

    @Test("ftp:// fails with unsupportedURL", arguments: ["ftp://127.0.0.1/file", "https2://x/", "file:///etc/hosts"])
    func unsupportedScheme(text: String) async throws {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let url = try #require(URL(string: text))
        let error = await networkError { try await session.data(for: NetworkRequest(url: url)) }
        #expect(error?.code == .unsupportedURL)
        #expect(error?.failingURL == url)
    }

    @Test("a header value with CR or LF is refused by setValue with invalidRequest",
          arguments: ["a\r\nX-Injected: 1", "a\nb", "a\rb", "a\u{0}b"])
    func headerInjection(value: String) throws {
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1:1/")!)
        #expect(throws: NetworkError.self) { try request.setValue(value, forHTTPHeaderField: "X-Test") }
        do {
            try request.setValue(value, forHTTPHeaderField: "X-Test")
        } catch {
            #expect(error.code == .invalidRequest)
        }
        #expect(request.headerFields.isEmpty, "nothing was set")
        do {
            try request.addValue(value, forHTTPHeaderField: "X-Test")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    @Test("an invalid header name is refused with invalidRequest", arguments: ["Bad Name", "", "X:Y", "Ä"])
    func invalidHeaderName(name: String) throws {
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1:1/")!)
        do {
            try request.setValue("v", forHTTPHeaderField: name)
            Issue.record("\"\(name)\" was accepted")
        } catch {
            #expect(error.code == .invalidRequest)
        }
    }

    @Test("the server closing without a reply is zeroByteResource")
    func emptyReply() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .close]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        let error = await networkError { try await session.data(for: NetworkRequest(url: url)) }
        #expect(error?.code == .zeroByteResource)
    }

    @Test("a body cut short by the server is networkConnectionLost")
    func truncatedBody() async throws {
        let server = try ScriptedServer(scripts: [.reply("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        let error = await networkError { try await session.data(for: NetworkRequest(url: url)) }
        #expect(error?.code == .networkConnectionLost)
        #expect(error?.reason.contains("90") == true, "the reason says how much was missing: \(String(describing: error))")
    }

    @Test("a reply that is not HTTP is cannotParseResponse")
    func garbageReply() async throws {
        let server = try ScriptedServer(scripts: [.reply("SSH-2.0-OpenSSH_9.6\r\n\r\n")])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let url = URL(string: "http://127.0.0.1:\(server.port)/")!
        let error = await networkError { try await session.data(for: NetworkRequest(url: url)) }
        #expect(error?.code == .cannotParseResponse)
    }
}
