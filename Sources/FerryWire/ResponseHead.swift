import HTTPTypes

/// An HTTP version as it appeared on a status line (RFC 9112 §2.3).
package struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version; Ferry only speaks 1.
    package var major: Int
    /// The minor version.
    package var minor: Int

    /// Creates a version.
    package init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// HTTP/1.0.
    package static let http1_0 = HTTPVersion(major: 1, minor: 0)
    /// HTTP/1.1.
    package static let http1_1 = HTTPVersion(major: 1, minor: 1)

    /// `HTTP/1.1`.
    package var description: String { "HTTP/\(major).\(minor)" }
}

/// A parsed response head: status line, fields and the framing decided from them.
package struct ResponseHead: Sendable, Equatable {
    /// The version on the status line.
    package var version: HTTPVersion
    /// The status code and the reason phrase as sent (decoded as ISO Latin 1).
    package var status: HTTPResponse.Status
    /// The fields in the order received.
    package var headerFields: HTTPFields
    /// How the body is delimited (``BodyFraming/decide(statusCode:version:requestMethod:headerFields:)``).
    package var framing: BodyFraming
    /// Whether the connection may carry another exchange after this response.
    package var keepAlive: Bool

    /// Creates a head.
    package init(
        version: HTTPVersion,
        status: HTTPResponse.Status,
        headerFields: HTTPFields,
        framing: BodyFraming,
        keepAlive: Bool
    ) {
        self.version = version
        self.status = status
        self.headerFields = headerFields
        self.framing = framing
        self.keepAlive = keepAlive
    }

    /// Compares every property, including the reason phrase (which `HTTPResponse.Status`'s
    /// own `==` ignores) — tests want to see exactly what was sent.
    package static func == (lhs: ResponseHead, rhs: ResponseHead) -> Bool {
        lhs.version == rhs.version && lhs.status.code == rhs.status.code
            && lhs.status.reasonPhrase == rhs.status.reasonPhrase && lhs.headerFields == rhs.headerFields
            && lhs.framing == rhs.framing && lhs.keepAlive == rhs.keepAlive
    }
}
