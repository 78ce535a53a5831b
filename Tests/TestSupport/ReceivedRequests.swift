// Reads back what a test server received, as strictly as a careful server would, so a test can
// tell "one well-formed request" from "a request with something smuggled into it".

/// One request as ``ReceivedRequests/parse(_:)`` read it from the raw bytes.
public struct ReceivedRequest: Sendable {
    /// The method, a token.
    public let method: String
    /// The request target, visible ASCII only.
    public let target: String
    /// The fields in wire order, names as received, values without surrounding spaces.
    public let fields: [(name: String, value: String)]
    /// The body, as its Content-Length framed it (empty without one).
    public let body: [UInt8]

    /// The values of field `name` (case-insensitive), in order.
    public func values(of name: String) -> [String] {
        let lowered = name.lowercased()
        return fields.filter { $0.name.lowercased() == lowered }.map(\.value)
    }

    /// The names of the fields, lower-cased, in order.
    public var fieldNames: [String] { fields.map { $0.name.lowercased() } }
}

/// Splits a server's received bytes into requests with RFC 9112's rules and nothing lenient:
/// every line ends in CRLF; no other CR, LF, NUL or control byte (HTAB aside) appears in a head;
/// the request line is `token SP target SP HTTP/1.1`; a field line is `token ":" value`, never
/// folded; a body is framed by one Content-Length, and Transfer-Encoding is refused (the
/// tests that use this send none). Any byte left over is an error too.
public enum ReceivedRequests {
    /// Why the bytes are not a sequence of well-formed requests.
    public struct Malformed: Error, Sendable, CustomStringConvertible {
        /// What was wrong, and where.
        public let description: String
    }

    /// The requests in `bytes`, in order; `[]` for no bytes.
    /// - Throws: ``Malformed`` naming the first rule broken.
    public static func parse(_ bytes: [UInt8]) throws(Malformed) -> [ReceivedRequest] {
        var requests: [ReceivedRequest] = []
        var start = 0
        while start < bytes.count {
            var lines: [[UInt8]] = []
            var position = start
            while true {
                guard let lf = bytes[position...].firstIndex(of: 0x0A) else {
                    throw Malformed(description: "request \(requests.count): head not ended by an empty line")
                }
                guard lf > position, bytes[lf - 1] == 0x0D else {
                    throw Malformed(description: "request \(requests.count): bare LF at byte \(lf)")
                }
                let line = Array(bytes[position..<(lf - 1)])
                position = lf + 1
                if line.isEmpty { break }
                if let bad = line.firstIndex(where: { ($0 < 0x20 && $0 != 0x09) || $0 == 0x7F }) {
                    throw Malformed(description: "request \(requests.count): control byte \(line[bad]) in \(String(decoding: line, as: UTF8.self).debugDescription)")
                }
                lines.append(line)
            }
            guard !lines.isEmpty else { throw Malformed(description: "request \(requests.count): empty head") }
            let head: ProxyRequestHead
            do {
                head = try ProxyRequestHead.parse(lines)
            } catch {
                throw Malformed(description: "request \(requests.count): \(error)")
            }
            guard head.version == "HTTP/1.1" else { throw Malformed(description: "request \(requests.count): \(head.version)") }
            guard head.values(of: "transfer-encoding").isEmpty else {
                throw Malformed(description: "request \(requests.count): Transfer-Encoding")
            }
            let lengths = head.values(of: "content-length")
            guard lengths.count <= 1 else { throw Malformed(description: "request \(requests.count): \(lengths.count) Content-Length fields") }
            var length = 0
            if let text = lengths.first {
                guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let value = Int(text) else {
                    throw Malformed(description: "request \(requests.count): Content-Length \(text.debugDescription)")
                }
                length = value
            }
            guard bytes.count - position >= length else {
                throw Malformed(description: "request \(requests.count): body shorter than its Content-Length \(length)")
            }
            requests.append(ReceivedRequest(
                method: head.method, target: head.target, fields: head.fields, body: Array(bytes[position..<(position + length)])))
            start = position + length
        }
        return requests
    }
}
