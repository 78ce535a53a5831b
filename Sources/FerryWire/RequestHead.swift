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

// MARK: - The head as it goes on the wire

/// The framing field a request head carries, decided in one place for the encoder and for
/// anyone reporting the head as sent.
package enum FramingField: Sendable, Hashable {
    /// `Content-Length: n`.
    case contentLength(Int64)
    /// `Transfer-Encoding: chunked`.
    case chunked
}

extension RequestHead {
    /// The framing field written after the caller's fields, if any.
    ///
    /// RFC 9110 §8.6: a user agent SHOULD send Content-Length for a method that anticipates
    /// content even when there is none; curl and URLSession send `Content-Length: 0` for POST,
    /// PUT and PATCH without a body.
    package var framingField: FramingField? {
        switch framing {
        case .none:
            switch method {
            case .post, .put, .patch: return .contentLength(0)
            default: return nil
            }
        case .contentLength(let length): return .contentLength(length)
        case .chunked: return .chunked
        }
    }

    /// `true` for the fields the encoder writes itself and so drops from ``headerFields``:
    /// `Host` (written first, once) and the framing fields (``framing`` decides them, so a
    /// body can never be framed two ways, RFC 9112 §6.3 rule 3).
    package static func isWrittenByEncoder(_ canonicalName: String) -> Bool {
        // The length first: a String compare that fails takes the stdlib's slow path.
        switch canonicalName.utf8.count {
        case 4: return canonicalName == "host"
        case 14: return canonicalName == "content-length"
        case 17: return canonicalName == "transfer-encoding"
        default: return false
        }
    }

    /// The fields exactly as ``RequestEncoder/encodeHead(_:into:)`` writes them: `Host` first
    /// (a `Host` in ``headerFields`` replaces ``host``), the caller's fields without the ones
    /// the encoder writes itself, then the framing field. For reporting, not the hot path.
    package var fieldsAsSent: HTTPFields {
        var fields = HTTPFields()
        // swift-http-types hides `.host` (HTTP/2 carries it as :authority), so find it by name.
        if let override = headerFields.first(where: { $0.name.canonicalName == "host" }) {
            fields.append(override)
        } else if let hostName = HTTPField.Name("Host") {
            fields.append(HTTPField(name: hostName, value: host))
        }
        var cookiesAdded = false
        for field in headerFields where !Self.isWrittenByEncoder(field.name.canonicalName) {
            // One Cookie field, as the encoder writes it.
            if field.name == .cookie {
                if !cookiesAdded, let joined = headerFields[.cookie] { fields.append(HTTPField(name: field.name, value: joined)) }
                cookiesAdded = true
                continue
            }
            fields.append(field)
        }
        switch framingField {
        case .contentLength(let length)?: fields.append(HTTPField(name: .contentLength, value: String(length)))
        case .chunked?: fields.append(HTTPField(name: .transferEncoding, value: "chunked"))
        case nil: break
        }
        return fields
    }
}
