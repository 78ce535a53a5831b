// ForwardProxy's request parsing: a strict reader for request heads (RFC 9112 §2-§5), the
// request's body framing (§6.3) and its target, absolute-form or authority-form (§3.2).

/// Internal: a request head as ``ForwardProxy`` read it, already checked for the errors that
/// get a 400: a bad request line, a field line without a colon or with a space before it, an
/// obs-fold, control characters, too many fields or too many bytes.
struct ProxyRequestHead {
    /// Why reading a head failed.
    enum Failure: Error {
        /// The peer closed, a wait timed out or the proxy is shutting down: end quietly.
        case ended
        /// The head breaks a rule; the text says which (it goes into the 400's body).
        case malformed(String)
    }

    let method: String
    let target: String
    /// `"HTTP/1.1"` or `"HTTP/1.0"`.
    let version: String
    /// The fields in wire order, names as received, values without surrounding spaces.
    let fields: [(name: String, value: String)]

    /// Reads one head from `socket`, skipping empty lines before the request line.
    /// - Parameters:
    ///   - socket: the client's socket.
    ///   - limit: the most bytes the head may take.
    ///   - maxFields: the most field lines.
    static func read(from socket: inout BufferedSocket, limit: Int, maxFields: Int) throws(Failure) -> ProxyRequestHead {
        var lines: [[UInt8]] = []
        var total = 0
        while true {
            let line: [UInt8]
            do {
                line = try socket.readLine(limit: limit)
            } catch .malformed(let why) {
                throw .malformed(why)
            } catch {
                throw .ended
            }
            total += line.count + 2
            if total > limit { throw .malformed("head larger than \(limit) bytes") }
            if line.isEmpty {
                if lines.isEmpty { continue }  // RFC 9112 §2.2: empty lines before a request line
                break
            }
            if lines.count > maxFields { throw .malformed("more than \(maxFields) field lines") }
            lines.append(line)
        }
        return try parse(lines)
    }

    /// Parses the request line and field lines (without their CRLFs).
    static func parse(_ lines: [[UInt8]]) throws(Failure) -> ProxyRequestHead {
        let requestLine = lines[0]
        guard requestLine.allSatisfy({ $0 > 0x20 && $0 < 0x7F || $0 == 0x20 }) else {
            throw .malformed("request line with control or non-ASCII bytes")
        }
        let parts = requestLine.split(separator: 0x20, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, parts[0].allSatisfy(isTokenByte) else {
            throw .malformed("request line is not 'METHOD target HTTP/1.x'")
        }
        let version = String(decoding: parts[2], as: UTF8.self)
        guard version == "HTTP/1.1" || version == "HTTP/1.0" else { throw .malformed("version \(version) not HTTP/1.1 or HTTP/1.0") }
        var fields: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard line.first != 0x20, line.first != 0x09 else { throw .malformed("obs-fold (a field line starting with white space)") }
            guard let colon = line.firstIndex(of: UInt8(ascii: ":")) else { throw .malformed("field line without a colon") }
            let name = line[..<colon]
            guard !name.isEmpty, name.allSatisfy(isTokenByte) else { throw .malformed("bad field name (or white space before the colon)") }
            let value = line[(colon + 1)...]
            guard !value.contains(where: { $0 == 0 || $0 == 0x0D || $0 == 0x0A }) else { throw .malformed("NUL or CR in a field value") }
            fields.append((String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self).trimmingSpaces))
        }
        return ProxyRequestHead(
            method: String(decoding: parts[0], as: UTF8.self), target: String(decoding: parts[1], as: UTF8.self),
            version: version, fields: fields)
    }

    /// The values of field `name` (case-insensitive), in order.
    func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// The comma-separated elements of every `name` field, lower-cased (`Connection: close, TE`).
    func tokens(of name: String) -> [String] {
        values(of: name).flatMap { $0.split(separator: ",") }.map { String($0).trimmingSpaces.lowercased() }
            .filter { !$0.isEmpty }
    }

    /// Whether the client keeps the connection after this exchange: HTTP/1.1 unless it says
    /// `close` (in `Connection` or the old `Proxy-Connection`); HTTP/1.0 only with `keep-alive`.
    var keepsAlive: Bool {
        let tokens = tokens(of: "connection") + tokens(of: "proxy-connection")
        if tokens.contains("close") { return false }
        return version == "HTTP/1.1" || tokens.contains("keep-alive")
    }

    /// Whether the client waits for `100 Continue` before sending the body.
    var expectsContinue: Bool {
        values(of: "expect").contains { $0.lowercased() == "100-continue" }
    }

    /// The body framing (RFC 9112 §6.3); a message that cannot be framed safely is malformed.
    func bodyFraming() throws(Failure) -> ProxyBodyFraming {
        let codings = tokens(of: "transfer-encoding")
        let lengths = values(of: "content-length")
        if !codings.isEmpty {
            guard lengths.isEmpty else { throw .malformed("both Transfer-Encoding and Content-Length") }
            guard codings.last == "chunked" else { throw .malformed("Transfer-Encoding without final chunked") }
            return .chunked
        }
        guard let first = lengths.first else { return .none }
        let elements = lengths.flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { String($0).trimmingSpaces }
        guard elements.allSatisfy({ $0 == elements[0] }), elements[0].count <= 18,
              !elements[0].isEmpty, elements[0].utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
              let length = Int(elements[0]) else {
            throw .malformed("bad Content-Length '\(first)'")
        }
        return length == 0 ? .none : .length(length)
    }

    /// The head for ``ForwardProxy/receivedRequests``.
    var recorded: RecordedRequestHead {
        RecordedRequestHead(method: method, uri: target, version: version, headers: fields)
    }

    /// RFC 9110 §5.6.2 tchar.
    static func isTokenByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return true
        default:
            return Array("!#$%&'*+-.^_`|~".utf8).contains(byte)
        }
    }
}

