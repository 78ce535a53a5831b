import Ferry
import Foundation
import Testing

/// AFNetworking's query-string rules, case by case: order, nesting, arrays, sets, nulls,
/// numbers and bools, and percent-escaping that keeps every character whole.
@Suite("Query strings")
struct QueryStringSerializationTests {
    @Test("parameters → query string", arguments: [
        (["key": "value"], "key=value"),
        (["key": "value", "another": "thing"], "another=thing&key=value"),
        (["user": ["name": "ada", "age": 36]], "user%5Bage%5D=36&user%5Bname%5D=ada"),
        (["tags": ["b", "a"]], "tags%5B%5D=b&tags%5B%5D=a"),
        (["ids": .set([3, 1, 2])], "ids=1&ids=2&ids=3"),
        (["flag": nil, "x": ""], "flag&x="),
        (["t": true, "f": false, "d": 1.5, "i": -3, "n": 2.0], "d=1.5&f=0&i=-3&n=2&t=1"),
        (["a": [["b": 1], ["b": 2]]], "a%5B%5D%5Bb%5D=1&a%5B%5D%5Bb%5D=2"),
        (["a": ["b": ["c": "d"]]], "a%5Bb%5D%5Bc%5D=d"),
        (["list": [], "map": [:]], ""),
        ([:], ""),
    ] as [(Parameters, String)])
    func queryString(parameters: Parameters, expected: String) {
        #expect(QueryStringSerialization.queryString(from: parameters) == expected)
    }

    @Test func reservedCharactersAreEscapedButSlashAndQuestionMarkStay() {
        let query = QueryStringSerialization.queryString(from: ["q": "a b&c=d/e?f#g[h]@i!$'()*+,;:-._~%"])
        #expect(query == "q=a%20b%26c%3Dd/e?f%23g%5Bh%5D%40i%21%24%27%28%29%2A%2B%2C%3B%3A-._~%25")
    }

    @Test("characters are escaped whole, as UTF-8", arguments: [
        ("😀", "%F0%9F%98%80"),
        ("🇺🇸", "%F0%9F%87%BA%F0%9F%87%B8"),
        ("e\u{301}", "e%CC%81"),
        ("ключ", "%D0%BA%D0%BB%D1%8E%D1%87"),
        ("👨‍👩‍👧", "%F0%9F%91%A8%E2%80%8D%F0%9F%91%A9%E2%80%8D%F0%9F%91%A7"),
    ])
    func unicode(text: String, escaped: String) {
        #expect(QueryStringSerialization.percentEscaped(text) == escaped)
        #expect(QueryStringSerialization.queryString(from: [text: .string(text)]) == "\(escaped)=\(escaped)")
    }

    /// AFNetworking escapes in batches of 50 characters, taking care not to cut a surrogate
    /// pair at a batch edge; escaping UTF-8 has no such edge: a long text of emoji comes back whole.
    @Test func longTextsOfSurrogatePairsRoundTrip() throws {
        let text = String(repeating: "a😀b🇺🇸", count: 300)
        let escaped = QueryStringSerialization.percentEscaped(text)
        #expect(escaped.removingPercentEncoding == text)
        #expect(escaped.utf8.allSatisfy { $0 < 0x80 })
    }

    @Test func pairsComeBeforeEscaping() {
        let pairs = QueryStringSerialization.pairs(from: ["b": ["x": nil], "a": .set(["z", "y"])])
        #expect(pairs.map(\.name) == ["a", "a", "b[x]"])
        #expect(pairs.map(\.value) == ["y", "z", nil])
    }

    @Test func literalsBuildTheValues() {
        let parameters: Parameters = ["page": 2, "ratio": 0.5, "on": true, "none": nil, "tags": ["a"], "nested": ["k": "v"]]
        #expect(parameters["page"] == .int(2))
        #expect(parameters["ratio"] == .double(0.5))
        #expect(parameters["on"] == .bool(true))
        #expect(parameters["none"] == .null)
        #expect(parameters["tags"] == .array([.string("a")]))
        #expect(parameters["nested"] == .dictionary(["k": .string("v")]))
    }
}
