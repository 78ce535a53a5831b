import FerryWire

/// A response body whose Content-Encoding could not be decoded, or that broke a decoding limit.
public struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong: one of the static members of ``ErrorKind`` for this domain. An open set.
    public typealias Kind = ErrorKind<ContentDecodingError>

    /// What was wrong.
    public let kind: Kind
    /// The encoding involved (`gzip`, `deflate`, …).
    public let encoding: String
    /// zlib's message or another detail, when there is one.
    public let detail: String?

    /// Creates an error of `kind` while decoding `encoding`.
    public init(_ kind: Kind, encoding: String, detail: String? = nil) {
        self.kind = kind
        self.encoding = encoding
        self.detail = detail
    }

    /// `corrupt compressed data in gzip: incorrect header check`.
    public var description: String {
        let base = "\(kind.text) in \(encoding)"
        return detail.map { "\(base): \($0)" } ?? base
    }
}

/// The kinds of ``ContentDecodingError``.
extension ErrorKind where Domain == ContentDecodingError {
    /// The compressed data is corrupt (zlib reported a data error).
    public static var corruptData: Self { Self("corruptData", text: "corrupt compressed data") }
    /// The body ended before the compressed stream did.
    public static var truncatedStream: Self { Self("truncatedStream", text: "compressed stream cut short") }
    /// The decoded body would exceed the configured maximum size.
    public static var decodedSizeLimitExceeded: Self { Self("decodedSizeLimitExceeded", text: "decoded body over the size limit") }
    /// The decoded body grew more than the allowed ratio over its encoded size (a bomb).
    public static var expansionRatioExceeded: Self { Self("expansionRatioExceeded", text: "decoded body expands too much (a decompression bomb?)") }
    /// More stacked encodings than allowed.
    public static var tooManyEncodings: Self { Self("tooManyEncodings", text: "too many stacked encodings") }
    /// An encoding Ferry does not decode.
    public static var unsupportedEncoding: Self { Self("unsupportedEncoding", text: "unsupported content encoding") }
    /// zlib failed for a reason other than bad data (for example out of memory).
    public static var libraryFailure: Self { Self("libraryFailure", text: "zlib failure") }
}