/// Internal: where a request or tunnel goes, parsed from its request target.
struct ProxyTarget: Equatable {
    /// The host as written, without brackets: `127.0.0.1`, `localhost`, `::1`, `example.com`.
    let host: String
    /// The port; 80 when an `http` URI names none.
    let port: Int
    /// `host[:port]` as the target wrote it (brackets kept): the forwarded `Host` field.
    let authority: String
    /// The origin-form target forwarded (`/path?query`); empty for authority-form.
    let originForm: String

    /// Parses an absolute-form target, `http://host[:port][/path][?query]`.
    /// - Returns: the target, or a reason for the 400.
    static func absoluteForm(_ target: String) -> Result<ProxyTarget, ProxyRequestHead.Failure> {
        guard target.lowercased().hasPrefix("http://") else {
            if target.hasPrefix("/") || target == "*" {
                return .failure(.malformed("a proxy needs an absolute-form target (http://host:port/path), not '\(target)'"))
            }
            return .failure(.malformed("only http:// absolute-form targets are forwarded, not '\(target)'"))
        }
        guard !target.contains("#") else { return .failure(.malformed("a fragment in the request target")) }
        let rest = target.dropFirst("http://".count)
        let end = rest.firstIndex { $0 == "/" || $0 == "?" } ?? rest.endIndex
        var path = String(rest[end...])
        if path.isEmpty { path = "/" } else if path.hasPrefix("?") { path = "/" + path }
        return authority(String(rest[..<end]), defaultPort: 80).map { parsed in
            ProxyTarget(host: parsed.host, port: parsed.port, authority: parsed.authority, originForm: path)
        }
    }

    /// Parses an authority-form target (CONNECT), `host:port`; the port is required.
    /// - Returns: the target, or a reason for the 400.
    static func authorityForm(_ target: String) -> Result<ProxyTarget, ProxyRequestHead.Failure> {
        authority(target, defaultPort: nil)
    }

    private static func authority(_ text: String, defaultPort: Int?) -> Result<ProxyTarget, ProxyRequestHead.Failure> {
        let bad = ProxyRequestHead.Failure.malformed("bad authority '\(text)'")
        guard !text.contains("@") else { return .failure(.malformed("user info in the request target")) }
        var host: Substring
        var portText: Substring?
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return .failure(bad) }
            host = text[text.index(after: text.startIndex)..<close]
            let after = text[text.index(after: close)...]
            if !after.isEmpty {
                guard after.first == ":" else { return .failure(bad) }
                portText = after.dropFirst()
            }
        } else {
            let pieces = text.split(separator: ":", omittingEmptySubsequences: false)
            guard pieces.count <= 2 else { return .failure(bad) }
            host = pieces[0]
            if pieces.count == 2 { portText = pieces[1] }
        }
        guard !host.isEmpty, host.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "/") }) else {
            return .failure(bad)
        }
        let port: Int
        if let portText {
            guard !portText.isEmpty, portText.count <= 5, portText.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }),
                  let number = Int(portText), number > 0, number <= 65535 else {
                return .failure(bad)
            }
            port = number
        } else {
            guard let defaultPort else { return .failure(.malformed("CONNECT needs host:port, not '\(text)'")) }
            port = defaultPort
        }
        return .success(ProxyTarget(host: String(host), port: port, authority: text, originForm: ""))
    }

    /// `host:port` for the record (IPv6 in brackets).
    var hostAndPort: String {
        host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)"
    }

    /// The loopback addresses to try, in order; empty when the host is not this machine's
    /// (`127.0.0.1`, `::1` or `localhost`): the proxy never connects anywhere else.
    var loopbackAddresses: [String] {
        switch host.lowercased() {
        case "127.0.0.1": return ["127.0.0.1"]
        case "::1": return ["::1"]
        case "localhost": return ["127.0.0.1", "::1"]
        default: return []
        }
    }
}
