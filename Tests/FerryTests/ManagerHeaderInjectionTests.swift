// Header injection through HTTPSessionManager's entry points (issue 20): the `headers:`
// dictionary, the URL string, parameters, a caller's query-string writer, the serializer's
// default fields and multipart names. A hostile string either fails with a typed NetworkError
// before any connection opens, or reaches the server escaped inside one well-formed request;
// a clean request follows on the same manager and must arrive whole, last.
//
// Proved elsewhere and not repeated: the serializer's setValue and Basic setter refusing CR, LF
// and bad names (HTTPRequestSerializerTests); multipart escaping byte for byte, a MIME type or
// a part header with CRLF (MultipartFormDataTests); the session's own entry points
// (HeaderInjectionTests in FerrySessionTests).
import Ferry
import Foundation
import Testing
import TestSupport

@Suite("Header injection through the manager, its serializers and multipart forms")
struct ManagerHeaderInjectionTests {
    private static let ok = "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok"

    /// The hostile attempt's error (nil when it was sent), the well-formed requests the server
    /// received (the clean one last) and how many connections it accepted.
    private struct Outcome {
        var error: NetworkError?
        var requests: [ReceivedRequest]
        var connections: Int
        var hostile: [ReceivedRequest] { Array(requests.dropLast()) }
    }

    private func run(configure: (HTTPSessionManager) -> Void = { _ in },
                     _ attempt: (HTTPSessionManager) async throws(NetworkError) -> Void) async throws -> Outcome {
        // One connection per request (`Connection: close`): nothing here depends on how long a
        // kept-alive connection waits on a loaded machine.
        let server = try ScriptedServer(scripts: [[.readRequest, .send(Self.ok)]], extraConnections: .repeatLastScript)
        let manager = HTTPSessionManager(baseURL: server.url("/v1/"), sessionConfiguration: ManagerTest.configuration())
        manager.responseSerializer = HTTPResponseSerializer()
        configure(manager)
        var failure: NetworkError?
        do throws(NetworkError) {
            try await attempt(manager)
        } catch {
            failure = error
        }
        manager.requestSerializer = HTTPRequestSerializer()
        let (_, response) = try await manager.get("clean")
        #expect(response.statusCode == 200)
        manager.invalidateSessionCancelingTasks(true, resetSession: false)
        await server.shutdownGracefully()
        var received: [UInt8] = []
        for connection in 0..<server.acceptedConnections { received += server.receivedBytes(connection: connection) }
        let requests = try ReceivedRequests.parse(received)
        #expect(requests.last?.target == "/v1/clean", "the clean request came last, whole")
        return Outcome(error: failure, requests: requests, connections: server.acceptedConnections)
    }

