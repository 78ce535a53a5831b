/// Puts `-G` data into a URL query, percent-encoding what a query may not hold.
///
/// curl 7.88 pastes the data verbatim and then refuses the URL if it holds a space, or sends
/// raw non-ASCII bytes. Ferry is strict instead (CLI.md): bytes outside RFC 3986 §3.4's query
/// characters are percent-encoded as UTF-8, and a `%` not followed by two hex digits becomes
/// `%25`, so what reaches the server is always a valid query carrying the user's bytes.
/// The same rule cleans a URL typed on the command line (``encodeURLTail(_:)``);
/// ``formEncoded(_:)`` is curl's stricter `--data-urlencode` form.
enum QueryEncoder {
    /// Encodes `text` for use inside a query component.
    static func encode(_ text: some StringProtocol) -> String {
        let bytes = Array(text.utf8)
        var output = ""
        output.reserveCapacity(bytes.count)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%"), isHex(at: index + 1, bytes), isHex(at: index + 2, bytes) {
                output.append("%")
            } else if isQueryCharacter(byte) {
                output.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                output += percentEncoded(byte)
            }
            index += 1
        }
        return output
    }

    /// Encodes what follows a URL's authority (path, query and fragment) so that Foundation's
    /// URL parser takes it as it is: escapes already there pass through, non-ASCII characters
    /// become UTF-8 escapes, and so does any byte a URL may not hold (a second `#` among them).
    /// Without this, one such character makes the parser escape the whole string again, and
    /// `?s=a%20b&q=café` would send `s=a%2520b`.
    /// - Returns: nil when `tail` needs nothing.
    static func encodeURLTail(_ tail: Substring) -> String? {
        var seenHash = false
        let clean = tail.utf8.allSatisfy { byte in
            if byte == UInt8(ascii: "#") {
                defer { seenHash = true }
                return !seenHash
            }
            return byte == UInt8(ascii: "%") || isQueryCharacter(byte)
        }
        // A `%` is clean only before two hex digits: the slow path checks that.
        guard !clean || tail.utf8.contains(UInt8(ascii: "%")) else { return nil }
        let encoded: String
        if let hash = tail.firstIndex(of: "#") {
            encoded = encode(tail[..<hash]) + "#" + encode(tail[tail.index(after: hash)...])
        } else {
            encoded = encode(tail)
        }
        return encoded.utf8.elementsEqual(tail.utf8) ? nil : encoded
    }

    /// Appends `data` (already joined with `&`) to `query` with `&`, or starts a query.
    static func append(_ data: String, to query: String?) -> String {
        let encoded = encode(data)
        guard let query, !query.isEmpty else { return encoded }
        return query + "&" + encoded
    }

    private static func isHex(at index: Int, _ bytes: [UInt8]) -> Bool {
        guard index < bytes.count else { return false }
        switch bytes[index] {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"),
             UInt8(ascii: "A")...UInt8(ascii: "F"):
            return true
        default:
            return false
        }
    }

    // RFC 3986: query = *( pchar / "/" / "?" ); pchar = unreserved / pct-encoded / sub-delims / ":" / "@".
    private static func isQueryCharacter(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
             UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return "-._~!$&'()*+,;=:@/?".utf8.contains(byte)
        }
    }

    /// `bytes` as curl's `--data-urlencode` writes them: every byte but RFC 3986's unreserved
    /// characters (letters, digits, `-._~`) as `%XX`, and a space as `+`.
    static func formEncoded(_ bytes: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"),
                 UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                output.append(byte)
            case UInt8(ascii: " "):
                output.append(UInt8(ascii: "+"))
            default:
                output += percentEscape(byte)
            }
        }
        return output
    }

    private static func percentEncoded(_ byte: UInt8) -> String {
        String(decoding: percentEscape(byte), as: UTF8.self)
    }

    private static func percentEscape(_ byte: UInt8) -> [UInt8] {
        [UInt8(ascii: "%"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0x0F)]]
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}
