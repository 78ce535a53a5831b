import HTTPTypes

/// Writes HTTP/1.1 request heads and chunk framing (RFC 9112 §3, §7.1).
///
/// Every name, value, method and target is validated before the first byte is appended, so a
/// refused request leaves the buffer exactly as it was and nothing half-written can reach a
/// server.
package enum RequestEncoder {
    /// `\r\n`, written after each chunk's data (RFC 9112 §7.1).
    package static let chunkTerminator: [UInt8] = [0x0D, 0x0A]
    /// `0\r\n\r\n`: the last chunk and an empty trailer section (RFC 9112 §7.1).
    package static let lastChunk: [UInt8] = Array("0\r\n\r\n".utf8)

    /// Appends the request line, `Host`, the fields and the framing field to `buffer`.
    ///
    /// Order on the wire: `METHOD SP target SP HTTP/1.1`, then `Host` (RFC 9112 §3.2 asks a
    /// client to send it first; a `Host` in ``RequestHead/headerFields`` replaces
    /// ``RequestHead/host``, as curl's `-H Host:` does), then the fields in order without
    /// `Content-Length`/`Transfer-Encoding`, then the framing field, then CRLF.
    ///
    /// - Parameters:
    ///   - head: The request head.
    ///   - buffer: Receives the bytes; unchanged when this throws.
    /// - Throws: ``RequestEncodingError`` with `invalidMethod`, `invalidRequestTarget`,
    ///   `invalidFieldName`, `invalidFieldValue`, `invalidHost` or `invalidContentLength`.
    package static func encodeHead(_ head: RequestHead, into buffer: inout [UInt8]) throws(RequestEncodingError) {
        // MARK: Validate everything first.
        let method = head.method.rawValue
        guard HTTPSyntax.isToken(method) else {
            throw RequestEncodingError(.invalidMethod, detail: method)
        }
        guard HTTPSyntax.isRequestTarget(head.target) else {
            throw RequestEncodingError(.invalidRequestTarget, detail: head.target)
        }
        var hostOverride: Int? = nil
        var cookieFields = 0
        var fieldBytes = 0
        for index in head.headerFields.indices {
            let field = head.headerFields[index]
            // swift-http-types validates names and legalizes String values, but values built
            // from bytes or decoded keep what they were given: check the bytes we will write.
            guard HTTPSyntax.isToken(field.name.rawName) else {
                throw RequestEncodingError(.invalidFieldName, detail: field.name.rawName)
            }
            let valueLength = field.withUnsafeBytesOfValue { bytes in
                HTTPSyntax.isFieldValue(bytes) ? bytes.count : -1
            }
            guard valueLength >= 0 else {
                throw RequestEncodingError(.invalidFieldValue, detail: field.name.rawName)
            }
            // Lengths first: a string compare that fails takes the stdlib's slow path.
            let name = field.name.canonicalName
            let nameLength = name.utf8.count
            if hostOverride == nil && nameLength == 4 && name == "host" { hostOverride = index }
            if nameLength == 6 && name == "cookie" { cookieFields += 1 }
            fieldBytes += field.name.rawName.utf8.count + valueLength + 4
        }
        if hostOverride == nil {
            // Host is uri-host [":" port] (RFC 9110 §7.2): visible ASCII only, never empty.
            guard HTTPSyntax.isRequestTarget(head.host) else {
                throw RequestEncodingError(.invalidHost, detail: head.host)
            }
        }
        if case .contentLength(let length) = head.framing, length < 0 {
            throw RequestEncodingError(.invalidContentLength, detail: String(length))
        }

        // MARK: Write.
        buffer.reserveCapacity(buffer.count + method.utf8.count + head.target.utf8.count + head.host.utf8.count + fieldBytes + 64)
        HTTPSyntax.append(method, to: &buffer)
        buffer.append(HTTPSyntax.space)
        HTTPSyntax.append(head.target, to: &buffer)
        buffer.append(contentsOf: " HTTP/1.1\r\nHost: ".utf8)
        if let hostOverride {
            head.headerFields[hostOverride].withUnsafeBytesOfValue { buffer.append(contentsOf: $0) }
        } else {
            HTTPSyntax.append(head.host, to: &buffer)
        }
        buffer.append(contentsOf: HTTPSyntax.crlf)
        var cookiesWritten = false
        for field in head.headerFields where !RequestHead.isWrittenByEncoder(field.name.canonicalName) {
            // RFC 6265bis §5.8.3: one Cookie field. swift-http-types keeps cookie pairs as
            // fields of their own (HTTP/2's crumbs, RFC 9113 §8.2.3); HTTP/1.1 joins them.
            if cookieFields > 1 && field.name.canonicalName == "cookie" {
                if !cookiesWritten { appendJoinedCookies(of: head.headerFields, to: &buffer) }
                cookiesWritten = true
                continue
            }
            HTTPSyntax.append(field.name.rawName, to: &buffer)
            buffer.append(HTTPSyntax.colon)
            buffer.append(HTTPSyntax.space)
            field.withUnsafeBytesOfValue { buffer.append(contentsOf: $0) }
            buffer.append(contentsOf: HTTPSyntax.crlf)
        }
        switch head.framingField {
        case nil:
            break
        case .contentLength(let length)?:
            buffer.append(contentsOf: "Content-Length: ".utf8)
            appendDecimal(length, to: &buffer)
            buffer.append(contentsOf: HTTPSyntax.crlf)
        case .chunked?:
            buffer.append(contentsOf: "Transfer-Encoding: chunked\r\n".utf8)
        }
        buffer.append(contentsOf: HTTPSyntax.crlf)
    }

    /// Writes every Cookie field of `fields` as one, the values joined by `; `, named as the
    /// first is spelled.
    private static func appendJoinedCookies(of fields: HTTPFields, to buffer: inout [UInt8]) {
        var first = true
        for field in fields where field.name.canonicalName == "cookie" {
            if first {
                HTTPSyntax.append(field.name.rawName, to: &buffer)
                buffer.append(contentsOf: ": ".utf8)
                first = false
            } else {
                buffer.append(contentsOf: "; ".utf8)
            }
            field.withUnsafeBytesOfValue { buffer.append(contentsOf: $0) }
        }
        buffer.append(contentsOf: HTTPSyntax.crlf)
    }

    /// Appends a chunk-size line, `HEX\r\n` in lowercase hexadecimal (RFC 9112 §7.1).
    ///
    /// A size of zero is the last chunk; prefer ``lastChunk``, which also ends the trailers.
    /// - Parameters:
    ///   - size: The number of data bytes that follow; must not be negative.
    ///   - buffer: Receives the bytes.
    package static func encodeChunkHeader(size: Int, into buffer: inout [UInt8]) {
        precondition(size >= 0, "chunk size must not be negative")
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8,
                     UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        var count = 0
        var value = UInt(size)
        withUnsafeMutableBytes(of: &digits) { out in
            repeat {
                let nibble = UInt8(truncatingIfNeeded: value & 0xF)
                out[15 - count] = nibble < 10 ? 0x30 &+ nibble : 0x61 &+ nibble &- 10
                count += 1
                value >>= 4
            } while value != 0
            buffer.append(contentsOf: UnsafeRawBufferPointer(rebasing: out[(16 - count)...]))
        }
        buffer.append(contentsOf: HTTPSyntax.crlf)
    }

    /// Appends the decimal digits of a non-negative `value` without going through `String`.
    private static func appendDecimal(_ value: Int64, to buffer: inout [UInt8]) {
        var divisor: Int64 = 1
        while divisor <= value / 10 { divisor *= 10 }
        var rest = value
        repeat {
            buffer.append(0x30 &+ UInt8(truncatingIfNeeded: rest / divisor))
            rest %= divisor
            divisor /= 10
        } while divisor > 0
    }
}
