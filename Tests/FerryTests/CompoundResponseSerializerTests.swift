import Foundation
import Testing

@testable import Ferry

/// AFCompoundResponseSerializer: the first serializer that answers wins, in order; nil answers
/// pass the turn; the plain HTTP serializer has the last word.
@Suite("Compound response serializer")
struct CompoundResponseSerializerTests {
    struct Tag: Decodable, Sendable, Equatable {
        var name: String
    }

    static func response(_ status: Int, _ contentType: String?) -> NetworkResponse {
        JSONResponseSerializerTests.response(status, contentType)
    }

    /// Accepts `text/plain` and hands back the text.
    static let text = AnyResponseSerializer<String> { response, data throws(NetworkError) in
        var http = HTTPResponseSerializer()
        http.acceptableContentTypes = ["text/plain"]
        return String(decoding: try http.serialize(response, data: data), as: UTF8.self)
    }

    @Test func theFirstThatAnswersWins() throws {
        let serializer = CompoundResponseSerializer([DecodableResponseSerializer(Tag.self), JSONResponseSerializer(), Self.text])
        let tag = try serializer.serialize(Self.response(200, "application/json"), data: Data(#"{"name":"x"}"#.utf8))
        #expect(tag.serializerIndex == 0)
        #expect(tag.object(as: Tag.self) == Tag(name: "x"))
        #expect(tag.json == nil)

        let json = try serializer.serialize(Self.response(200, "application/json"), data: Data(#"{"other":1}"#.utf8))
        #expect(json.serializerIndex == 1)
        #expect(json.json == ["other": 1], "the JSON serializer's Optional is unwrapped")
        #expect(json.object(as: Tag.self) == nil)

        let text = try serializer.serialize(Self.response(200, "text/plain"), data: Data("hello".utf8))
        #expect(text.serializerIndex == 2)
        #expect(text.object(as: String.self) == "hello")
    }

    @Test func orderDecides() throws {
        let response = Self.response(200, "application/json")
        let body = Data(#"{"name":"x"}"#.utf8)
        let jsonFirst = CompoundResponseSerializer([JSONResponseSerializer(), DecodableResponseSerializer(Tag.self)])
        #expect(try jsonFirst.serialize(response, data: body).serializerIndex == 0)
        let tagFirst = CompoundResponseSerializer([DecodableResponseSerializer(Tag.self), JSONResponseSerializer()])
        #expect(try tagFirst.serialize(response, data: body).serializerIndex == 0)
        #expect(try tagFirst.serialize(response, data: body).object(as: Tag.self) == Tag(name: "x"))
    }

    @Test func theHTTPSerializerHasTheLastWord() throws {
        let serializer = CompoundResponseSerializer([JSONResponseSerializer()])
        let html = try serializer.serialize(Self.response(200, "text/html"), data: Data("<p>".utf8))
        #expect(html.serializerIndex == nil)
        #expect(html.data == Data("<p>".utf8))
        #expect(html.json == nil)

        // A nil JSON value (an empty body) is no answer, as AFNetworking's nil object is none.
        let empty = try serializer.serialize(Self.response(204, nil), data: nil)
        #expect(empty.serializerIndex == nil)
        #expect(empty.data == Data())

        do {
            _ = try serializer.serialize(Self.response(500, "application/json"), data: Data("{}".utf8))
            Issue.record("accepted a 500")
        } catch {
            #expect(error.code == .badServerResponse)
            #expect(error.responseData == Data("{}".utf8))
        }
        var strict = serializer
        strict.fallback.acceptableContentTypes = ["application/json"]
        #expect(throws: NetworkError.self) { try strict.serialize(Self.response(200, "text/html"), data: Data("<p>".utf8)) }
    }
}
