/// A response that breaks HTTP/1.1 syntax or one of Ferry's limits.
///
/// ``offset`` counts bytes from the first byte of the response (the start of its status line,
/// or of the first interim 1xx response before it), so a failure can be located in a capture
/// and `incompleteHead` at offset 0 always means the server sent nothing.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong. An open set: new kinds may be added without breaking callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A short stable name, such as `invalidChunkSize`, for programs and logs.
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

        /// The status line is not `HTTP/1.x SP 3DIGIT SP reason`.
        public static let invalidStatusLine = Kind("invalidStatusLine", text: "malformed status line")
        /// The major version is not 1. (HTTP/1.x with x > 1 is read as HTTP/1.1, RFC 9110 §2.5.)
        public static let unsupportedVersion = Kind("unsupportedVersion", text: "unsupported HTTP version")
        /// A field name is not a token (RFC 9110 §5.1).
        public static let invalidFieldName = Kind("invalidFieldName", text: "invalid header name")
        /// A field value holds a forbidden byte: NUL, a bare CR, or another control byte.
        public static let invalidFieldValue = Kind("invalidFieldValue", text: "forbidden byte in a header value")
        /// A field line starts with white space (obs-fold, RFC 9112 §5.2).
        public static let obsoleteLineFolding = Kind("obsoleteLineFolding", text: "folded header line (obs-fold)")
        /// A line ended with a bare CR, or a CR not followed by LF.
        public static let bareCarriageReturn = Kind("bareCarriageReturn", text: "bare CR in a line end")
        /// The status line is longer than ``ParserLimits/maxLineLength``.
        public static let statusLineTooLong = Kind("statusLineTooLong", text: "status line too long")
        /// A field line is longer than ``ParserLimits/maxLineLength``.
        public static let fieldLineTooLong = Kind("fieldLineTooLong", text: "header line too long")
        /// The header section is larger than ``ParserLimits/maxHeaderBytes``.
        public static let headerSectionTooLarge = Kind("headerSectionTooLarge", text: "response head too large")
        /// More fields than ``ParserLimits/maxFieldCount``.
        public static let tooManyFields = Kind("tooManyFields", text: "too many header fields")
        /// Content-Length is not a non-negative decimal number.
        public static let invalidContentLength = Kind("invalidContentLength", text: "invalid Content-Length")
        /// Several Content-Length values that differ (RFC 9112 §6.3 rule 5).
        public static let conflictingContentLength = Kind("conflictingContentLength", text: "conflicting Content-Length values")
        /// A chunk size is not hexadecimal.
        public static let invalidChunkSize = Kind("invalidChunkSize", text: "invalid chunk size")
        /// A chunk size does not fit in 63 bits.
        public static let chunkSizeOverflow = Kind("chunkSizeOverflow", text: "chunk size too large")
        /// A chunk is not followed by CRLF, or the chunk line is malformed.
        public static let invalidChunkFraming = Kind("invalidChunkFraming", text: "malformed chunked framing")
        /// Chunk extensions longer than ``ParserLimits/maxChunkExtensionBytes``.
        public static let chunkExtensionTooLong = Kind("chunkExtensionTooLong", text: "chunk extensions too long")
        /// The trailer section is larger than ``ParserLimits/maxTrailerBytes``.
        public static let trailersTooLarge = Kind("trailersTooLarge", text: "trailer section too large")
        /// Bytes arrived when no response was expected.
        public static let unexpectedData = Kind("unexpectedData", text: "data nobody asked for")
        /// The input ended inside the response head.
        public static let incompleteHead = Kind("incompleteHead", text: "connection closed inside the response head")
        /// The input ended before the body was complete.
        public static let incompleteBody = Kind("incompleteBody", text: "connection closed inside the response body")
    }

    /// What was wrong.
    public let kind: Kind
    /// Offset of the offending byte (or, for `incomplete…`, of the missing one) from the start
    /// of the response.
    public let offset: Int

    /// Creates an error of `kind` at `offset`.
    public init(_ kind: Kind, offset: Int) {
        self.kind = kind
        self.offset = offset
    }

    /// `invalid chunk size at byte 57`.
    public var description: String { "\(kind.text) at byte \(offset)" }
}

/// A request Ferry refuses to put on the wire.
///
/// Raised before any byte of the request is written, so nothing the caller did not ask for
/// (such as a smuggled header) ever reaches a server.
public struct RequestEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
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

        /// The method is not a token (RFC 9110 §9.1).
        public static let invalidMethod = Kind("invalidMethod", text: "invalid method")
        /// A field name is not a token (RFC 9110 §5.1).
        public static let invalidFieldName = Kind("invalidFieldName", text: "invalid header name")
        /// A field value holds CR, LF, NUL or another forbidden byte (RFC 9110 §5.5).
        public static let invalidFieldValue = Kind("invalidFieldValue", text: "header value with CR, LF, NUL or another control byte")
        /// The request target holds a space, a control byte or a non-ASCII byte.
        public static let invalidRequestTarget = Kind("invalidRequestTarget", text: "invalid request target")
        /// The Host value is empty or malformed.
        public static let invalidHost = Kind("invalidHost", text: "invalid Host")
        /// The announced body length is negative.
        public static let invalidContentLength = Kind("invalidContentLength", text: "invalid Content-Length")
    }

    /// What was wrong.
    public let kind: Kind
    /// The offending name or value, shortened for display.
    public let detail: String

    /// Creates an error of `kind` about `detail`.
    public init(_ kind: Kind, detail: String) {
        self.kind = kind
        self.detail = String(detail.prefix(80))
    }

    /// `invalidFieldValue: X-Test`.
    public var description: String { "\(kind.text): \(detail)" }
}
