import Foundation
import Testing

@testable import Ferry

/// Decodable responses: the caller's decoder and its strategies, errors that name the path and
/// what was expected, and empty bodies only for types that have an empty value.
@Suite("Decodable response serializer")
struct DecodableResponseSerializerTests {
    struct User: Decodable, Sendable, Equatable {
        var id: Int
        var displayName: String
        var tags: [Tag]
    }

    struct Tag: Decodable, Sendable, Equatable {
        var name: String
    }

    static let json = JSONResponseSerializerTests.response(200, "application/json")

    static func failure<T: Decodable & Sendable>(_ type: T.Type, _ body: String?, response: NetworkResponse = json,
                                                 decoder: JSONDecoder = JSONDecoder()) -> NetworkError? {
        do {
            _ = try DecodableResponseSerializer(type, decoder: decoder).serialize(response, data: body.map { Data($0.utf8) })
            return nil
        } catch {
            return error
        }
    }

    @Test func decodesWithTheCallersDecoder() throws {
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let serializer = DecodableResponseSerializer(User.self, decoder: decoder)
        let user = try serializer.serialize(Self.json, data: Data(#"{"id": 1, "display_name": "Ada", "tags": [{"name": "x"}]}"#.utf8))
        #expect(user == User(id: 1, displayName: "Ada", tags: [Tag(name: "x")]))
    }

    @Test("decoding errors in words", arguments: [
        (#"{"id": 1, "displayName": "Ada", "tags": [{"name": "x"}, {"name": 5}]}"#,
         "The response cannot be decoded as User: expected a String at tags[1].name"),
        (#"{"id": 1, "tags": []}"#,
         #"The response cannot be decoded as User: the key "displayName" is missing from the top-level object"#),
        (#"{"id": 1, "displayName": "A", "tags": [{}]}"#,
         #"The response cannot be decoded as User: the key "name" is missing from the object at tags[0]"#),
        (#"{"id": null, "displayName": "A", "tags": []}"#,
         "The response cannot be decoded as User: expected an Int at id but found null or nothing"),
        (#"[1, 2]"#,
         "The response cannot be decoded as User: expected a Dictionary<String, Any> at the top level"),
    ])
    func decodingFailures(body: String, reasonStart: String) throws {
        let error = try #require(Self.failure(User.self, body))
        #expect(error.code == .cannotDecodeContentData)
        #expect(error.reason.hasPrefix(reasonStart), "\(error.reason)")
        #expect(error.reason.contains("; body begins: \(body.prefix(40))"))
        #expect(error.underlyingError is DecodingError)
        #expect(error.responseData == Data(body.utf8))
        #expect(error.response?.statusCode == 200)
    }

    @Test func aBodyThatIsNotJSONIsAParseError() throws {
        let error = try #require(Self.failure(User.self, "{\"id\": 1,, }"))
        #expect(error.code == .cannotParseResponse)
        #expect(error.reason.hasPrefix("The response is not valid JSON: unexpected character ',' at byte 9"))
        #expect(error.underlyingError as? JSONParseError == JSONParseError(.unexpectedCharacter(UInt8(ascii: ",")), offset: 9))
    }

    @Test func emptyBodiesOnlyForTypesWithAnEmptyValue() throws {
        let noContent = JSONResponseSerializerTests.response(204, nil)
        let error = try #require(Self.failure(User.self, nil, response: noContent))
        #expect(error.code == .cannotDecodeContentData)
        #expect(error.reason == "The response has no body to decode as User (204); decode EmptyResponse or an Optional to accept an empty body")
        #expect(try DecodableResponseSerializer(EmptyResponse.self).serialize(noContent, data: nil) == EmptyResponse())
        #expect(try DecodableResponseSerializer(EmptyResponse.self).serialize(Self.json, data: Data(" ".utf8)) == EmptyResponse())
        #expect(try DecodableResponseSerializer(EmptyResponse.self).serialize(Self.json, data: Data(#"{"ok":true}"#.utf8)) == EmptyResponse())
        #expect(try DecodableResponseSerializer(User?.self).serialize(noContent, data: Data()) == nil)
        let present = try DecodableResponseSerializer(Tag?.self).serialize(Self.json, data: Data(#"{"name":"x"}"#.utf8))
        #expect(present == Tag(name: "x"))
    }

    @Test func validationComesFirst() throws {
        let html = try #require(Self.failure(User.self, "<html>", response: JSONResponseSerializerTests.response(200, "text/html")))
        #expect(html.code == .cannotDecodeContentData)
        #expect(html.reason.hasPrefix("Request failed: unacceptable content-type: text/html"))
        let notFound = try #require(Self.failure(User.self, #"{"error":"gone"}"#, response: JSONResponseSerializerTests.response(404, "application/json")))
        #expect(notFound.code == .badServerResponse)
        var lenient = DecodableResponseSerializer(Tag.self)
        lenient.acceptableStatusCodes = nil
        lenient.acceptableContentTypes = nil
        #expect(try lenient.serialize(JSONResponseSerializerTests.response(404, "text/plain"), data: Data(#"{"name":"n"}"#.utf8)) == Tag(name: "n"))
    }

    @Test func decodingErrorsDescribePaths() {
        struct Key: CodingKey {
            var stringValue: String
            var intValue: Int?
            init(stringValue: String) { self.stringValue = stringValue }
            init(intValue: Int) { stringValue = "Index \(intValue)"; self.intValue = intValue }
        }
        typealias Serializer = DecodableResponseSerializer<Tag>
        #expect(Serializer.path([]) == "the top level")
        #expect(Serializer.path([Key(intValue: 0), Key(stringValue: "a"), Key(intValue: 3), Key(stringValue: "b")]) == "[0].a[3].b")
        let corrupted = DecodingError.dataCorrupted(.init(codingPath: [Key(stringValue: "when")], debugDescription: "Expected date string to be ISO8601-formatted."))
        #expect(Serializer.describe(corrupted) == "invalid data at when: Expected date string to be ISO8601-formatted.")
    }
}
