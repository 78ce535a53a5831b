import Ferry
import Foundation
import Testing
@testable import ferry

/// Heads are printed as curl prints them, CRLF included.
struct HeadFormatterTests {
    private let response = NetworkResponse(
        url: URL(string: "http://h/")!, status: .init(code: 404, reasonPhrase: "Not Found"),
        headerFields: [.contentType: "text/plain", .contentLength: "3"], httpVersion: "HTTP/1.0")

    @Test func includedHead() {
        #expect(HeadFormatter.included(response) == "HTTP/1.0 404 Not Found\r\nContent-Type: text/plain\r\nContent-Length: 3\r\n\r\n")
    }

    @Test func verboseHeads() {
        let head = HTTPRequest(method: .post, scheme: "http", authority: "h:8080", path: "/a?b", headerFields: [.accept: "*/*"])
        #expect(HeadFormatter.verboseRequest(head) == "> POST /a?b HTTP/1.1\r\n> Host: h:8080\r\n> Accept: */*\r\n> \r\n")
        #expect(HeadFormatter.verboseResponse(response).hasPrefix("< HTTP/1.0 404 Not Found\r\n< Content-Type: text/plain\r\n"))
        #expect(HeadFormatter.verboseResponse(response).hasSuffix("< \r\n"))
    }

    @Test("-v hides the credentials of Authorization and Proxy-Authorization, keeping the scheme, unless asked")
    func verboseRedactsCredentials() {
        var head = HTTPRequest(method: .get, scheme: "http", authority: "h", path: "/")
        head.headerFields[.authorization] = "Basic dXNlcjpzM2NyZXQ="
        head.headerFields[.proxyAuthorization] = "token-without-scheme"
        head.headerFields[.cookie] = "a=b"
        let hidden = HeadFormatter.verboseRequest(head)
        #expect(hidden.contains("> Authorization: Basic [redacted]\r\n"))
        #expect(hidden.contains("> Proxy-Authorization: [redacted]\r\n"))
        #expect(!hidden.contains("dXNlcjpzM2NyZXQ=") && !hidden.contains("token-without-scheme"))
        #expect(hidden.contains("> Cookie: a=b\r\n"))
        let shown = HeadFormatter.verboseRequest(head, showingCredentials: true)
        #expect(shown.contains("> Authorization: Basic dXNlcjpzM2NyZXQ=\r\n"))
        #expect(shown.contains("> Proxy-Authorization: token-without-scheme\r\n"))
    }

    @Test func emptyReasonHasNoTrailingSpace() {
        let bare = NetworkResponse(url: URL(string: "http://h/")!, status: .init(code: 200, reasonPhrase: ""), headerFields: [:])
        #expect(HeadFormatter.responseLines(bare) == ["HTTP/1.1 200"])
    }

    @Test func connectionNotes() {
        #expect(HeadFormatter.connectionNote(host: "localhost", ConnectionInfo(remoteAddress: "127.0.0.1", remotePort: 80, isReused: false))
            == "* Connected to localhost (127.0.0.1) port 80\n")
        #expect(HeadFormatter.connectionNote(host: "localhost", ConnectionInfo(remoteAddress: "127.0.0.1", remotePort: 80, isReused: true))
            == "* Re-using existing connection with host localhost\n")
    }

    @Test func tlsConnectionNotesNameVersionCipherALPNAndResumption() {
        let full = ConnectionInfo(
            remoteAddress: "127.0.0.1", remotePort: 443, isReused: false, tlsProtocolVersion: "TLSv1.3",
            tlsCipherSuite: "TLS_AES_128_GCM_SHA256", tlsApplicationProtocol: "http/1.1")
        #expect(HeadFormatter.connectionNote(host: "localhost", full) == """
            * Connected to localhost (127.0.0.1) port 443
            * SSL connection using TLSv1.3 / TLS_AES_128_GCM_SHA256
            * ALPN: server accepted http/1.1

            """)
        var resumed = full
        resumed.isTLSSessionResumed = true
        resumed.tlsApplicationProtocol = nil
        let lines = HeadFormatter.connectionNote(host: "localhost", resumed).split(separator: "\n")
        #expect(lines.count == 4)
        #expect(lines[2] == "* ALPN: server did not agree on a protocol. Uses default.")
        #expect(lines[3].hasPrefix("* SSL session resumed"))
        var reused = full
        reused.isReused = true
        #expect(HeadFormatter.connectionNote(host: "localhost", reused) == "* Re-using existing connection with host localhost\n")
    }
}
