import Foundation
import Testing

@testable import Ferry

/// AFJSONResponseSerializer's accept/reject matrix (status × content type × body), nil for an
/// empty body, null removal, and parse errors that say where the document went wrong.
@Suite("JSON response serializer")
struct JSONResponseSerializerTests {
    static func response(_ status: Int, _ contentType: String?) -> NetworkResponse {
        HTTPResponseSerializerTests.response(status, contentType)
    }

    static func data(_ body: String?) -> Data? { body.map { Data($0.utf8) } }

    @Test("status × content type × body", arguments: [
        (200, "application/json; charset=utf-8", #"{"a":1}"#, .accepted(["a": 1])),
        (200, "text/json", "[1,2]", .accepted([1, 2])),
        (201, "text/javascript", "\"fragment\"", .accepted("fragment")),
        (200, "application/json", " \n 3 ", .accepted(3)),
        (204, nil, nil, .accepted(nil)),
        (200, "application/json", "", .accepted(nil)),
        (200, "application/json", " ", .accepted(nil)),
        (200, "text/html", "", .accepted(nil)),
        (200, "application/json", "  ", .refused(.cannotParseResponse)),
        (200, "application/json", "{\"a\":", .refused(.cannotParseResponse)),
        (200, "application/json", "<html>", .refused(.cannotParseResponse)),
        (200, "text/html", "<html>", .refused(.cannotDecodeContentData)),
        (200, "text/plain", "{}", .refused(.cannotDecodeContentData)),
        (200, nil, "{}", .refused(.cannotDecodeContentData)),
        (200, "application/vnd.api+json", "{}", .refused(.cannotDecodeContentData)),
        (404, "application/json", #"{"error":"no such user"}"#, .refused(.badServerResponse)),
        (500, "text/html", "<html>", .refused(.badServerResponse)),
        (500, "application/json", "not json", .refused(.badServerResponse)),
        (304, nil, nil, .refused(.badServerResponse)),
    ] as [(Int, String?, String?, Outcome)])
    func matrix(status: Int, contentType: String?, body: String?, outcome: Outcome) {
        let data = Self.data(body)
        do {
            let value = try JSONResponseSerializer().serialize(Self.response(status, contentType), data: data)
            #expect(outcome == .accepted(value))
        } catch {
            #expect(outcome == .refused(error.code))
            #expect(error.response?.statusCode == status)
            #expect(error.responseData == data)
        }
    }

    enum Outcome: Equatable, Sendable {
        case accepted(JSONValue?)
        case refused(NetworkError.Code)
    }

    @Test func statusErrorsCarryTheBodyToRead() throws {
        do {
            _ = try JSONResponseSerializer().serialize(Self.response(422, "application/json"),
                                                       data: Data(#"{"error":"name is taken"}"#.utf8))
            Issue.record("accepted a 422")
        } catch {
            #expect(error.reason.hasPrefix("Request failed: unprocessable content (422)"))
            let body = try #require(error.responseData)
            #expect(try JSONValue(parsing: body)["error"] == "name is taken")
        }
    }

    @Test func parseErrorsNameTheByteAndShowTheBody() throws {
        let body = Data(#"{"id": 1, "name": 'Ada'}"#.utf8)
        do {
            _ = try JSONResponseSerializer().serialize(Self.response(200, "application/json"), data: body)
            Issue.record("read single quotes")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.reason == #"The response is not valid JSON: unexpected character ''' at byte 18 (200, application/json); body begins: {"id": 1, "name": 'Ada'}"#)
            #expect(error.underlyingError as? JSONParseError == JSONParseError(.unexpectedCharacter(UInt8(ascii: "'")), offset: 18))
            #expect(error.failingURL?.host == "api.example.com")
            #expect(error.responseData == body)
        }
    }

    @Test func fragmentsFollowTheReadingOptions() throws {
        let response = Self.response(200, "application/json")
        #expect(try JSONResponseSerializer().serialize(response, data: Data("true".utf8)) == true)
        do {
            _ = try JSONResponseSerializer(readingOptions: []).serialize(response, data: Data("true".utf8))
            Issue.record("read a fragment")
        } catch {
            #expect(error.code == .cannotParseResponse)
            #expect(error.underlyingError as? JSONParseError == JSONParseError(.fragmentNotAllowed, offset: 0))
        }
        #expect(try JSONResponseSerializer(readingOptions: []).serialize(response, data: Data("[true]".utf8)) == [true])
    }

    @Test func nullValuesAreRemovedOnRequest() throws {
        var serializer = JSONResponseSerializer()
        let body = Data(#"{"a": null, "b": [null, {"c": null, "d": 1}], "e": {"f": null}}"#.utf8)
        let response = Self.response(200, "application/json")
        #expect(try serializer.serialize(response, data: body)?["a"] == .null, "kept by default")
        serializer.removesKeysWithNullValues = true
        #expect(try serializer.serialize(response, data: body) == ["b": [["d": 1]], "e": [:]])
    }

    @Test func validationIsConfigurable() throws {
        var serializer = JSONResponseSerializer()
        #expect(serializer.acceptableContentTypes == ["application/json", "text/json", "text/javascript"])
        #expect(serializer.acceptableStatusCodes == Set(200...299))
        serializer.acceptableContentTypes?.insert("application/vnd.api+json")
        serializer.acceptableStatusCodes = nil
        #expect(try serializer.serialize(Self.response(404, "application/vnd.api+json"), data: Data("{}".utf8)) == [:])
        serializer.acceptableContentTypes = nil
        #expect(try serializer.serialize(Self.response(200, "text/plain"), data: Data("[]".utf8)) == [])
    }
}
