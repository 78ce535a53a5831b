// NetworkResponse's derived facts: suggestedFilename (RFC 6266, path components stripped,
// URLSession's fallbacks) and textEncodingName.
import Foundation
import HTTPTypes
import Testing

@testable import FerrySession

@Suite("Network response")
struct NetworkResponseTests {
    private func response(_ url: String, _ fields: HTTPFields = [:]) -> NetworkResponse {
        NetworkResponse(url: URL(string: url)!, status: .ok, headerFields: fields)
    }

    @Test("suggestedFilename", arguments: [
        ("http://h/files/report.pdf", nil, "report.pdf"),
        ("http://h/files/a%20b.txt", nil, "a b.txt"),
        ("http://h/", nil, "Unknown"),
        ("http://h", nil, "Unknown"),
        ("http://h/x", "attachment; filename=\"data.csv\"", "data.csv"),
        ("http://h/x", "attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("http://h/x", "attachment; filename=\"..\\\\..\\\\boot.ini\"", "boot.ini"),
        ("http://h/x", "attachment; filename=\"..\"", "x"),
        ("http://h/x", "attachment; filename=\"/\"", "x"),
        ("http://h/x", "attachment; filename*=UTF-8''%E2%82%AC.txt", "€.txt"),
        ("http://h/x", "attachment; filename*=UTF-8''..%2F..%2Fsecret", "secret"),
        ("http://h/x", "attachment; filename*=UTF-8''a%00b", "x"),
        ("http://h/x", "attachment; filename*=UTF-8''a%00b; filename=\"plain.txt\"", "plain.txt"),
        ("http://h/x", "attachment; filename=\"plain.txt\"; filename*=UTF-8''..", "plain.txt"),
        ("http://h/x", "attachment; filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC.txt", "€.txt"),
    ] as [(String, String?, String)])
    func suggestedFilename(url: String, disposition: String?, name: String) {
        var fields = HTTPFields()
        if let disposition { fields[.contentDisposition] = disposition }
        #expect(response(url, fields).suggestedFilename == name)
    }

    @Test("dispositionFilename: the field's own name, never the URL's", arguments: [
        (nil, nil),
        ("attachment", nil),
        ("attachment; filename=\"..\"", nil),
        ("attachment; filename=\"x\"", "x"),
        ("attachment; filename=\"../../etc/passwd\"", "passwd"),
        ("attachment; filename=\"plain.txt\"; filename*=UTF-8''%E2%82%AC.txt", "€.txt"),
    ] as [(String?, String?)])
    func dispositionFilename(disposition: String?, name: String?) {
        var fields = HTTPFields()
        if let disposition { fields[.contentDisposition] = disposition }
        #expect(response("http://h/x", fields).dispositionFilename == name)
    }

    @Test("expectedContentLength: identity is no coding", arguments: [
        (nil, 10 as Int64?), ("identity", 10), (" Identity ", 10), ("gzip", nil), ("gzip, identity", nil),
    ] as [(String?, Int64?)])
    func expectedLength(coding: String?, expected: Int64?) {
        var fields: HTTPFields = [.contentLength: "10"]
        if let coding { fields[.contentEncoding] = coding }
        #expect(response("http://h/x", fields).expectedContentLength == expected)
    }

    @Test("textEncodingName", arguments: [
        ("text/html; charset=utf-8", "utf-8"),
        ("text/html; charset=\"ISO-8859-1\"", "ISO-8859-1"),
        ("application/json", nil),
    ] as [(String, String?)])
    func textEncodingName(contentType: String, name: String?) {
        #expect(response("http://h/", [.contentType: contentType]).textEncodingName == name)
    }

    @Test func noContentTypeHasNoEncoding() {
        #expect(response("http://h/").textEncodingName == nil)
        #expect(response("http://h/").mimeType == nil)
    }
}
