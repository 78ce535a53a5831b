// JSONValue to and from JSONSerialization's objects (the FoundationSerializers trait), for
// AFNetworking ports that read `responseObject as? [String: Any]`.
import Ferry
import Foundation
import Testing

#if FoundationSerializers
@Suite("JSONValue and JSONSerialization")
struct JSONValueFoundationTests {
    static let text = #"{"id":7,"ratio":0.5,"big":18446744073709551615,"ok":true,"no":false,"none":null,"tags":["a",1,2.5],"nested":{"k":"v"}}"#

    @Test("JSONSerialization's objects become the same JSONValue that Ferry's reader makes")
    func fromFoundation() throws {
        let object = try JSONSerialization.jsonObject(with: Data(Self.text.utf8))
        let value = try #require(JSONValue(foundationObject: object))
        #expect(value == (try JSONValue(parsing: Data(Self.text.utf8))))
        #expect(value["ok"] == .bool(true) && value["no"] == .bool(false))
        #expect(value["id"] == .int(7) && value["ratio"] == .double(0.5))
        #expect(JSONValue(foundationObject: Date()) == nil, "a date has no JSON form")
        #expect(JSONValue(foundationObject: [1: "non-string key"]) == nil)
    }

    @Test("foundationObject is what JSONSerialization would have returned")
    func toFoundation() throws {
        let value = try JSONValue(parsing: Data(Self.text.utf8))
        let object = try #require(value.foundationObject as? [String: Any])
        #expect(object["id"] as? Int == 7)
        #expect(object["ratio"] as? Double == 0.5)
        #expect(object["ok"] as? Bool == true)
        #expect(object["none"] is NSNull)
        #expect((object["tags"] as? [Any])?.first as? String == "a")
        #expect((object["nested"] as? [String: Any])?["k"] as? String == "v")
        let written = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        #expect(try JSONValue(parsing: written) == value)
    }
}
#endif
