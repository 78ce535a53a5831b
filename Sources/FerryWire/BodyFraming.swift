import HTTPTypes

/// How a response body is delimited (RFC 9112 §6.3).
package enum BodyFraming: Sendable, Hashable {
    /// No body follows the head.
    case none
    /// Exactly this many bytes follow.
    case contentLength(Int64)
    /// The body is chunked (RFC 9112 §7.1); trailers may follow the last chunk.
    case chunked
    /// The body runs until the server closes the connection.
    case untilClose

    /// The outcome of ``decide(statusCode:version:requestMethod:headerFields:)``.
    package struct Decision: Sendable, Hashable {
        /// How the body is delimited.
        package var framing: BodyFraming
        /// Whether the connection may carry another exchange afterwards.
        package var keepAlive: Bool

        /// Creates a decision.
        package init(framing: BodyFraming, keepAlive: Bool) {
            self.framing = framing
            self.keepAlive = keepAlive
        }
    }

    /// Why framing could not be decided, and which field (by index in the header fields) is to
    /// blame, so the parser can point its ``HTTPParseError/offset`` at that field line.
    package struct Failure: Error, Sendable, Hashable {
        /// `invalidContentLength` or `conflictingContentLength`.
        package var kind: HTTPParseError.Kind
        /// Index of the offending field in the header fields.
        package var fieldIndex: Int

        /// Creates a failure.
        package init(_ kind: HTTPParseError.Kind, fieldIndex: Int) {
            self.kind = kind
            self.fieldIndex = fieldIndex
        }
    }

    /// Decides the framing and connection reuse of a response, applying RFC 9112 §6.3 in its
    /// order. This is the only place Ferry makes that decision.
    ///
    /// - Parameters:
    ///   - statusCode: The status code.
    ///   - version: The version on the status line.
    ///   - requestMethod: The method of the request this response answers.
    ///   - headerFields: The response fields.
    /// - Throws: ``Failure`` with `invalidContentLength` (a value that is empty, not decimal,
    ///   or does not fit in 63 bits) or `conflictingContentLength` (values that differ).
    package static func decide(
        statusCode: Int,
        version: HTTPVersion,
        requestMethod: HTTPRequest.Method,
        headerFields: HTTPFields
    ) throws(Failure) -> Decision {
        // One pass over the fields gathers everything the rules below need.
        var hasTransferEncoding = false
        var chunkedIsFinal = false
        var contentLength: Int64? = nil
        var contentLengthFailure: Failure? = nil
        var hasContentLength = false
        var connectionClose = false
        var connectionKeepAlive = false
        for index in headerFields.indices {
            let field = headerFields[index]
            let name = field.name.canonicalName
            // The length first: a String compare that fails takes the stdlib's slow path, and
            // most fields are none of these three.
            switch name.utf8.count {
            case 17 where name == "transfer-encoding":
                hasTransferEncoding = true
                // RFC 9112 §6.1: codings are listed in the order applied; only the final one
                // tells whether the body is chunked. Later fields continue the list.
                field.withUnsafeBytesOfValue { value in
                    HTTPSyntax.forEachListElement(UnsafeRawBufferPointer(value)) { coding in
                        if !coding.isEmpty { chunkedIsFinal = HTTPSyntax.equalsIgnoringCase(coding, "chunked") }
                    }
                }
            case 14 where name == "content-length":
                hasContentLength = true
                if contentLengthFailure != nil { continue }
                contentLengthFailure = field.withUnsafeBytesOfValue { value -> Failure? in
                    var failure: Failure? = nil
                    // RFC 9110 §8.6 / RFC 9112 §6.3 rule 5: a list of identical values (from
                    // repeated fields or a comma list) is one length; anything else is invalid.
                    HTTPSyntax.forEachListElement(UnsafeRawBufferPointer(value)) { element in
                        guard failure == nil else { return }
                        guard let length = parseDecimal(element) else {
                            failure = Failure(.invalidContentLength, fieldIndex: index)
                            return
                        }
                        if let contentLength, contentLength != length {
                            failure = Failure(.conflictingContentLength, fieldIndex: index)
                        } else {
                            contentLength = length
                        }
                    }
                    return failure
                }
            case 10 where name == "connection":
                // RFC 9112 §9.3, §9.6: connection options are case-insensitive tokens.
                field.withUnsafeBytesOfValue { value in
                    HTTPSyntax.forEachListElement(UnsafeRawBufferPointer(value)) { option in
                        if HTTPSyntax.equalsIgnoringCase(option, "close") { connectionClose = true }
                        if HTTPSyntax.equalsIgnoringCase(option, "keep-alive") { connectionKeepAlive = true }
                    }
                }
            default:
                continue
            }
        }

        // RFC 9112 §9.3: HTTP/1.1 (and any later 1.x) persists unless told to close;
        // HTTP/1.0 only persists when the server answers `Connection: keep-alive`.
        let isHTTP11 = version.major > 1 || (version.major == 1 && version.minor >= 1)
        let keepAlive = !connectionClose && (isHTTP11 || connectionKeepAlive)

        // Rule 1: responses to HEAD, 1xx, 204 and 304 end at the head. 101 switches protocols:
        // the connection is no longer HTTP/1.1, so it can't be reused.
        if statusCode == 101 { return Decision(framing: .none, keepAlive: false) }
        if requestMethod == .head || (100...199).contains(statusCode) || statusCode == 204 || statusCode == 304 {
            return Decision(framing: .none, keepAlive: keepAlive)
        }
        // Rule 2: a 2xx to CONNECT turns the connection into a tunnel; no body, no reuse.
        if requestMethod == .connect && (200...299).contains(statusCode) {
            return Decision(framing: .none, keepAlive: false)
        }
        // Rule 3: Transfer-Encoding overrides Content-Length. Both together smell of
        // smuggling (RFC 9112 §6.1, §11.2): read this message, then close. HTTP/1.0 has no
        // Transfer-Encoding, so its framing is faulty: close after it too (§6.1).
        if hasTransferEncoding {
            guard chunkedIsFinal else {
                // Chunked not final: the body is delimited by close.
                return Decision(framing: .untilClose, keepAlive: false)
            }
            return Decision(framing: .chunked, keepAlive: keepAlive && !hasContentLength && isHTTP11)
        }
        // Rules 4 and 5: a valid Content-Length, else the framing is invalid.
        if let contentLengthFailure { throw contentLengthFailure }
        if let contentLength { return Decision(framing: .contentLength(contentLength), keepAlive: keepAlive) }
        // Rule 7 (rule 6 is for requests): read until the server closes.
        return Decision(framing: .untilClose, keepAlive: false)
    }

    /// `1*DIGIT` as a non-negative `Int64`, or `nil` when empty, not decimal or too large.
    private static func parseDecimal(_ bytes: UnsafeRawBufferPointer) -> Int64? {
        guard !bytes.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in bytes {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (shifted, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int64(byte &- 0x30))
            if overflow1 || overflow2 { return nil }
            value = sum
        }
        return value
    }
}
