// A request as HTTPBinServer's routes see it: head, parsed query, and a capped body.
import Foundation
import NIOCore
import NIOHTTP1

/// Internal: one received request. The body is counted in full but stored only up to
/// ``storedBodyLimit`` so a huge upload never sits in memory.
struct HTTPBinRequest {
    /// The most body bytes kept for `"data"`, `"json"` and `"form"`.
    static let storedBodyLimit = 1024 * 1024

    let head: HTTPRequestHead
    /// `"http"`, or `"https"` behind the TLS test server.
    let scheme: String
    /// The path part of the target, not percent-decoded.
    let path: String
    /// The query's name/value pairs in order, percent-decoded (`+` is a space).
    let query: [(name: String, value: String)]
    /// The peer's IP address.
    let origin: String
    /// The first ``storedBodyLimit`` body bytes.
    private(set) var body: [UInt8] = []
    /// Every body byte received, stored or not.
    private(set) var bodyLength = 0

    init(head: HTTPRequestHead, scheme: String, origin: String) {
        self.head = head
        self.scheme = scheme
        self.origin = origin
        let target = head.uri
        if let mark = target.firstIndex(of: "?") {
            path = String(target[..<mark])
            query = Self.parseForm(String(target[target.index(after: mark)...]))
        } else {
            path = target
            query = []
        }
    }

    var method: HTTPMethod { head.method }
    var isHEAD: Bool { head.method == .HEAD }

    /// Counts `buffer` and keeps it while under the stored limit.
    mutating func append(_ buffer: ByteBuffer) {
        bodyLength += buffer.readableBytes
        let room = Self.storedBodyLimit - body.count
        if room > 0, let bytes = buffer.getBytes(at: buffer.readerIndex, length: min(room, buffer.readableBytes)) {
            body.append(contentsOf: bytes)
        }
    }

    /// The first value of header `name` (case-insensitive).
    func header(_ name: String) -> String? {
        head.headers.first(name: name)
    }

    /// The first value of query parameter `name`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// Query parameter `name` as an integer, `fallback` when absent, `nil` when not a number.
    func queryInt(_ name: String, default fallback: Int) -> Int? {
        guard let text = queryValue(name) else { return fallback }
        return Int(text)
    }

    /// Query parameter `name` as seconds, `fallback` when absent, `nil` when not a number.
    func querySeconds(_ name: String, default fallback: Double) -> Double? {
        guard let text = queryValue(name) else { return fallback }
        guard let value = Double(text), value.isFinite, value >= 0 else { return nil }
        return value
    }

    /// The scheme + the Host header (or the server address) + the target.
    func absoluteURL(fallbackHost: String) -> String {
        "\(scheme)://\(header("host") ?? fallbackHost)\(head.uri)"
    }

    /// The request's `Host` authority, for absolute redirects.
    func authority(fallbackHost: String) -> String {
        header("host") ?? fallbackHost
    }

    /// Parses `application/x-www-form-urlencoded` text (also the query syntax).
    static func parseForm(_ text: String) -> [(name: String, value: String)] {
        text.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = decode(parts[0])
            let value = parts.count > 1 ? decode(parts[1]) : ""
            return (name, value)
        }
    }

    private static func decode(_ text: Substring) -> String {
        let spaced = text.replacingOccurrences(of: "+", with: " ")
        return spaced.removingPercentEncoding ?? spaced
    }
}
