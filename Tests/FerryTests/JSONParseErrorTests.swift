import Testing

@testable import Ferry

/// JSONParseError's descriptions: a sentence with the fault and the byte offset.
@Suite("JSON parse error")
struct JSONParseErrorTests {
    @Test func sentences() {
        #expect(JSONParseError(.unexpectedCharacter(UInt8(ascii: "x")), offset: 12).description == "unexpected character 'x' at byte 12")
        #expect(JSONParseError(.unexpectedCharacter(0xC3), offset: 3).description == "unexpected byte 0xC3 at byte 3")
        #expect(JSONParseError(.trailingCharacter(UInt8(ascii: "}")), offset: 7).description
            == "unexpected character '}' after the JSON value at byte 7")
        #expect(JSONParseError(.unexpectedEndOfInput, offset: 0).description == "the document is empty")
        #expect(JSONParseError(.controlCharacterInString(0x0A), offset: 4).description
            == "an unescaped control character 0x0A in a string at byte 4")
        #expect(JSONParseError(.tooDeep(limit: 512), offset: 512).description == "objects and arrays nested deeper than 512 levels at byte 512")
    }

    @Test("every kind names its offset", arguments: [
        JSONParseError.Kind.unexpectedEndOfInput, .unexpectedCharacter(0x41), .trailingCharacter(0x20), .leadingZero, .invalidNumber,
        .numberOutOfRange, .invalidEscape, .loneSurrogate, .controlCharacterInString(0x1F), .invalidUTF8,
        .tooDeep(limit: 512), .fragmentNotAllowed,
    ])
    func offsets(kind: JSONParseError.Kind) {
        #expect(JSONParseError(kind, offset: 9876).description.contains("byte 9876"))
    }
}
