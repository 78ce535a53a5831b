import Foundation

/// Splits a `multipart/form-data` body into its parts, for tests: written from RFC 2046
/// §5.1.1 without Ferry's code, so a mistake in the form cannot hide itself.
enum MultipartTestParser {
    /// One part: its header lines (without CRLF) and its body.
    struct Part: Equatable {
        var head: [String]
        var body: [UInt8]

        /// A part of text.
        init(_ head: [String], _ body: String) {
            self.head = head
            self.body = Array(body.utf8)
        }

        init(head: [String], body: [UInt8]) {
            self.head = head
            self.body = body
        }
    }

    /// The boundary of a `Content-Type: multipart/form-data; boundary=…` value (unquoted).
    static func boundary(ofContentType value: String?) -> String? {
        guard let value, let range = value.range(of: "boundary=") else { return nil }
        let rest = value[range.upperBound...]
        let unquoted = rest.hasPrefix("\"") ? rest.dropFirst().prefix { $0 != "\"" } : rest.prefix { $0 != ";" }
        return unquoted.isEmpty ? nil : String(unquoted)
    }

    /// The parts, or nil when `body` is not framed by `boundary` exactly (first delimiter at
    /// the start, close delimiter and CRLF at the end, every head ended by an empty line).
    static func parts(of body: [UInt8], boundary: String) -> [Part]? {
        let first = Array("--\(boundary)\r\n".utf8)
        let close = Array("\r\n--\(boundary)--\r\n".utf8)
        let between = Array("\r\n--\(boundary)\r\n".utf8)
        guard body.count >= first.count + close.count, body.starts(with: first), body.suffix(close.count).elementsEqual(close) else {
            return nil
        }
        let inner = Array(body[first.count..<(body.count - close.count)])
        var parts: [Part] = []
        for piece in split(inner, on: between) {
            guard let end = index(of: Array("\r\n\r\n".utf8), in: piece) else {
                // A part with no header lines starts with the empty line.
                guard piece.starts(with: Array("\r\n".utf8)) else { return nil }
                parts.append(Part(head: [], body: Array(piece.dropFirst(2))))
                continue
            }
            let head = String(decoding: piece[..<end], as: UTF8.self).components(separatedBy: "\r\n")
            parts.append(Part(head: head, body: Array(piece[(end + 4)...])))
        }
        return parts
    }

    private static func split(_ bytes: [UInt8], on separator: [UInt8]) -> [[UInt8]] {
        var pieces: [[UInt8]] = []
        var rest = bytes[...]
        while let found = index(of: separator, in: Array(rest)) {
            pieces.append(Array(rest.prefix(found)))
            rest = rest.dropFirst(found + separator.count)
        }
        pieces.append(Array(rest))
        return pieces
    }

    private static func index(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard haystack.count >= needle.count else { return nil }
        for start in 0...(haystack.count - needle.count) where haystack[start..<(start + needle.count)].elementsEqual(needle) {
            return start
        }
        return nil
    }
}
