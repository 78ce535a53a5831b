#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Byte classes of the HTTP grammar (RFC 9110 §5.6.2, §5.5; RFC 9112 §2.2), shared by the
/// encoder and the parser so both sides agree on what a token or a field value is.
///
/// Everything works on `UInt8` so hot paths never build a `String` to ask a question.
package enum HTTPSyntax {
    /// `CR` (0x0D).
    package static let cr: UInt8 = 0x0D
    /// `LF` (0x0A).
    package static let lf: UInt8 = 0x0A
    /// `SP` (0x20).
    package static let space: UInt8 = 0x20
    /// `HTAB` (0x09).
    package static let tab: UInt8 = 0x09
    /// `:` (0x3A), the field name terminator.
    package static let colon: UInt8 = 0x3A
    /// `,` (0x2C), the list separator (RFC 9110 §5.6.1).
    package static let comma: UInt8 = 0x2C
    /// `;` (0x3B), the chunk extension separator (RFC 9112 §7.1.1).
    package static let semicolon: UInt8 = 0x3B
    /// The CRLF line end.
    package static let crlf: [UInt8] = [0x0D, 0x0A]

    /// Whether `byte` is a `tchar` (RFC 9110 §5.6.2): the alphabet of methods and field names.
    @inline(__always)
    package static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case 0x30...0x39, 0x41...0x5A, 0x61...0x7A:  // DIGIT, ALPHA
            return true
        case 0x21, 0x23, 0x24, 0x25, 0x26, 0x27, 0x2A, 0x2B, 0x2D, 0x2E, 0x5E, 0x5F, 0x60, 0x7C, 0x7E:
            return true  // ! # $ % & ' * + - . ^ _ ` | ~
        default:
            return false
        }
    }

    /// Whether `byte` may appear inside a field value or a reason phrase:
    /// `HTAB / SP / VCHAR / obs-text` (RFC 9110 §5.5, RFC 9112 §4). Refuses NUL, CR, LF, DEL and
    /// every other control byte.
    @inline(__always)
    package static func isFieldValueByte(_ byte: UInt8) -> Bool {
        byte == tab || (byte >= 0x20 && byte != 0x7F)
    }

    /// Whether `byte` is `SP` or `HTAB` (OWS, RFC 9110 §5.6.3).
    @inline(__always)
    package static func isWhitespace(_ byte: UInt8) -> Bool {
        byte == space || byte == tab
    }

    /// `bytes` without OWS (SP and HTAB, RFC 9110 §5.6.3) at either end.
    package static func trimmingWhitespace(_ bytes: Substring.UTF8View) -> Substring.UTF8View {
        guard let first = bytes.firstIndex(where: { !isWhitespace($0) }),
              let last = bytes.lastIndex(where: { !isWhitespace($0) })
        else { return bytes[bytes.endIndex...] }
        return bytes[first...last]
    }

    /// `text` without OWS (SP and HTAB) at either end.
    package static func trimmingWhitespace(_ text: some StringProtocol) -> String {
        String(Substring(trimmingWhitespace(Substring(text).utf8)))
    }

    /// The index of the first `byte` in `bytes[start..<end]`, or `nil`.
    ///
    /// `memchr` scans a word at a time; the generic `firstIndex(of:)` on a slice measured
    /// about 9% of a whole head parse.
    @inline(__always)
    package static func firstIndex(of byte: UInt8, in bytes: UnsafeRawBufferPointer, from start: Int, to end: Int) -> Int? {
        guard start < end, let base = bytes.baseAddress else { return nil }
        guard let found = memchr(base + start, Int32(byte), end - start) else { return nil }
        return base.distance(to: UnsafeRawPointer(found))
    }

    /// Whether every byte is a `tchar` and there is at least one (RFC 9110 §5.6.2).
    package static func isToken(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy(isTokenByte)
    }

    /// Whether `bytes` is a field value Ferry will send: no CR, LF, NUL or other control byte
    /// except HTAB (RFC 9110 §5.5). This is what keeps a caller's value from smuggling a header.
    package static func isFieldValue(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.allSatisfy(isFieldValueByte)
    }

    /// Whether `bytes` is a request target Ferry will send: at least one byte, all visible
    /// US-ASCII (RFC 9112 §3.2; RFC 3986 allows nothing else unencoded).
    package static func isRequestTarget(_ bytes: some Collection<UInt8>) -> Bool {
        !bytes.isEmpty && bytes.allSatisfy { $0 > 0x20 && $0 < 0x7F }
    }

    /// Whether a string's UTF-8 is a token, read where it is stored: walking `String.UTF8View`
    /// generically costs several times more per byte than the buffer.
    package static func isToken(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isToken($0) }
    }

    /// Whether a string's UTF-8 is a request target, read where it is stored.
    package static func isRequestTarget(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { isRequestTarget($0) }
    }

    /// Appends a string's UTF-8 to `buffer` in one copy.
    package static func append(_ text: String, to buffer: inout [UInt8]) {
        var text = text
        text.withUTF8 { buffer.append(contentsOf: $0) }
    }

    /// The value of a hexadecimal digit, or `nil` (RFC 9112 §7.1 chunk-size is `1*HEXDIG`).
    @inline(__always)
    package static func hexValue(_ byte: UInt8) -> Int64? {
        switch byte {
        case 0x30...0x39: return Int64(byte &- 0x30)
        case 0x41...0x46: return Int64(byte &- 0x41 &+ 10)
        case 0x61...0x66: return Int64(byte &- 0x61 &+ 10)
        default: return nil
        }
    }

    /// Whether `bytes` equals the lowercase ASCII `lowercase`, ignoring ASCII case
    /// (tokens such as `chunked` and `close` are case-insensitive, RFC 9110 §5.6.2).
    package static func equalsIgnoringCase(_ bytes: UnsafeRawBufferPointer, _ lowercase: StaticString) -> Bool {
        guard bytes.count == lowercase.utf8CodeUnitCount else { return false }
        let expected = UnsafeBufferPointer(start: lowercase.utf8Start, count: lowercase.utf8CodeUnitCount)
        for index in 0..<bytes.count {
            var byte = bytes[index]
            if byte >= 0x41 && byte <= 0x5A { byte |= 0x20 }
            if byte != expected[index] { return false }
        }
        return true
    }

    /// Calls `body` with each element of a comma-separated list (RFC 9110 §5.6.1), trimmed of
    /// OWS. Empty elements are passed too, so callers decide whether they are an error.
    package static func forEachListElement<E: Error>(
        _ bytes: UnsafeRawBufferPointer,
        _ body: (UnsafeRawBufferPointer) throws(E) -> Void
    ) throws(E) {
        var start = 0
        while start <= bytes.count {
            var end = start
            while end < bytes.count && bytes[end] != comma { end += 1 }
            var lower = start
            var upper = end
            while lower < upper && isWhitespace(bytes[lower]) { lower += 1 }
            while upper > lower && isWhitespace(bytes[upper - 1]) { upper -= 1 }
            try body(UnsafeRawBufferPointer(rebasing: bytes[lower..<upper]))
            start = end + 1
        }
    }
}
