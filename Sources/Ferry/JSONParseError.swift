/// Why a document is not JSON, and where: the typed cause ``JSONResponseSerializer`` puts in a
/// ``NetworkError``'s `underlyingError`. Its description is a sentence
/// (`unexpected character 'x' at byte 12`).
public struct JSONParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What is wrong (RFC 8259's grammar, or one of the reader's limits).
    public enum Kind: Sendable, Hashable {
        /// The document ends where a value, a name or a closing bracket was expected (an
        /// empty document too).
        case unexpectedEndOfInput
        /// A byte no JSON rule allows here (a trailing comma, a `'`, a `+`, a word that is not
        /// `true`, `false` or `null`, a byte order mark other than UTF-8's…).
        case unexpectedCharacter(UInt8)
        /// Something after the complete top-level value, other than whitespace.
        case trailingCharacter(UInt8)
        /// A number with a leading zero (`01`, `-00`), which RFC 8259 §6 forbids.
        case leadingZero
        /// A number missing its digits after `-`, `.` or the exponent's `e`.
        case invalidNumber
        /// A number beyond a double's range (`1e400`): JSON values hold finite numbers only.
        case numberOutOfRange
        /// A backslash followed by something other than `"\/bfnrtu`, or `\u` without four
        /// hexadecimal digits.
        case invalidEscape
        /// A `\u` escape of half a UTF-16 surrogate pair without its other half.
        case loneSurrogate
        /// A byte below 0x20 inside a string: RFC 8259 §7 requires it escaped.
        case controlCharacterInString(UInt8)
        /// A string's bytes are not UTF-8.
        case invalidUTF8
        /// Objects and arrays nested deeper than the reader's limit (hostile input cannot
        /// exhaust the stack).
        case tooDeep(limit: Int)
        /// The top-level value is a string, number, boolean or null and fragments were not
        /// allowed.
        case fragmentNotAllowed
    }

    /// What is wrong.
    public let kind: Kind
    /// Where, in bytes from the start of the document (a byte order mark counts).
    public let offset: Int

    /// An error of `kind` at byte `offset`.
    public init(_ kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// A sentence naming the fault and its byte offset.
    public var description: String {
        switch kind {
        case .unexpectedEndOfInput:
            offset == 0 ? "the document is empty" : "unexpected end of the document at byte \(offset)"
        case .unexpectedCharacter(let byte):
            "unexpected \(Self.name(byte)) at byte \(offset)"
        case .trailingCharacter(let byte):
            "unexpected \(Self.name(byte)) after the JSON value at byte \(offset)"
        case .leadingZero:
            "a number with a leading zero at byte \(offset)"
        case .invalidNumber:
            "a number without digits after '-', '.' or 'e' at byte \(offset)"
        case .numberOutOfRange:
            "a number too large for a double at byte \(offset)"
        case .invalidEscape:
            "an invalid escape sequence at byte \(offset)"
        case .loneSurrogate:
            "a lone UTF-16 surrogate escape (half a pair) at byte \(offset)"
        case .controlCharacterInString(let byte):
            "an unescaped control character \(Self.hex(byte)) in a string at byte \(offset)"
        case .invalidUTF8:
            "the string at byte \(offset) is not valid UTF-8"
        case .tooDeep(let limit):
            "objects and arrays nested deeper than \(limit) levels at byte \(offset)"
        case .fragmentNotAllowed:
            "the top-level value at byte \(offset) is not an object or an array (fragments are not allowed)"
        }
    }

    /// `character 'x'` for printable ASCII, else `byte 0xC3`.
    private static func name(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? "character '\(Character(Unicode.Scalar(byte)))'" : "byte \(hex(byte))"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = String(byte, radix: 16, uppercase: true)
        return "0x" + (digits.count == 1 ? "0" + digits : digits)
    }
}
