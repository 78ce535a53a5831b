/// A `Content-Range` value for bytes (RFC 9110 §14.4): the part a 206 carries
/// (`bytes 100-199/1000`, `bytes 100-199/*`), or what a 416 says the whole is (`bytes */1000`).
package struct ContentRange: Sendable, Equatable {
    /// The first and last byte carried (inclusive); nil for an unsatisfied range (`*/total`).
    package var range: ClosedRange<Int64>?
    /// The whole representation's length; nil when the server does not know it (`/*`).
    package var completeLength: Int64?

    /// Creates a value.
    package init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Parses `text`; nil when it is not a well-formed bytes range (another unit, a last byte
    /// before the first, a range past the complete length, digits that overflow, or `*/*`).
    package init?(_ text: String) {
        var rest = Substring(text)
        guard rest.count > 6, rest.prefix(6).lowercased() == "bytes " else { return nil }
        rest = rest.dropFirst(6).drop { $0 == " " }
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let part = rest[..<slash], whole = rest[rest.index(after: slash)...]
        if whole == "*" {
            completeLength = nil
        } else {
            guard let length = Self.number(whole) else { return nil }
            completeLength = length
        }
        if part == "*" {
            guard completeLength != nil else { return nil }
            range = nil
            return
        }
        guard let dash = part.firstIndex(of: "-"), let first = Self.number(part[..<dash]),
              let last = Self.number(part[part.index(after: dash)...]), first <= last else { return nil }
        if let completeLength, last >= completeLength { return nil }
        range = first...last
    }

    /// Digits only, no sign, no overflow.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(text)
    }
}
