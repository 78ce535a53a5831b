import Foundation
import Testing

@testable import Ferry

/// Ferry's JSON reader against RFC 8259, in the manner of JSONTestSuite: y_ documents it must
/// read (with the value it must make), n_ documents it must refuse (with the fault and where).
@Suite("JSON reader")
struct JSONReaderTests {
    static func read(_ text: String, fragments: Bool = true) throws(JSONParseError) -> JSONValue {
        try JSONReader(allowsFragments: fragments).read(Array(text.utf8))
    }

    @Test("y_: documents that must be read", arguments: [
        ("[]", []),
        ("{}", [:]),
        (" \t\r\n[ 1 , 2 ]\n ", [1, 2]),
        (#"{"a":{"b":[null,true,false]}}"#, ["a": ["b": [nil, true, false]]]),
        (#"{"a":1,"a":2}"#, ["a": 2]),
        (#"[""]"#, [""]),
        (#"["\"\\\/\b\f\n\r\t"]"#, ["\"\\/\u{8}\u{C}\n\r\t"]),
        (#"["\u0041\u00e9\u4E2D"]"#, ["Aé中"]),
        (#"["\ud83d\ude00"]"#, ["😀"]),
        (#"["\u0000"]"#, ["\u{0}"]),
        ("[\"é😀\"]", ["é😀"]),
        (#"["a\nb\u0020c"]"#, ["a\nb c"]),
        ("[0]", [0]),
        ("[-0]", [.double(-0.0)]),
        ("[-1]", [-1]),
        ("[1.5]", [1.5]),
        ("[-0.0]", [.double(-0.0)]),
        ("[1E2]", [100.0]),
        ("[1e+2]", [100.0]),
        ("[1e-2]", [0.01]),
        ("[0.5e01]", [5.0]),
        ("[1.0]", [1.0]),
        ("[9223372036854775807]", [.int(Int.max)]),
        ("[-9223372036854775808]", [.int(Int.min)]),
        ("[9223372036854775808]", [.double(9223372036854775808.0)]),
        ("[123456789012345678901234567890]", [.double(1.2345678901234568e29)]),
        ("[1e-400]", [0.0]),
        ("[1.7976931348623157e308]", [.double(1.7976931348623157e308)]),
        ("\u{FEFF}[1]", [1]),
        ("\"text\"", "text"),
        ("12", 12),
        (" null ", nil),
        ("true", true),
    ] as [(String, JSONValue)])
    func valid(text: String, expected: JSONValue) throws {
        let value = try Self.read(text)
        #expect(value == expected)
        if case .double(let number) = expected, case .double(let read) = value {
            #expect(number.sign == read.sign)
        }
    }

    @Test func negativeZeroKeepsItsSign() throws {
        let value = try Self.read("-0")
        #expect(value.doubleValue?.sign == .minus)
        #expect(value.intValue == nil)
    }

    @Test("n_: documents that must be refused", arguments: [
        ("", JSONParseError(.unexpectedEndOfInput, offset: 0)),
        ("   ", JSONParseError(.unexpectedEndOfInput, offset: 3)),
        ("[1,]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "]")), offset: 3)),
        (#"{"a":1,}"#, JSONParseError(.unexpectedCharacter(UInt8(ascii: "}")), offset: 7)),
        ("[1 2]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "2")), offset: 3)),
        ("[1", JSONParseError(.unexpectedEndOfInput, offset: 2)),
        (#"{"a" 1}"#, JSONParseError(.unexpectedCharacter(UInt8(ascii: "1")), offset: 5)),
        ("{a:1}", JSONParseError(.unexpectedCharacter(UInt8(ascii: "a")), offset: 1)),
        ("['a']", JSONParseError(.unexpectedCharacter(UInt8(ascii: "'")), offset: 1)),
        ("[01]", JSONParseError(.leadingZero, offset: 1)),
        ("[-01]", JSONParseError(.leadingZero, offset: 2)),
        ("[+1]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "+")), offset: 1)),
        ("[.5]", JSONParseError(.unexpectedCharacter(UInt8(ascii: ".")), offset: 1)),
        ("[1.]", JSONParseError(.invalidNumber, offset: 3)),
        ("[1e]", JSONParseError(.invalidNumber, offset: 3)),
        ("[-]", JSONParseError(.invalidNumber, offset: 2)),
        ("[1e400]", JSONParseError(.numberOutOfRange, offset: 1)),
        ("[-1e400]", JSONParseError(.numberOutOfRange, offset: 1)),
        ("[NaN]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "N")), offset: 1)),
        ("[Infinity]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "I")), offset: 1)),
        ("[0x1]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "x")), offset: 2)),
        ("[tru]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "]")), offset: 4)),
        ("[True]", JSONParseError(.unexpectedCharacter(UInt8(ascii: "T")), offset: 1)),
        ("nul", JSONParseError(.unexpectedEndOfInput, offset: 3)),
        ("[\"a\tb\"]", JSONParseError(.controlCharacterInString(0x09), offset: 3)),
        ("[\"a\\n\u{1}\"]", JSONParseError(.controlCharacterInString(0x01), offset: 5)),
        (#"["\x"]"#, JSONParseError(.invalidEscape, offset: 2)),
        (#"["\u12"]"#, JSONParseError(.invalidEscape, offset: 2)),
        (#"["\uD800"]"#, JSONParseError(.loneSurrogate, offset: 2)),
        (#"["\uD800\n"]"#, JSONParseError(.loneSurrogate, offset: 2)),
        (#"["\uD800\u0041"]"#, JSONParseError(.loneSurrogate, offset: 2)),
        (#"["\uDC00"]"#, JSONParseError(.loneSurrogate, offset: 2)),
        (#"["abc"#, JSONParseError(.unexpectedEndOfInput, offset: 5)),
        ("[1] x", JSONParseError(.trailingCharacter(UInt8(ascii: "x")), offset: 4)),
        ("{} {}", JSONParseError(.trailingCharacter(UInt8(ascii: "{")), offset: 3)),
        ("[1]\u{0}", JSONParseError(.trailingCharacter(0), offset: 3)),
        ("\u{C}[]", JSONParseError(.unexpectedCharacter(0x0C), offset: 0)),
        ("[\u{A0}1]", JSONParseError(.unexpectedCharacter(0xC2), offset: 1)),
    ] as [(String, JSONParseError)])
    func invalid(text: String, expected: JSONParseError) {
        #expect(throws: expected) { try Self.read(text) }
    }

    @Test func invalidUTF8InAStringIsRefused() {
        let bytes: [UInt8] = Array(#"["a"#.utf8) + [0xFF] + Array(#""]"#.utf8)
        #expect(throws: JSONParseError(.invalidUTF8, offset: 1)) { try JSONReader().read(bytes) }
        let escaped: [UInt8] = Array(#"["\n"#.utf8) + [0xC3] + Array(#""]"#.utf8)
        #expect(throws: JSONParseError(.invalidUTF8, offset: 1)) { try JSONReader().read(escaped) }
    }

    @Test func aUTF16ByteOrderMarkIsNotJSON() {
        #expect(throws: JSONParseError(.unexpectedCharacter(0xFF), offset: 0)) { try JSONReader().read([0xFF, 0xFE, 0x5B, 0x00, 0x5D, 0x00]) }
    }

    @Test func fragmentsOnlyWhenAllowed() throws {
        #expect(try Self.read("\"x\"", fragments: true) == "x")
        #expect(throws: JSONParseError(.fragmentNotAllowed, offset: 1)) { try Self.read(" 1", fragments: false) }
        #expect(throws: JSONParseError(.fragmentNotAllowed, offset: 0)) { try Self.read("null", fragments: false) }
        #expect(try Self.read("[1]", fragments: false) == [1])
    }

    @Test func nestingIsLimited() throws {
        let limit = JSONReader.maximumDepth
        let deepest = String(repeating: "[", count: limit) + String(repeating: "]", count: limit)
        var value = try Self.read(deepest)
        var depth = 0
        while let inner = value[0] { value = inner; depth += 1 }
        #expect(depth == limit - 1)
        #expect(throws: JSONParseError(.tooDeep(limit: limit), offset: limit)) {
            try Self.read(String(repeating: "[", count: limit + 1) + String(repeating: "]", count: limit + 1))
        }
        // JSONTestSuite's n_structure_100000_opening_arrays: a clean error, not a crash.
        #expect(throws: JSONParseError(.tooDeep(limit: limit), offset: limit)) { try Self.read(String(repeating: "[", count: 100_000)) }
        #expect(throws: JSONParseError(.tooDeep(limit: limit), offset: 5 * limit)) {
            try Self.read(String(repeating: #"{"a":"#, count: 100_000))
        }
    }

    @Test func agreesWithFoundationOnARealDocument() throws {
        let text = #"""
        {"id": 42, "name": "Ada \u2014 L", "scores": [1.5, -2e3, 0], "tags": [], "owner": {"admin": false, "note": null},
         "emoji": "\ud83d\ude80 ok"}
        """#
        let value = try Self.read(text)
        let foundation = try #require(try JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any])
        #expect(value["id"]?.intValue == foundation["id"] as? Int)
        #expect(value["name"]?.stringValue == foundation["name"] as? String)
        #expect(value["emoji"]?.stringValue == foundation["emoji"] as? String)
        #expect(value["scores"]?[1]?.doubleValue == -2000)
        #expect(value["owner"]?["note"] == .null)
        #expect(value.objectValue?.count == foundation.count)
    }

    @Test func readsDataSlicesFromTheirStart() throws {
        let data = Data("xx[1, 2]".utf8).dropFirst(2)
        #expect(try JSONValue(parsing: data) == [1, 2])
        #expect(throws: JSONParseError(.unexpectedCharacter(UInt8(ascii: "x")), offset: 0)) { try JSONValue(parsing: Data("x".utf8)) }
    }
}
