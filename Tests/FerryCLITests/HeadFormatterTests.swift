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

    @Test func emptyReasonHasNoTrailingSpace() {
        let bare = NetworkResponse(url: URL(string: "http://h/")!, status: .init(code: 200, reasonPhrase: ""), headerFields: [:])
        #expect(HeadFormatter.responseLines(bare) == ["HTTP/1.1 200"])
    }

    @Test func connectionNotes() {
        #expect(HeadFormatter.connectionNote(host: "localhost", ConnectionInfo(remoteAddress: "127.0.0.1", remotePort: 80, isReused: false))
            == "* Connected to localhost (127.0.0.1) port 80\n")
        #expect(HeadFormatter.connectionNote(host: "localhost", ConnectionInfo(remoteAddress: "127.0.0.1", remotePort: 80, isReused: true))
            == "* Re-using existing connection\n")
    }
}