    private func expectRefusedBeforeSending(_ outcome: Outcome, _ code: NetworkError.Code, reason: String,
                                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.error?.code == code, "\(String(describing: outcome.error))", sourceLocation: sourceLocation)
        #expect(outcome.error?.reason.contains(reason) == true, "\(String(describing: outcome.error))", sourceLocation: sourceLocation)
        #expect(outcome.hostile.isEmpty, "nothing but the clean request arrived", sourceLocation: sourceLocation)
        #expect(outcome.connections == 1, "the hostile request opened no connection", sourceLocation: sourceLocation)
    }

    @Test("a headers: entry with CR, LF or NUL, or a name that is not a token, is refused before sending", arguments: [
        ("X-Test", "a\r\nX-Injected: 1"), ("X-Test", "a\rb"), ("X-Test", "a\nb"), ("X-Test", "a\u{0}b"),
        ("X-Test: 1\r\nX-Injected", "1"), ("Bad Name", "v"), ("X:Y", "v"),
    ])
    func headersArgument(name: String, value: String) async throws {
        let outcome = try await run { manager throws(NetworkError) in _ = try await manager.get("x", headers: [name: value]) }
        #expect(outcome.error?.code == .invalidRequest)
        #expect(outcome.hostile.isEmpty && outcome.connections == 1)
    }

    @Test("a serializer default field holding a control byte is refused by the encoder before sending")
    func serializerDefaultField() async throws {
        let outcome = try await run(configure: { manager in
            var serializer = HTTPRequestSerializer()
            serializer.httpRequestHeaders.append(HTTPField(name: HTTPField.Name("X-Default")!, lenientValue: Array("a\u{1}b".utf8)))
            manager.requestSerializer = serializer
        }) { manager throws(NetworkError) in _ = try await manager.get("x") }
        expectRefusedBeforeSending(outcome, .invalidRequest, reason: "header value with CR, LF, NUL or another control byte")
    }

    @Test("a URL string with CR and LF, raw or encoded, goes out percent-encoded", arguments: [
        // Not in the first segment: a colon there makes it a scheme, which RFC 3986 §4.2 refuses.
        ("x/a\r\nX-Injected: 1", "/v1/x/a%0D%0AX-Injected:%201"),
        ("x/a%0d%0aX-Injected:%201", "/v1/x/a%0d%0aX-Injected:%201"),
    ])
    func urlString(path: String, target: String) async throws {
        let outcome = try await run { manager throws(NetworkError) in _ = try await manager.get(path) }
        #expect(outcome.error == nil)
        #expect(outcome.hostile.map(\.target) == [target])
    }

    @Test("parameters with CR and LF are escaped into the query")
    func parameters() async throws {
        let outcome = try await run { manager throws(NetworkError) in
            _ = try await manager.get("x", parameters: ["q\r\n": "v\r\nX-Injected: 1"])
        }
        #expect(outcome.error == nil)
        #expect(outcome.hostile.map(\.target) == ["/v1/x?q%0D%0A=v%0D%0AX-Injected%3A%201"])
    }

    // Before this was checked, URLComponents trapped on such a query and the process died.
    @Test("a query-string writer's query with a byte a URL cannot hold fails with badURL, not a trap",
          arguments: ["a b", "a=1\r\nX-Injected: 1", "a#b", "caf\u{E9}", "100%", "%zz", "a=\u{0}"])
    func queryStringWriter(query: String) async throws {
        let outcome = try await run(configure: { manager in
            var serializer = HTTPRequestSerializer()
            serializer.queryStringWriter = { _, _ in query }
            manager.requestSerializer = serializer
        }) { manager throws(NetworkError) in _ = try await manager.get("x", parameters: ["a": 1]) }
        expectRefusedBeforeSending(outcome, .badURL, reason: "The query string writer returned a query a URL cannot hold")
    }

    @Test("a query-string writer's well-formed query goes out as written")
    func queryStringWriterValid() async throws {
        let written = "a=%0D%0A&b=:@/?!$'()*+,;=-._~"
        let outcome = try await run(configure: { manager in
            var serializer = HTTPRequestSerializer()
            serializer.queryStringWriter = { _, _ in written }
            manager.requestSerializer = serializer
        }) { manager throws(NetworkError) in _ = try await manager.get("x", parameters: ["a": 1]) }
        #expect(outcome.error == nil)
        #expect(outcome.hostile.map(\.target) == ["/v1/x?" + written])
    }

    @Test("multipart parameter names, part names and file names with CR, LF and quotes are escaped inside one request")
    func multipartNames() async throws {
        let hostile = "n\"\r\nX-Injected: 1\r\n\r\n--"
        let outcome = try await run { manager throws(NetworkError) in
            _ = try await manager.post("upload", parameters: [hostile: "v"], constructingBodyWith: { form throws(NetworkError) in
                form.appendPart(formData: Array("d".utf8), name: hostile)
                try form.appendPart(fileData: Array("f".utf8), name: hostile, fileName: hostile + ".txt", mimeType: "text/plain")
            })
        }
        #expect(outcome.error == nil)
        let upload = try #require(outcome.hostile.first)
        #expect(outcome.hostile.count == 1)
        let body = String(decoding: upload.body, as: UTF8.self)
        let escaped = "n%22%0D%0AX-Injected: 1%0D%0A%0D%0A--"
        #expect(body.components(separatedBy: "name=\"\(escaped)\"").count == 4, "three parts, each named escaped: \(body)")
        #expect(body.contains("filename=\"\(escaped).txt\""))
        #expect(!body.contains("\r\nX-Injected"), "no part header line was added")
    }
}
