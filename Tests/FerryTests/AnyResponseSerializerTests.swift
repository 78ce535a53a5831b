import Foundation
import Testing

@testable import Ferry

/// AnyResponseSerializer: a serializer behind one type, a closure as a serializer, and `map`.
@Suite("Any response serializer")
struct AnyResponseSerializerTests {
    struct Tag: Decodable, Sendable, Equatable {
        var name: String
    }

    static let json = JSONResponseSerializerTests.response(200, "application/json")

    @Test func erasesAndMaps() throws {
        let names = AnyResponseSerializer(DecodableResponseSerializer([Tag].self)).map { $0.map(\.name) }
        #expect(try names.serialize(Self.json, data: Data(#"[{"name":"a"},{"name":"b"}]"#.utf8)) == ["a", "b"])
        do {
            _ = try names.serialize(Self.json, data: Data("{}".utf8))
            Issue.record("decoded an object as an array")
        } catch {
            #expect(error.code == .cannotDecodeContentData, "the wrapped serializer's error comes through")
        }
    }

    @Test func aClosureIsASerializer() throws {
        let length = AnyResponseSerializer<Int> { response, data throws(NetworkError) in
            guard response.statusCode == 200 else { throw NetworkError(.badServerResponse, reason: "not 200", response: response) }
            return data?.count ?? 0
        }
        #expect(try length.serialize(Self.json, data: Data("abc".utf8)) == 3)
        #expect(throws: NetworkError.self) { try length.serialize(JSONResponseSerializerTests.response(201, nil), data: nil) }
    }
}
