/// Ferry's own strict JSON reader (RFC 8259), bytes to ``JSONValue``, without Foundation's
/// `JSONSerialization`. What it decides where the RFC leaves room:
/// - UTF-8 only; a leading UTF-8 byte order mark is skipped (§8.1 allows ignoring it).
/// - Top-level fragments (`"text"`, `12`, `null`) are read unless `allowsFragments` is false
///   (AFNetworking's `NSJSONReadingFragmentsAllowed`; Apple's current `JSONSerialization`
///   reads them, so true is the default).
/// - A name given twice in an object keeps its last value, as `JSONSerialization` does.
/// - Numbers: see ``JSONValue``'s integer rule; a number beyond a double's range (`1e400`)
///   is an error, as it is for Foundation's `JSONDecoder`, not an infinity; one too small
///   (`1e-400`) reads as zero.
/// - `\u` escapes of a lone surrogate are errors (a String cannot hold one); `\u0000` is read.
/// - Objects and arrays nest at most ``maximumDepth`` deep, so hostile input fails cleanly
///   instead of exhausting the stack.
///
/// One pass, linear in the input: a string is copied once (twice when it has escapes).
struct JSONReader {
    /// Nesting limit, `JSONSerialization`'s.
    static let maximumDepth = 512

    var allowsFragments = true

    /// The value of a whole document.
    func read(_ bytes: some Collection<UInt8>) throws(JSONParseError) -> JSONValue {
        let result = bytes.withContiguousStorageIfAvailable { buffer in
            var parser = Parser(bytes: buffer, allowsFragments: allowsFragments)
            return Result { () throws(JSONParseError) in try parser.document() }
        }
        if let result { return try result.get() }
        return try read(Array(bytes))
    }
}

/// The cursor over one document's bytes.
private struct Parser {
    let bytes: UnsafeBufferPointer<UInt8>
    let allowsFragments: Bool
    var index = 0

    init(bytes: UnsafeBufferPointer<UInt8>, allowsFragments: Bool) {
        self.bytes = bytes
        self.allowsFragments = allowsFragments
    }

    mutating func document() throws(JSONParseError) -> JSONValue {
        if bytes.count >= 3, bytes[0] == 0xEF, bytes[1] == 0xBB, bytes[2] == 0xBF { index = 3 }
        skipWhitespace()
        guard index < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
        if !allowsFragments, bytes[index] != UInt8(ascii: "{"), bytes[index] != UInt8(ascii: "[") {
            throw JSONParseError(.fragmentNotAllowed, offset: index)
        }
        let value = try value(depth: 0)
        skipWhitespace()
        guard index == bytes.count else { throw JSONParseError(.trailingCharacter(bytes[index]), offset: index) }
        return value
    }

    // MARK: - Values

