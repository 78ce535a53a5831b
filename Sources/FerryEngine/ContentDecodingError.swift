/// A response body whose Content-Encoding could not be decoded, or that broke a decoding limit.
public struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong. An open set.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A short stable name.
        public let name: String
        /// Creates a kind from its stable name.
        public init(_ name: String) { self.name = name }
        /// The stable name.
        public var description: String { name }

        /// The compressed data is corrupt (zlib reported a data error).
        public static let corruptData = Kind("corruptData")
        /// The body ended before the compressed stream did.
        public static let truncatedStream = Kind("truncatedStream")
        /// The decoded body would exceed the configured maximum size.
        public static let decodedSizeLimitExceeded = Kind("decodedSizeLimitExceeded")
        /// The decoded body grew more than the allowed ratio over its encoded size (a bomb).
        public static let expansionRatioExceeded = Kind("expansionRatioExceeded")
        /// More stacked encodings than allowed.
        public static let tooManyEncodings = Kind("tooManyEncodings")
        /// An encoding Ferry does not decode.
        public static let unsupportedEncoding = Kind("unsupportedEncoding")
        /// zlib failed for a reason other than bad data (for example out of memory).
        public static let libraryFailure = Kind("libraryFailure")
    }

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

    /// `corruptData in gzip: incorrect header check`.
    public var description: String {
        let base = "\(kind) in \(encoding)"
        return detail.map { "\(base): \($0)" } ?? base
    }
}
