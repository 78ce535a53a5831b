/// A response that breaks HTTP/1.1 syntax or one of Ferry's limits.
///
/// ``offset`` counts bytes from the first byte of the response (the start of its status line,
/// or of the first interim 1xx response before it), so a failure can be located in a capture
/// and `incompleteHead` at offset 0 always means the server sent nothing.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong. An open set: new kinds may be added without breaking callers.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A short stable name, such as `invalidChunkSize`.
        public let name: String
        /// Creates a kind from its stable name.
        public init(_ name: String) { self.name = name }
        /// The stable name.
        public var description: String { name }

        /// The status line is not `HTTP/1.x SP 3DIGIT SP reason`.
        public static let invalidStatusLine = Kind("invalidStatusLine")
        /// The major version is not 1. (HTTP/1.x with x > 1 is read as HTTP/1.1, RFC 9110 §2.5.)
        public static let unsupportedVersion = Kind("unsupportedVersion")
        /// A field name is not a token (RFC 9110 §5.1).
        public static let invalidFieldName = Kind("invalidFieldName")
        /// A field value holds a forbidden byte: NUL, a bare CR, or another control byte.
        public static let invalidFieldValue = Kind("invalidFieldValue")
        /// A field line starts with white space (obs-fold, RFC 9112 §5.2).
        public static let obsoleteLineFolding = Kind("obsoleteLineFolding")
        /// A line ended with a bare CR, or a CR not followed by LF.
        public static let bareCarriageReturn = Kind("bareCarriageReturn")
        /// The status line is longer than ``ParserLimits/maxLineLength``.
        public static let statusLineTooLong = Kind("statusLineTooLong")
        /// A field line is longer than ``ParserLimits/maxLineLength``.
        public static let fieldLineTooLong = Kind("fieldLineTooLong")
        /// The header section is larger than ``ParserLimits/maxHeaderBytes``.
        public static let headerSectionTooLarge = Kind("headerSectionTooLarge")
        /// More fields than ``ParserLimits/maxFieldCount``.
        public static let tooManyFields = Kind("tooManyFields")
        /// Content-Length is not a non-negative decimal number.
        public static let invalidContentLength = Kind("invalidContentLength")
        /// Several Content-Length values that differ (RFC 9112 §6.3 rule 5).
        public static let conflictingContentLength = Kind("conflictingContentLength")
        /// A chunk size is not hexadecimal.
        public static let invalidChunkSize = Kind("invalidChunkSize")
        /// A chunk size does not fit in 63 bits.
        public static let chunkSizeOverflow = Kind("chunkSizeOverflow")
        /// A chunk is not followed by CRLF, or the chunk line is malformed.
        public static let invalidChunkFraming = Kind("invalidChunkFraming")
        /// Chunk extensions longer than ``ParserLimits/maxChunkExtensionBytes``.
        public static let chunkExtensionTooLong = Kind("chunkExtensionTooLong")
        /// The trailer section is larger than ``ParserLimits/maxTrailerBytes``.
        public static let trailersTooLarge = Kind("trailersTooLarge")
        /// Bytes arrived when no response was expected.
        public static let unexpectedData = Kind("unexpectedData")
        /// The input ended inside the response head.
        public static let incompleteHead = Kind("incompleteHead")
        /// The input ended before the body was complete.
        public static let incompleteBody = Kind("incompleteBody")
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

    /// `invalidChunkSize at byte 57`.
    public var description: String { "\(kind) at byte \(offset)" }
}

/// A request Ferry refuses to put on the wire.
///
/// Raised before any byte of the request is written, so nothing the caller did not ask for
/// (such as a smuggled header) ever reaches a server.
public struct RequestEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong. An open set.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        /// A short stable name.
        public let name: String
        /// Creates a kind from its stable name.
        public init(_ name: String) { self.name = name }
        /// The stable name.
        public var description: String { name }

        /// The method is not a token (RFC 9110 §9.1).
        public static let invalidMethod = Kind("invalidMethod")
        /// A field name is not a token (RFC 9110 §5.1).
        public static let invalidFieldName = Kind("invalidFieldName")
        /// A field value holds CR, LF, NUL or another forbidden byte (RFC 9110 §5.5).
        public static let invalidFieldValue = Kind("invalidFieldValue")
        /// The request target holds a space, a control byte or a non-ASCII byte.
        public static let invalidRequestTarget = Kind("invalidRequestTarget")
        /// The Host value is empty or malformed.
        public static let invalidHost = Kind("invalidHost")
        /// The announced body length is negative.
        public static let invalidContentLength = Kind("invalidContentLength")
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
    public var description: String { "\(kind): \(detail)" }
}
