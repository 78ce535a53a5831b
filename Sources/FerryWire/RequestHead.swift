import HTTPTypes

/// How the body of a request is delimited on the wire (RFC 9112 §6.1, §6.2).
package enum RequestBodyFraming: Sendable, Hashable {
    /// No body. POST, PUT and PATCH still announce `Content-Length: 0`.
    case none
    /// Exactly this many body bytes follow the head.
    case contentLength(Int64)
    /// The body follows in chunks (``RequestEncoder/encodeChunkHeader(size:into:)``).
    case chunked
}

/// Everything ``RequestEncoder`` needs to write a request head.
package struct RequestHead: Sendable, Hashable {
    /// The request method.
    package var method: HTTPRequest.Method
    /// The request target: origin-form `/path?query` (RFC 9112 §3.2.1), or absolute-form for
    /// a proxy (§3.2.2).
    package var target: String
    /// The Host value, such as `example.com:8080` or `[::1]:8080` (RFC 9110 §7.2). A `Host`
    /// field in ``headerFields`` overrides it.
    package var host: String
    /// Fields to send in order. `Content-Length` and `Transfer-Encoding` here are ignored:
    /// ``framing`` decides them, so a body can never be framed two ways.
    package var headerFields: HTTPFields
    /// How the body is delimited.
    package var framing: RequestBodyFraming

    /// Creates a request head.
    package init(
        method: HTTPRequest.Method,
        target: String,
        host: String,
        headerFields: HTTPFields = HTTPFields(),
        framing: RequestBodyFraming = .none
    ) {
        self.method = method
        self.target = target
        self.host = host
        self.headerFields = headerFields
        self.framing = framing
    }
}