    private mutating func value(depth: Int) throws(JSONParseError) -> JSONValue {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try object(depth: depth + 1)
        case UInt8(ascii: "["): return try array(depth: depth + 1)
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return try number()
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case let byte: throw JSONParseError(.unexpectedCharacter(byte), offset: index)
        }
    }

    private mutating func object(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONReader.maximumDepth else { throw JSONParseError(.tooDeep(limit: JSONReader.maximumDepth), offset: index) }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if try peek() == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard try peek() == UInt8(ascii: "\"") else { throw unexpected() }
            let name = try string()
            skipWhitespace()
            try expect(UInt8(ascii: ":"))
            skipWhitespace()
            members[name] = try value(depth: depth)
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"): index += 1; return .object(members)
            default: throw unexpected()
            }
        }
    }

    private mutating func array(depth: Int) throws(JSONParseError) -> JSONValue {
        guard depth <= JSONReader.maximumDepth else { throw JSONParseError(.tooDeep(limit: JSONReader.maximumDepth), offset: index) }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if try peek() == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value(depth: depth))
            skipWhitespace()
            switch try peek() {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"): index += 1; return .array(elements)
            default: throw unexpected()
            }
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONParseError) {
        let text = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        for expected in text {
            guard index < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
            guard bytes[index] == expected else { throw unexpected() }
            index += 1
        }
    }

    // MARK: - Numbers (RFC 8259 §6)

    private mutating func number() throws(JSONParseError) -> JSONValue {
        let start = index
        let negative = bytes[index] == UInt8(ascii: "-")
        if negative { index += 1 }
        try digits(allowingLeadingZero: false)
        var isInteger = true
        if index < bytes.count, bytes[index] == UInt8(ascii: ".") {
            isInteger = false
            index += 1
            try digits(allowingLeadingZero: true)
        }
        if index < bytes.count, bytes[index] == UInt8(ascii: "e") || bytes[index] == UInt8(ascii: "E") {
            isInteger = false
            index += 1
            if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") { index += 1 }
            try digits(allowingLeadingZero: true)
        }
        let text = UnsafeBufferPointer(rebasing: bytes[start..<index])
        if isInteger, let integer = Self.integer(text, negative: negative), integer != 0 || !negative {
            return .int(integer)
        }
        // A fraction, an exponent, an integer beyond Int, or -0: the standard library's
        // correctly rounded conversion, on text the grammar above has already checked.
        guard let number = Double(String(decoding: text, as: UTF8.self)), number.isFinite else {
            throw JSONParseError(.numberOutOfRange, offset: start)
        }
        return .double(number)
    }

    /// One or more digits; the first may be `0` only when alone (for the integer part).
    private mutating func digits(allowingLeadingZero: Bool) throws(JSONParseError) {
        let start = index
        while index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) { index += 1 }
        guard index > start else {
            if index == bytes.count { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
            throw JSONParseError(.invalidNumber, offset: index)
        }
        if !allowingLeadingZero, bytes[start] == UInt8(ascii: "0"), index - start > 1 {
            throw JSONParseError(.leadingZero, offset: start)
        }
    }

    /// The integer `text` spells, or nil when it does not fit in `Int`. Accumulated on the
    /// negative side so `Int.min` fits.
    private static func integer(_ text: UnsafeBufferPointer<UInt8>, negative: Bool) -> Int? {
        var value = 0
        for byte in text.dropFirst(negative ? 1 : 0) {
            let (shifted, overflow) = value.multipliedReportingOverflow(by: 10)
            let (next, overflow2) = shifted.subtractingReportingOverflow(Int(byte &- UInt8(ascii: "0")))
            guard !overflow, !overflow2 else { return nil }
            value = next
        }
        if negative { return value }
        return value == Int.min ? nil : -value
    }

    // MARK: - Strings (RFC 8259 §7)

    /// The string whose opening quote is at `index`.
    private mutating func string() throws(JSONParseError) -> String {
        let open = index
        index += 1
        let start = index
        // Fast path: no escapes, one copy straight into the String.
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                defer { index += 1 }
                return try Self.text(UnsafeBufferPointer(rebasing: bytes[start..<index]), openedAt: open)
            }
            if byte == UInt8(ascii: "\\") { break }
            if byte < 0x20 { throw JSONParseError(.controlCharacterInString(byte), offset: index) }
            index += 1
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: decoded, as: UTF8.self) else { throw JSONParseError(.invalidUTF8, offset: open) }
                return text
            case UInt8(ascii: "\\"):
                try escape(into: &decoded)
            case 0x00..<0x20:
                throw JSONParseError(.controlCharacterInString(byte), offset: index)
            default:
                decoded.append(byte)
                index += 1
            }
        }
        throw JSONParseError(.unexpectedEndOfInput, offset: index)
    }

    private static func text(_ bytes: UnsafeBufferPointer<UInt8>, openedAt open: Int) throws(JSONParseError) -> String {
        guard let text = String(validating: bytes, as: UTF8.self) else { throw JSONParseError(.invalidUTF8, offset: open) }
        return text
    }

    /// The escape at `index` (a backslash), appended to `decoded` as UTF-8.
    private mutating func escape(into decoded: inout [UInt8]) throws(JSONParseError) {
        let start = index
        index += 1
        guard index < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
        let simple: UInt8
        switch bytes[index] {
        case UInt8(ascii: "\""): simple = UInt8(ascii: "\"")
        case UInt8(ascii: "\\"): simple = UInt8(ascii: "\\")
        case UInt8(ascii: "/"): simple = UInt8(ascii: "/")
        case UInt8(ascii: "b"): simple = 0x08
        case UInt8(ascii: "f"): simple = 0x0C
        case UInt8(ascii: "n"): simple = 0x0A
        case UInt8(ascii: "r"): simple = 0x0D
        case UInt8(ascii: "t"): simple = 0x09
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hexQuad(escapeAt: start)
            let scalar: Unicode.Scalar?
            switch unit {
            case 0xD800..<0xDC00:
                // A high surrogate must be followed at once by `\u` and a low one.
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    throw JSONParseError(.loneSurrogate, offset: start)
                }
                let second = index
                index += 2
                let low = try hexQuad(escapeAt: second)
                guard (0xDC00..<0xE000).contains(low) else { throw JSONParseError(.loneSurrogate, offset: start) }
                scalar = Unicode.Scalar(0x10000 + ((UInt32(unit) - 0xD800) << 10) + (UInt32(low) - 0xDC00))
            case 0xDC00..<0xE000:
                throw JSONParseError(.loneSurrogate, offset: start)
            default:
                scalar = Unicode.Scalar(unit)
            }
            // Every non-surrogate code point is a scalar; the guard keeps peer input from a trap.
            guard let scalar else { throw JSONParseError(.invalidEscape, offset: start) }
            decoded.append(contentsOf: scalar.utf8)
            return
        default:
            throw JSONParseError(.invalidEscape, offset: start)
        }
        decoded.append(simple)
        index += 1
    }

    /// Four hexadecimal digits at `index`, for the escape that began at `escapeAt`.
    private mutating func hexQuad(escapeAt start: Int) throws(JSONParseError) -> UInt16 {
        var unit: UInt16 = 0
        for _ in 0..<4 {
            guard index < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw JSONParseError(.invalidEscape, offset: start)
            }
            unit = unit << 4 | UInt16(digit)
            index += 1
        }
        return unit
    }

    // MARK: - Whitespace and punctuation

    /// RFC 8259 §2: space, tab, line feed and carriage return only.
    private mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            default: return
            }
        }
    }

    private func peek() throws(JSONParseError) -> UInt8 {
        guard index < bytes.count else { throw JSONParseError(.unexpectedEndOfInput, offset: index) }
        return bytes[index]
    }

    private mutating func expect(_ byte: UInt8) throws(JSONParseError) {
        guard try peek() == byte else { throw unexpected() }
        index += 1
    }

    /// The error for the byte at `index` (or the end).
    private func unexpected() -> JSONParseError {
        index < bytes.count ? JSONParseError(.unexpectedCharacter(bytes[index]), offset: index)
            : JSONParseError(.unexpectedEndOfInput, offset: index)
    }
}
