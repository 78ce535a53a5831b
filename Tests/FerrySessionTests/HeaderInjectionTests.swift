// Header injection through the session's public entry points (issue 20): a caller's string
// either never reaches the wire (a typed NetworkError before any connection opens) or reaches
// it in a form that cannot split the request (percent-encoded, quoted, or turned into a space by
// swift-http-types' own rules). After each hostile request a clean one goes on the same session,
// and the server must have received nothing but well-formed requests (ReceivedRequests reads
// them strictly), the clean one last.
//
// Proved elsewhere and not repeated here: the encoder's own refusals of a bad method, target,
// Host, name or value (RequestEncoderTests); NetworkRequest.setValue/addValue refusing CR, LF,
// NUL and non-token names (SessionErrorTests); Cookie's validation and the Set-Cookie parser's
// control-character rule (CookieTests, CookieParserTests); Digest's quoting and username*
// (DigestAuthenticationTests); a user name with a colon (SessionAuthenticationTests); multipart
// escaping and the serializer's setValue (MultipartFormDataTests, HTTPRequestSerializerTests);
// the ferry CLI's flags (RequestBuilderTests, FerryToolTests, CommandLineInjectionTests).
import Foundation
import FerryWire
import HTTPTypes
import Testing
import TestSupport

@testable import FerrySession

@Suite("Header injection through the session's entry points")
struct HeaderInjectionTests {
    private static let ok = "HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok"
    /// Hostile bytes a swift-http-types lenient value keeps (it turns only CR, LF and NUL into
    /// spaces); the encoder must refuse each.
    private static let controlBytes = ["a\u{1}b", "a\u{7F}", "\u{1B}[31m", "a\u{0B}b", "a\u{0C}b"]

    /// What one hostile attempt, then one clean GET /clean on the same session, produced.
    private struct Outcome {
        var error: NetworkError?
        var requests: [ReceivedRequest]
        var connections: Int
        /// The requests before the clean one.
        var hostile: [ReceivedRequest] { Array(requests.dropLast()) }
    }

    /// Runs `attempt` (given the server), then GET /clean, against a server that answers
    /// `replies` in order, then 200s, one connection each (`Connection: close`: no test here
    /// depends on how long a kept-alive connection waits on a loaded machine).
    private func run(
        replies: [String] = [],
        configure: (inout SessionConfiguration) -> Void = { _ in },
        _ attempt: (Session, ScriptedServer) async throws -> Void
    ) async throws -> Outcome {
        let scripts = (replies + [Self.ok]).map { reply in
            ConnectionScript([.readRequest, .send(reply.replacing("\r\n", with: "\r\nConnection: close\r\n", maxReplacements: 1))])
        }
        let server = try ScriptedServer(scripts: scripts, extraConnections: .repeatLastScript)
        let session = Session(configuration: SessionTest.configuration(configure))
        var error: NetworkError?
        do {
            try await attempt(session, server)
        } catch let caught as NetworkError {
            error = caught
        }
        let (data, response) = try await session.data(for: NetworkRequest(url: server.url("/clean")))
        #expect(response.statusCode == 200 && data == Data("ok".utf8))
        session.invalidateAndCancel()
        await server.shutdownGracefully()
        var received: [UInt8] = []
        for connection in 0..<server.acceptedConnections { received += server.receivedBytes(connection: connection) }
        let requests = try ReceivedRequests.parse(received)
        #expect(requests.last?.target == "/clean", "the clean request came last, whole")
        return Outcome(error: error, requests: requests, connections: server.acceptedConnections)
    }

    /// The request sent for `url` with `edit` applied.
    private func send(_ session: Session, _ url: URL, _ edit: (inout NetworkRequest) throws -> Void = { _ in }) async throws {
        var request = NetworkRequest(url: url)
        try edit(&request)
        _ = try await session.data(for: request)
    }

