import Ferry
import Foundation
import Testing

/// AFHTTPResponseSerializer's accept/reject matrix: status × content type × body, and errors
/// that say what to fix and carry the response and its body.
@Suite("HTTP response serializer")
struct HTTPResponseSerializerTests {
    static func response(_ status: Int, _ contentType: String?, reason: String = "") -> NetworkResponse {
        var fields = HTTPFields()
        if let contentType { fields[.contentType] = contentType }
        return NetworkResponse(url: URL(string: "https://api.example.com/users/1")!,
                               status: HTTPResponse.Status(code: status, reasonPhrase: reason), headerFields: fields)
    }

    static func json() -> HTTPResponseSerializer {
        var serializer = HTTPResponseSerializer()
        serializer.acceptableContentTypes = ["application/json", "text/json"]
        return serializer
    }

    @Test("status × content type × body", arguments: [
        (200, "application/json; charset=utf-8", "{}", nil),
        (204, nil, "", nil),
        (200, "text/html", "", nil),
        (200, "text/html", "<html>", NetworkError.Code.cannotDecodeContentData),
        (200, nil, "x", .cannotDecodeContentData),
        (299, "TEXT/JSON", "[]", nil),
        (404, "application/json", "{}", .badServerResponse),
        (500, "text/html", "<html>", .badServerResponse),
        (301, nil, "", .badServerResponse),
    ] as [(Int, String?, String, NetworkError.Code?)])
    func matrix(status: Int, contentType: String?, body: String, refused: NetworkError.Code?) {
        let data = body.isEmpty ? nil : Data(body.utf8)
        do {
            let value = try Self.json().serialize(Self.response(status, contentType), data: data)
            #expect(refused == nil, "accepted what should be refused")
            #expect(value == (data ?? Data()))
        } catch {
            #expect(error.code == refused)
            #expect(error.response?.statusCode == status)
            #expect(error.responseData == data)
        }
    }

    @Test func errorsSayWhatToFix() {
        do {
            _ = try Self.json().serialize(Self.response(200, "text/html"), data: Data("<html><body>Maintenance</body></html>".utf8))
            Issue.record("accepted text/html")
        } catch {
            #expect(error.reason == "Request failed: unacceptable content-type: text/html (200; acceptable: application/json, text/json);"
                + " body begins: <html><body>Maintenance</body></html>")
        }
        do {
            _ = try HTTPResponseSerializer().serialize(Self.response(404, "application/json"), data: nil)
            Issue.record("accepted a 404")
        } catch {
            #expect(error.reason == "Request failed: not found (404)")
        }
        do {
            _ = try HTTPResponseSerializer().serialize(Self.response(418, nil, reason: "Short And Stout"), data: Data(String(repeating: "x", count: 300).utf8))
            Issue.record("accepted a 418")
        } catch {
            #expect(error.reason == "Request failed: short and stout (418); body begins: \(String(repeating: "x", count: 100))…")
            #expect(error.responseData?.count == 300)
        }
    }

    @Test func nilSetsAcceptAnything() throws {
        var serializer = HTTPResponseSerializer()
        serializer.acceptableStatusCodes = nil
        #expect(try serializer.serialize(Self.response(503, "text/plain"), data: Data("busy".utf8)) == Data("busy".utf8))
    }
}
