import Foundation
import Testing

@testable import Ferry
@testable import FerrySession

/// AFPropertyListRequestSerializer's behaviour: an XML or binary property list that Foundation
/// reads back as the parameters, the query for GET, and errors for what a property list cannot hold.
@Suite("Property-list request serializer")
struct PropertyListRequestSerializerTests {
    static let url = URL(string: "https://api.example.com/v1/items")!

    static func bytes(_ request: NetworkRequest) -> Data? {
        guard case .bytes(let bytes)? = request.body?.storage else { return nil }
        return Data(bytes)
    }

    @Test("XML and binary bodies read back as the parameters", arguments: [PropertyListRequestSerializer.Format.xml, .binary])
    func roundTrip(format: PropertyListRequestSerializer.Format) throws {
        var serializer = PropertyListRequestSerializer()
        serializer.format = format
        let request = try serializer.request(method: .post, url: Self.url,
                                             parameters: ["name": "Ada", "age": 36, "ratio": 0.5, "ok": true, "tags": ["a", "b"],
                                                          "nested": ["k": "v"]])
        #expect(request.headerFields[.contentType] == "application/x-plist")
        let body = try #require(Self.bytes(request))
        let prefix = format == .xml ? "<?xml" : "bplist00"
        #expect(body.starts(with: Array(prefix.utf8)))
        let plist = try #require(try PropertyListSerialization.propertyList(from: body, format: nil) as? [String: Any])
        #expect(plist["name"] as? String == "Ada")
        #expect(plist["age"] as? Int == 36)
        #expect(plist["ratio"] as? Double == 0.5)
        #expect(plist["ok"] as? Bool == true)
        #expect(plist["tags"] as? [String] == ["a", "b"])
        #expect((plist["nested"] as? [String: String]) == ["k": "v"])
    }

    @Test("what a property list cannot hold is an error naming where it sits", arguments: [
        (["a": nil], "a null at a"),
        (["list": [1, .set([2])]], "a set at list[1]"),
        (["x": ["y": .double(.nan)]], "a number at x.y"),
    ] as [(Parameters, String)])
    func invalid(parameters: Parameters, mention: String) {
        do {
            _ = try PropertyListRequestSerializer().request(method: .put, url: Self.url, parameters: parameters)
            Issue.record("serialized \(parameters)")
        } catch {
            #expect(error.code == .invalidRequest)
            #expect(error.reason.contains(mention), "\(error.reason)")
        }
    }

    @Test func getStillUsesTheQuery() throws {
        let request = try PropertyListRequestSerializer().request(method: .get, url: Self.url, parameters: ["q": nil])
        #expect(request.url.query == "q")
        #expect(request.body == nil)
    }
}