    private func expectRefusedBeforeSending(_ outcome: Outcome, _ code: NetworkError.Code, _ kind: RequestEncodingError.Kind? = nil,
                                            sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(outcome.error?.code == code, "\(String(describing: outcome.error))", sourceLocation: sourceLocation)
        if let kind {
            #expect((outcome.error?.underlyingError as? RequestEncodingError)?.kind == kind, sourceLocation: sourceLocation)
            #expect(outcome.error?.reason.lowercased().contains("refused to send request") == true, sourceLocation: sourceLocation)
        }
        #expect(outcome.hostile.isEmpty, "nothing but the clean request arrived", sourceLocation: sourceLocation)
        #expect(outcome.connections == 1, "the hostile request opened no connection, the clean one did", sourceLocation: sourceLocation)
    }

    // MARK: - Header fields

    @Test("a lenient field value with a control byte is refused by the encoder before a connection opens", arguments: controlBytes)
    func lenientValue(value: String) async throws {
        let outcome = try await run { session, server in
            try await send(session, server.url("/x")) { $0.headerFields.append(HTTPField(name: HTTPField.Name("X-Test")!, lenientValue: Array(value.utf8))) }
        }
        expectRefusedBeforeSending(outcome, .invalidRequest, .invalidFieldValue)
    }

    @Test("the same bytes in a Host override and in the session's additional headers are refused too", arguments: [false, true])
    func lenientValueElsewhere(inConfiguration: Bool) async throws {
        let field = HTTPField(name: HTTPField.Name(inConfiguration ? "X-Session" : "Host")!, lenientValue: Array("h\u{1}".utf8))
        let outcome = try await run { session, server in
            guard inConfiguration else { return try await send(session, server.url("/x")) { $0.headerFields.append(field) } }
            // A session of its own: the clean request after this one must not carry the field.
            let configured = Session(configuration: SessionTest.configuration { $0.httpAdditionalHeaders.append(field) })
            defer { configured.invalidateAndCancel() }
            try await send(configured, server.url("/x"))
        }
        expectRefusedBeforeSending(outcome, .invalidRequest, .invalidFieldValue)
    }

    @Test("CR, LF and NUL in a typed HTTPField value become spaces (swift-http-types): one line on the wire",
          arguments: ["a\r\nX-Injected: 1", "a\rX-Injected: 1", "a\nX-Injected: 1", "a\u{0}X-Injected: 1"])
    func typedValueIsLegalized(value: String) async throws {
        let outcome = try await run { session, server in
            try await send(session, server.url("/x")) { $0.headerFields[HTTPField.Name("X-Test")!] = value }
        }
        #expect(outcome.error == nil)
        let sent = try #require(outcome.hostile.first)
        #expect(outcome.hostile.count == 1)
        #expect(sent.values(of: "X-Test") == [value.replacing("\r\n", with: "  ").replacing("\r", with: " ").replacing("\n", with: " ").replacing("\u{0}", with: " ")])
        #expect(!sent.fieldNames.contains("x-injected"))
    }

    @Test("framing fields a caller sets never reach the wire: the body is framed once, by its real length")
    func callerFramingFieldsAreReplaced() async throws {
        let outcome = try await run { session, server in
            var request = NetworkRequest(url: server.url("/upload"), method: .post, body: .bytes(Array("0123456789".utf8)))
            try request.setValue("3", forHTTPHeaderField: "Content-Length")
            try request.addValue("chunked", forHTTPHeaderField: "Transfer-Encoding")
            _ = try await session.data(for: request)
        }
        #expect(outcome.error == nil)
        let sent = try #require(outcome.hostile.first)
        #expect(sent.values(of: "Content-Length") == ["10"] && sent.values(of: "Transfer-Encoding").isEmpty)
        #expect(sent.body == Array("0123456789".utf8))
    }

