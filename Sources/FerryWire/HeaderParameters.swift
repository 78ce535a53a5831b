/// A field value of the form `value; name=token; name="quoted string"` (RFC 9110 §5.6.6), as
/// Content-Type and Content-Disposition use it, with RFC 8187's extended values
/// (`filename*=UTF-8''na%C3%AFve.txt`) decoded.
///
/// Pure and forgiving in the way browsers and curl are: a malformed parameter is skipped, not
/// an error, and the first occurrence of a name wins.
package struct HeaderParameters: Sendable, Equatable {
    /// The part before the first `;`, trimmed (a media type, a disposition type).
    package var value: String
    /// Parameters in order, names lower-cased, values unquoted (extended values decoded, their
    /// names keeping the trailing `*`).
    package var parameters: [(name: String, value: String)]

    /// Parses `field`.
    package init(parsing field: String) {
        let bytes = Array(field.utf8)
        var index = 0
        let valueEnd = bytes.firstIndex(of: HTTPSyntax.semicolon) ?? bytes.count
        value = HTTPSyntax.trimmingWhitespace(String(decoding: bytes[..<valueEnd], as: UTF8.self))
        index = valueEnd
        parameters = []
        while index < bytes.count {
            index += 1  // the ';'
            guard let parameter = Self.parameter(in: bytes, at: &index) else { continue }
            parameters.append(parameter)
        }
    }

    /// The first parameter named `name` (lower case), if any.
    package subscript(name: String) -> String? {
        parameters.first { $0.name == name }?.value
    }

    /// `filename*` decoded, else `filename`: RFC 6266 §4.3's preference.
    package var preferredFilename: String? {
        filenames.first
    }

    /// The file names offered, in RFC 6266 §4.3's order of preference: `filename*` (when it
    /// decodes), then `filename`. A caller that finds the first unusable tries the next.
    package var filenames: [String] {
        [self["filename*"].flatMap(Self.decodeExtendedValue), self["filename"]].compactMap { $0 }
    }

    package static func == (lhs: HeaderParameters, rhs: HeaderParameters) -> Bool {
        lhs.value == rhs.value && lhs.parameters.elementsEqual(rhs.parameters) { $0.name == $1.name && $0.value == $1.value }
    }

    /// One `name=value` from `index` up to the next `;` outside quotes; nil when malformed.
    private static func parameter(in bytes: [UInt8], at index: inout Int) -> (name: String, value: String)? {
        while index < bytes.count, HTTPSyntax.isWhitespace(bytes[index]) { index += 1 }
        let nameStart = index
        while index < bytes.count, HTTPSyntax.isTokenByte(bytes[index]) { index += 1 }
        let name = String(decoding: bytes[nameStart..<index], as: UTF8.self).lowercased()
        while index < bytes.count, HTTPSyntax.isWhitespace(bytes[index]) { index += 1 }
        guard !name.isEmpty, index < bytes.count, bytes[index] == UInt8(ascii: "=") else {
            skipToNextParameter(bytes, &index)
            return nil
        }
        index += 1
        while index < bytes.count, HTTPSyntax.isWhitespace(bytes[index]) { index += 1 }
        var value: [UInt8] = []
        if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
            // quoted-string (RFC 9110 §5.6.4): a backslash quotes the next byte.
            index += 1
            var closed = false
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "\"") { closed = true; break }
                if byte == UInt8(ascii: "\\"), index < bytes.count {
                    value.append(bytes[index])
                    index += 1
                } else {
                    value.append(byte)
                }
            }
            guard closed else { return nil }
            skipToNextParameter(bytes, &index)
        } else {
            let start = index
            while index < bytes.count, bytes[index] != HTTPSyntax.semicolon { index += 1 }
            value = Array(HTTPSyntax.trimmingWhitespace(String(decoding: bytes[start..<index], as: UTF8.self)).utf8)
        }
        return (name, String(decoding: value, as: UTF8.self))
    }

    private static func skipToNextParameter(_ bytes: [UInt8], _ index: inout Int) {
        while index < bytes.count, bytes[index] != HTTPSyntax.semicolon { index += 1 }
    }

    /// RFC 8187 §3.2: `charset'[language]'percent-encoded`, for UTF-8 and ISO-8859-1; nil for
    /// any other charset or a malformed escape.
    static func decodeExtendedValue(_ text: String) -> String? {
        let parts = text.split(separator: "'", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3 else { return nil }
        let charset = parts[0].lowercased()
        var bytes: [UInt8] = []
        var iterator = parts[2].utf8.makeIterator()
        while let byte = iterator.next() {
            guard byte == UInt8(ascii: "%") else {
                bytes.append(byte)
                continue
            }
            guard let high = iterator.next().flatMap(HTTPSyntax.hexValue), let low = iterator.next().flatMap(HTTPSyntax.hexValue) else {
                return nil
            }
            bytes.append(UInt8(high * 16 + low))
        }
        switch charset {
        case "utf-8":
            return String(validating: bytes, as: UTF8.self)
        case "iso-8859-1":
            return String(decoding: bytes.map { UInt16($0) }, as: UTF16.self)
        default:
            return nil
        }
    }
}
