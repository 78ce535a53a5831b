import Foundation
import Testing

@testable import Ferry
@testable import FerrySession

/// AFJSONRequestSerializer's behaviour: a JSON body for POST, PUT and PATCH, the query for GET,
/// HEAD and DELETE, errors instead of crashes for what JSON cannot hold, and an Encodable path.
@Suite("JSON request serializer")
struct JSONRequestSerializerTests {
    static let url = URL(string: "https://api.example.com/v1/items")!

    static func body(_ request: NetworkRequest) -> String? {
        switch request.body?.storage {
        case .bytes(let bytes)?: String(decoding: bytes, as: UTF8.self)
        default: nil
        }
    }

    @Test func postSendsJSONWithNamesInOrder() throws {
        let parameters: Parameters = ["name": "Ada \"A\" / L", "age": 36, "ratio": 0.25, "whole": 2.0, "tags": ["x", nil, true],
                                      "nested": ["b": false, "a": [:]], "line": "a\nb\u{1}"]
        let request = try JSONRequestSerializer().request(method: .post, url: Self.url, parameters: parameters)
        #expect(request.headerFields[.contentType] == "application/json")
        let text = try #require(Self.body(request))
        #expect(text == #"{"age":36,"line":"a\nb\u0001","name":"Ada \"A\" \/ L","nested":{"a":{},"b":false},"ratio":0.25,"tags":["x",null,true],"whole":2}"#)
        // Whatever Foundation reads back is what was meant.
        let decoded = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(decoded["name"] as? String == "Ada \"A\" / L")
        #expect(decoded["line"] as? String == "a\nb\u{1}")
    }

    @Test func optionsShapeTheText() throws {
        var serializer = JSONRequestSerializer()
        serializer.writingOptions = [.prettyPrinted, .withoutEscapingSlashes]
        let request = try serializer.request(method: .put, url: Self.url, parameters: ["a": ["x/y"], "b": [:]])
        #expect(Self.body(request) == "{\n  \"a\" : [\n    \"x/y\"\n  ],\n  \"b\" : {}\n}")
    }

    @Test func getStillUsesTheQuery() throws {
        let request = try JSONRequestSerializer().request(method: .get, url: Self.url, parameters: ["q": "a"])
        #expect(request.url.query == "q=a")
        #expect(request.body == nil)
        #expect(request.headerFields[.contentType] == nil)
    }

    @Test("what JSON cannot hold is an error naming where it sits", arguments: [
        (["tags": .set(["a"])], "a set at tags"),
        (["a": ["b": [1, .double(.nan)]]], "a number at a.b[1]"),
        (["x": .double(.infinity)], "a number at x"),
    ] as [(Parameters, String)])
    func invalidJSON(parameters: Parameters, mention: String) {
        do {
            _ = try JSONRequestSerializer().request(method: .post, url: Self.url, parameters: parameters)
            Issue.record("serialized \(parameters)")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason.contains(mention), "\(error.reason)")
        }
    }

    @Test func aContentTypeAlreadySetIsKept() throws {
        var request = NetworkRequest(url: Self.url, method: .post)
        try request.setValue("application/vnd.api+json", forHTTPHeaderField: "Content-Type")
        let serialized = try JSONRequestSerializer().serialize(request, with: ["a": 1])
        #expect(serialized.headerFields[values: .contentType] == ["application/vnd.api+json"])
    }

    struct Payload: Encodable {
        var createdAt: Date
        var title: String
    }

    @Test func encodablesGoThroughTheCallersEncoder() throws {
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        encoder.dateEncodingStrategy = .secondsSince1970
        encoder.outputFormatting = .sortedKeys
        let request = try JSONRequestSerializer().serialize(NetworkRequest(url: Self.url, method: .post),
                                                            encoding: Payload(createdAt: Date(timeIntervalSince1970: 5), title: "t"),
                                                            with: encoder)
        #expect(request.headerFields[.contentType] == "application/json")
        guard case .bytes(let bytes)? = request.body?.storage else { Issue.record("no body"); return }
        #expect(String(decoding: bytes, as: UTF8.self) == #"{"created_at":5,"title":"t"}"#)
    }

    @Test func aJSONValueIsSentAsTheBody() throws {
        var serializer = JSONRequestSerializer()
        serializer.writingOptions = [.withoutEscapingSlashes]
        let request = try serializer.serialize(NetworkRequest(url: Self.url, method: .get),
                                               json: ["path": "a/b", "ratio": 2.0, "count": 2, "items": [nil, true]])
        #expect(request.headerFields[.contentType] == "application/json")
        #expect(request.url == Self.url, "a JSON value is a body whatever the method")
        #expect(Self.body(request) == #"{"count":2,"items":[null,true],"path":"a/b","ratio":2.0}"#)
        do {
            _ = try serializer.serialize(NetworkRequest(url: Self.url, method: .post), json: ["x": [.double(.nan)]])
            Issue.record("wrote a NaN")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason == "The body is not valid JSON: a number at x[0] is NaN or infinite")
        }
    }
}
