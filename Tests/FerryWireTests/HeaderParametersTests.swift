// HeaderParameters: RFC 9110 §5.6.6 parameters, quoted strings, RFC 8187 extended values, and
// RFC 6266's filename preference, as a table.
import Testing

@testable import FerryWire

@Suite("Header parameters")
struct HeaderParametersTests {
    @Test("parsing", arguments: [
        ("text/html; charset=utf-8", "text/html", [("charset", "utf-8")]),
        ("text/html;charset=\"ISO-8859-1\"", "text/html", [("charset", "ISO-8859-1")]),
        ("  attachment  ;  filename = report.pdf ", "attachment", [("filename", "report.pdf")]),
        ("attachment; filename=\"a \\\"quoted\\\" name; with semicolon\"", "attachment",
         [("filename", "a \"quoted\" name; with semicolon")]),
        ("Attachment; FileName=x", "Attachment", [("filename", "x")]),
        ("inline; =novalue; bare; filename=ok", "inline", [("filename", "ok")]),
        ("inline; filename=\"unterminated", "inline", []),
        ("application/json", "application/json", []),
        ("", "", []),
    ] as [(String, String, [(String, String)])])
    func parsing(field: String, value: String, parameters: [(String, String)]) {
        let parsed = HeaderParameters(parsing: field)
        #expect(parsed.value == value)
        #expect(parsed.parameters.map(\.name) == parameters.map(\.0))
        #expect(parsed.parameters.map(\.value) == parameters.map(\.1))
    }

    @Test("filename* is preferred and decoded (RFC 6266 §5, RFC 8187)", arguments: [
        ("attachment; filename=\"EURO rates\"; filename*=utf-8''%e2%82%ac%20rates", "€ rates"),
        ("attachment; filename*=UTF-8''na%C3%AFve.txt; filename=naive.txt", "naïve.txt"),
        ("attachment; filename*=iso-8859-1'en'%A3%20rates", "£ rates"),
        ("attachment; filename*=utf-8''bad%zz; filename=fallback", "fallback"),
        ("attachment; filename*=koi8-r''%C1; filename=fallback", "fallback"),
        ("attachment; filename*=utf-8''%FF%FE; filename=fallback", "fallback"),  // not UTF-8
        ("attachment", nil),
    ] as [(String, String?)])
    func preferredFilename(field: String, name: String?) {
        #expect(HeaderParameters(parsing: field).preferredFilename == name)
    }

    @Test func firstOccurrenceWins() {
        #expect(HeaderParameters(parsing: "text/plain; charset=a; charset=b")["charset"] == "a")
    }
}
