/// A response that breaks HTTP/1.1 syntax or one of Ferry's limits.
///
/// ``offset`` counts bytes from the first byte of the response (the start of its status line,
/// or of the first interim 1xx response before it), so a failure can be located in a capture
/// and `incompleteHead` at offset 0 always means the server sent nothing.
public struct HTTPParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong: one of the static members of ``ErrorKind`` for this domain. An open set.
    public typealias Kind = ErrorKind<HTTPParseError>

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

/// The kinds of ``HTTPParseError``.
extension ErrorKind where Domain == HTTPParseError {
    /// The status line is not `HTTP/1.x SP 3DIGIT SP reason`.
    public static var invalidStatusLine: Self { Self("invalidStatusLine", text: "malformed status line") }
    /// The major version is not 1. (HTTP/1.x with x > 1 is read as HTTP/1.1, RFC 9110 §2.5.)
    public static var unsupportedVersion: Self { Self("unsupportedVersion", text: "unsupported HTTP version") }
    /// A field name is not a token (RFC 9110 §5.1).
    public static var invalidFieldName: Self { Self("invalidFieldName", text: "invalid header name") }
    /// A field value holds a forbidden byte: NUL, a bare CR, or another control byte.
    public static var invalidFieldValue: Self { Self("invalidFieldValue", text: "forbidden byte in a header value") }
    /// A field line starts with white space (obs-fold, RFC 9112 §5.2).
    public static var obsoleteLineFolding: Self { Self("obsoleteLineFolding", text: "folded header line (obs-fold)") }
    /// A line ended with a bare CR, or a CR not followed by LF.
    public static var bareCarriageReturn: Self { Self("bareCarriageReturn", text: "bare CR in a line end") }
    /// The status line is longer than ``ParserLimits/maxLineLength``.
    public static var statusLineTooLong: Self { Self("statusLineTooLong", text: "status line too long") }
    /// A field line is longer than ``ParserLimits/maxLineLength``.
    public static var fieldLineTooLong: Self { Self("fieldLineTooLong", text: "header line too long") }
    /// The header section is larger than ``ParserLimits/maxHeaderBytes``.
    public static var headerSectionTooLarge: Self { Self("headerSectionTooLarge", text: "response head too large") }
    /// More fields than ``ParserLimits/maxFieldCount``.
    public static var tooManyFields: Self { Self("tooManyFields", text: "too many header fields") }
    /// Content-Length is not a non-negative decimal number.
    public static var invalidContentLength: Self { Self("invalidContentLength", text: "invalid Content-Length") }
    /// Several Content-Length values that differ (RFC 9112 §6.3 rule 5).
    public static var conflictingContentLength: Self { Self("conflictingContentLength", text: "conflicting Content-Length values") }
    /// A chunk size is not hexadecimal.
    public static var invalidChunkSize: Self { Self("invalidChunkSize", text: "invalid chunk size") }
    /// A chunk size does not fit in 63 bits.
    public static var chunkSizeOverflow: Self { Self("chunkSizeOverflow", text: "chunk size too large") }
    /// A chunk is not followed by CRLF, or the chunk line is malformed.
    public static var invalidChunkFraming: Self { Self("invalidChunkFraming", text: "malformed chunked framing") }
    /// Chunk extensions longer than ``ParserLimits/maxChunkExtensionBytes``.
    public static var chunkExtensionTooLong: Self { Self("chunkExtensionTooLong", text: "chunk extensions too long") }
    /// The trailer section is larger than ``ParserLimits/maxTrailerBytes``.
    public static var trailersTooLarge: Self { Self("trailersTooLarge", text: "trailer section too large") }
    /// Bytes arrived when no response was expected.
    public static var unexpectedData: Self { Self("unexpectedData", text: "data nobody asked for") }
    /// The input ended inside the response head.
    public static var incompleteHead: Self { Self("incompleteHead", text: "connection closed inside the response head") }
    /// The input ended before the body was complete.
    public static var incompleteBody: Self { Self("incompleteBody", text: "connection closed inside the response body") }
}

/// A request Ferry refuses to put on the wire.
///
/// Raised before any byte of the request is written, so nothing the caller did not ask for
/// (such as a smuggled header) ever reaches a server.
public struct RequestEncodingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was wrong: one of the static members of ``ErrorKind`` for this domain. An open set.
    public typealias Kind = ErrorKind<RequestEncodingError>

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

/// The kinds of ``RequestEncodingError``.
extension ErrorKind where Domain == RequestEncodingError {
    /// The method is not a token (RFC 9110 §9.1).
    public static var invalidMethod: Self { Self("invalidMethod", text: "invalid method") }
    /// A field name is not a token (RFC 9110 §5.1).
    public static var invalidFieldName: Self { Self("invalidFieldName", text: "invalid header name") }
    /// A field value holds CR, LF, NUL or another forbidden byte (RFC 9110 §5.5).
    public static var invalidFieldValue: Self { Self("invalidFieldValue", text: "header value with CR, LF, NUL or another control byte") }
    /// The request target holds a space, a control byte or a non-ASCII byte.
    public static var invalidRequestTarget: Self { Self("invalidRequestTarget", text: "invalid request target") }
    /// The Host value is empty or malformed.
    public static var invalidHost: Self { Self("invalidHost", text: "invalid Host") }
    /// The announced body length is negative.
    public static var invalidContentLength: Self { Self("invalidContentLength", text: "invalid Content-Length") }
}
