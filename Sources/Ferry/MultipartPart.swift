import FerrySession
import FoundationEssentials

/// One part of a ``MultipartFormData``: its header block, written when it was added, and
/// where its body comes from.
struct MultipartPart: Sendable {
    /// Where a part's bytes come from.
    enum Body: Sendable {
        /// Bytes in memory.
        case bytes([UInt8])
        /// A regular file, and its size when the part was added.
        case file(path: String, size: Int64)
        /// A caller's chunks, which must add up to `length` bytes.
        case stream(RequestBody.ByteChunks, length: Int64)
    }

    /// What the part is called in error messages: its field name.
    let name: String
    /// The header lines, each ending in CRLF, and the empty line that ends them.
    let head: [UInt8]
    /// The body.
    let body: Body

    /// Whether the body is a caller's byte stream, which can be read once only.
    var isStream: Bool {
        if case .stream = body { return true }
        return false
    }

    /// The body's length in bytes.
    var bodyLength: Int64 {
        switch body {
        case .bytes(let bytes): Int64(bytes.count)
        case .file(_, let size): size
        case .stream(_, let length): length
        }
    }

    /// `Content-Disposition: form-data; name="…"` (and `; filename="…"`), then `Content-Type`
    /// when there is one, then the empty line. Names are escaped by ``escaped(_:)``.
    static func head(name: String, fileName: String? = nil) -> [UInt8] {
        var head = Array("Content-Disposition: form-data; name=\"".utf8)
        head += escaped(name)
        head.append(UInt8(ascii: "\""))
        if let fileName {
            head += "; filename=\"".utf8
            head += escaped(fileName)
            head.append(UInt8(ascii: "\""))
        }
        head += "\r\n\r\n".utf8
        return head
    }

    /// A file part's head: ``head(name:fileName:)`` with `Content-Type: mimeType`.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for a type with
    ///   CR, LF or another control character.
    static func head(name: String, fileName: String, mimeType: String) throws(NetworkError) -> [UInt8] {
        var head = Self.head(name: name, fileName: fileName)
        head.removeLast(2)
        head += try Self.head(headers: [(name: "Content-Type", value: mimeType)])
        return head
    }

    /// A head of the caller's fields, in order.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for a name that is
    ///   not a token or a value with CR, LF or NUL.
    static func head(headers: [(name: String, value: String)]) throws(NetworkError) -> [UInt8] {
        // NetworkRequest's setters hold the validation rules; borrow them, as
        // HTTPRequestSerializer does, rather than keep a second validator.
        var probe = NetworkRequest(url: URL(fileURLWithPath: "/"))
        for header in headers {
            try probe.addValue(header.value, forHTTPHeaderField: header.name)
        }
        var head: [UInt8] = []
        for field in probe.headerFields {
            head += field.name.rawName.utf8
            head += ": ".utf8
            head += field.value.utf8
            head += "\r\n".utf8
        }
        head += "\r\n".utf8
        return head
    }

    /// `text`'s UTF-8 for a quoted `Content-Disposition` parameter, as the HTML standard's
    /// multipart/form-data encoding (and curl) write it: `"` as `%22`, CR as `%0D`, LF as
    /// `%0A`; other characters, non-ASCII included, stay as they are, except that Ferry writes
    /// the remaining control characters but tab as `%XX` too, so a name never holds a byte
    /// that a header cannot.
    static func escaped(_ text: String) -> [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        for byte in text.utf8 {
            if byte == UInt8(ascii: "\"") || byte == 0x7F || (byte < 0x20 && byte != UInt8(ascii: "\t")) {
                output.append(UInt8(ascii: "%"))
                output.append(hexDigits[Int(byte >> 4)])
                output.append(hexDigits[Int(byte & 0x0F)])
            } else {
                output.append(byte)
            }
        }
        return output
    }

    private static let hexDigits = Array("0123456789ABCDEF".utf8)
}

/// A caller's async sequence of chunks as the `any Error` sequence a ``RequestBody`` streams.
struct ErasedByteChunks<Base: AsyncSequence & Sendable>: AsyncSequence, Sendable where Base.Element == [UInt8] {
    typealias Element = [UInt8]
    typealias Failure = any Error

    let base: Base

    init(_ base: Base) { self.base = base }

    func makeAsyncIterator() -> Iterator { Iterator(base: base.makeAsyncIterator()) }

    /// Forwards to the base iterator.
    struct Iterator: AsyncIteratorProtocol {
        typealias Element = [UInt8]
        typealias Failure = any Error

        var base: Base.AsyncIterator

        mutating func next() async throws -> [UInt8]? { try await base.next() }
    }
}
