import Testing

@testable import FerryWire

/// `Content-Range` for bytes (RFC 9110 §14.4), the field a resumed download checks.
struct ContentRangeTests {
    @Test("well-formed values", arguments: [
        ("bytes 100-199/1000", ContentRange(range: 100...199, completeLength: 1000)),
        ("bytes 0-0/1", ContentRange(range: 0...0, completeLength: 1)),
        ("bytes 100-199/*", ContentRange(range: 100...199, completeLength: nil)),
        ("bytes */1000", ContentRange(range: nil, completeLength: 1000)),
        ("Bytes  5-9/10", ContentRange(range: 5...9, completeLength: 10)),
    ])
    func parses(_ text: String, _ expected: ContentRange) {
        #expect(ContentRange(text) == expected)
    }

    @Test("malformed values are refused", arguments: [
        "", "bytes", "items 1-2/3", "bytes 2-1/10", "bytes 0-10/10", "bytes */*", "bytes -1-5/10", "bytes 1-5",
        "bytes 1-/10", "bytes 1-5/+10", "bytes 1-99999999999999999999/*", "bytes 1-5/10 ",
    ])
    func refuses(_ text: String) {
        #expect(ContentRange(text) == nil)
    }
}