    // HTTPFields itself traps on a pseudo-header name (":path", made with
    // HTTPField.Name(parsed:)), and refuses one when decoded: no name with a colon reaches Ferry.
    @Test("a method or a field name is a token or cannot be made: no entry point takes one with SP, CR, LF, NUL or a colon",
          arguments: ["GET /x HTTP/1.1\r\nX-Injected: 1\r\n\r\nGET", "GET /x", "GET\r\n", "GE\u{0}T", "", "GET\t", "X-A:", "X:Y"])
    func methodsAndNamesAreTokens(text: String) {
        #expect(HTTPRequest.Method(text) == nil)
        #expect(HTTPField.Name(text) == nil)
    }

    @Test("a custom method that is a token goes out as written")
    func customMethod() async throws {
        let outcome = try await run { session, server in
            try await send(session, server.url("/x")) { $0.method = HTTPRequest.Method("PURGE")! }
        }
        #expect(outcome.hostile.map(\.method) == ["PURGE"])
    }

    // MARK: - URL

    @Test("CR, LF, SP and NUL in a URL's path or query stay percent-encoded on the wire; an encoded CRLF is never decoded",
          arguments: [
              ("/a%0d%0aX-Injected:%201", "/a%0d%0aX-Injected:%201"),
              ("/a\r\nX-Injected: 1", "/a%0D%0AX-Injected:%201"),
              ("/?q=a\r\nX-Injected: 1", "/?q=a%0D%0AX-Injected:%201"),
              ("/a<NUL>b", "/a%00b"),
              ("/a%00b", "/a%00b"),
              ("/a%20HTTP/1.1%0d%0a", "/a%20HTTP/1.1%0d%0a"),
          ])
    func urlStaysEncoded(tail: String, target: String) async throws {
        let outcome = try await run { session, server in
            // NUL is spelled out in the argument so that test reports are not cut short at it.
            try await send(session, try #require(URL(string: server.baseURLString + tail.replacing("<NUL>", with: "\u{0}"))))
        }
        #expect(outcome.error == nil)
        #expect(outcome.hostile.map(\.target) == [target])
    }

    @Test("a host that percent-decodes to CR, LF or NUL is refused as badURL before any lookup")
    func hostDecodingToControls() async throws {
        let outcome = try await run { session, server in
            try await send(session, try #require(URL(string: "http://127.0.0.1%0d%0aX-Injected%3a%201:\(server.port)/")))
        }
        expectRefusedBeforeSending(outcome, .badURL)
        #expect(outcome.error?.reason.contains("is not a host name or an IP address") == true)
    }

    // MARK: - Credentials

    @Test("a user or password with CR, LF or NUL is refused by setBasicAuthorization",
          arguments: [("us\r\ner", "p"), ("u", "p\r\nX-Injected: 1"), ("u\u{0}", "p"), ("u", "p\n")])
    func basicAuthorizationSetter(user: String, password: String) {
        var request = NetworkRequest(url: URL(string: "http://127.0.0.1:1/")!)
        let error = #expect(throws: NetworkError.self) { try request.setBasicAuthorization(user: user, password: password) }
        #expect(error?.code == .invalidRequest)
        #expect(error?.reason.contains("Cannot send these credentials") == true)
        #expect(request.headerFields[.authorization] == nil)
    }

    @Test("URL user information with an encoded CRLF answering a Basic challenge: refused, the answer never sent")
    func userInformationAnsweringBasic() async throws {
        let challenge = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Basic realm=\"r\"\r\nContent-Length: 0\r\n\r\n"
        let outcome = try await run(replies: [challenge]) { session, server in
            try await send(session, try #require(URL(string: "http://us%0D%0AX-Injected:%201:pw@127.0.0.1:\(server.port)/private")))
        }
        #expect(outcome.error?.code == .userAuthenticationRequired)
        #expect(outcome.error?.reason.contains("Basic user name holds a character that cannot be sent") == true,
                "\(String(describing: outcome.error))")
        #expect(outcome.hostile.count == 1, "the challenged request only")
        #expect(outcome.hostile.allSatisfy { $0.values(of: "Authorization").isEmpty && !$0.target.contains("@") })
    }

    @Test("a credential with CRLF answering a Digest challenge goes as username*, percent-encoded, on one line")
    func credentialAnsweringDigest() async throws {
        let challenge = "HTTP/1.1 401 Unauthorized\r\nWWW-Authenticate: Digest realm=\"r\", nonce=\"n\", qop=\"auth\"\r\nContent-Length: 0\r\n\r\n"
        let outcome = try await run(replies: [challenge]) { session, server in
            try await send(session, server.url("/private")) {
                $0.credential = Credential(user: "us\r\nX-Injected: 1", password: "p\r\n", persistence: .none)
            }
        }
        #expect(outcome.error == nil)
        #expect(outcome.hostile.count == 2)
        let answer = try #require(outcome.hostile.last?.values(of: "Authorization").first)
        #expect(answer.contains("username*=UTF-8''us%0D%0AX-Injected%3A%201"), "\(answer)")
        #expect(!outcome.hostile.contains { $0.fieldNames.contains("x-injected") })
    }

    @Test("proxy credentials with CR or LF (the proxy URL's or the configuration's) are refused before connecting to the proxy",
          arguments: [false, true])
    func proxyCredential(inURL: Bool) async throws {
        let outcome = try await run { _, proxy in
            let userInfo = inURL ? "us%0D%0Aer:pw@" : ""
            var configuration = ProxyConfiguration.http(try #require(URL(string: "http://\(userInfo)127.0.0.1:\(proxy.port)")), bypass: [])
            if !inURL { configuration.credential = Credential(user: "u", password: "p\r\nX-Injected: 1", persistence: .none) }
            let session = Session(configuration: SessionTest.configuration { $0.proxy = configuration })
            defer { session.invalidateAndCancel() }
            _ = try await session.data(for: NetworkRequest(url: try #require(URL(string: "http://origin.invalid/"))))
        }
        expectRefusedBeforeSending(outcome, .invalidRequest)
        #expect(outcome.error?.reason.contains("Cannot send these proxy credentials: Basic") == true, "\(String(describing: outcome.error))")
    }

    // MARK: - Cookies

    @Test("cookies with CR, LF or NUL never enter the jar, so the Cookie field carries only the clean one")
    func cookiesWithControlBytes() async throws {
        let storage = CookieStorage()
        let outcome = try await run(configure: { $0.httpCookieStorage = storage }) { session, server in
            let url = server.url("/")
            storage.storeCookies(fromSetCookieFields: ["a=b\r\nX-Injected: 1", "c=d\u{0}e", "e=f\rg", "ok=1"], for: url, mainDocumentURL: nil)
            for (name, value) in [("a\r\nX-Injected", "1"), ("n", "v\r\nX-Injected: 1"), ("n", "v\u{0}")] {
                #expect(throws: Cookie.ValidationError.self) { try Cookie(name: name, value: value, domain: "127.0.0.1") }
            }
            try await send(session, server.url("/x"))
        }
        #expect(outcome.error == nil)
        #expect(outcome.hostile.first?.values(of: "Cookie") == ["ok=1"])
        #expect(outcome.requests.last?.values(of: "Cookie") == ["ok=1"])
    }

    @Test("a server's cookies with HTAB, quotes, a semicolon inside quotes and non-ASCII go back in one Cookie line")
    func serverCookiesWithOddBytes() async throws {
        let setCookies = "HTTP/1.1 200 OK\r\nSet-Cookie: tab=a\tb\r\nSet-Cookie: quoted=\"x;y\"\r\nSet-Cookie: high=caf\u{E9}\r\n"
            + "Set-Cookie: =nameless\r\nContent-Length: 2\r\n\r\nok"
        let outcome = try await run(replies: [setCookies]) { session, server in try await send(session, server.url("/set")) }
        #expect(outcome.error == nil)
        #expect(outcome.requests.map(\.target) == ["/set", "/clean"])
        // `quoted="x` is all the parser keeps of the third (the attribute after `;` is `y"`).
        #expect(outcome.requests.last?.values(of: "Cookie") == ["tab=a\tb; quoted=\"x; high=caf\u{E9}; nameless"])
    }
}
