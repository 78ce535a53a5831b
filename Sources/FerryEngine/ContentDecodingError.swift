/// A response body whose Content-Encoding could not be decoded, or that broke a decoding limit.
public struct ContentDecodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong. An open set.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A short stable name, such as `corruptData`, for programs and logs.
        public let name: String
        /// A phrase for people, such as "malformed status line".
        public let text: String
        /// Creates a kind from its stable name and a phrase for people (the name if omitted).
        public init(_ name: String, text: String? = nil) {
            self.name = name
            self.text = text ?? name
        }
        /// Kinds are the same when their names are.
        public static func == (lhs: Kind, rhs: Kind) -> Bool { lhs.name == rhs.name }
        /// Hashes the name.
        public func hash(into hasher: inout Hasher) { hasher.combine(name) }
        /// The stable name.
        public var description: String { name }

        /// The compressed data is corrupt (zlib reported a data error).
        public static let corruptData = Kind("corruptData", text: "corrupt compressed data")
        /// The body ended before the compressed stream did.
        public static let truncatedStream = Kind("truncatedStream", text: "compressed stream cut short")
        /// The decoded body would exceed the configured maximum size.
        public static let decodedSizeLimitExceeded = Kind("decodedSizeLimitExceeded", text: "decoded body over the size limit")
        /// The decoded body grew more than the allowed ratio over its encoded size (a bomb).
        public static let expansionRatioExceeded = Kind("expansionRatioExceeded", text: "decoded body expands too much (a decompression bomb?)")
        /// More stacked encodings than allowed.
        public static let tooManyEncodings = Kind("tooManyEncodings", text: "too many stacked encodings")
        /// An encoding Ferry does not decode.
        public static let unsupportedEncoding = Kind("unsupportedEncoding", text: "unsupported content encoding")
        /// zlib failed for a reason other than bad data (for example out of memory).
        public static let libraryFailure = Kind("libraryFailure", text: "zlib failure")
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

    /// `corrupt compressed data in gzip: incorrect header check`.
    public var description: String {
        let base = "\(kind.text) in \(encoding)"
        return detail.map { "\(base): \($0)" } ?? base
    }
}
