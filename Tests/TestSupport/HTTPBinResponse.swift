// What a HTTPBinServer route answers: status, fields and how the body is produced.
import NIOCore
import NIOHTTP1

/// Internal: a route's answer. The handler adds the framing fields (Content-Length or
/// Transfer-Encoding) from ``Body``, and writes it after ``delay``.
struct HTTPBinResponse {
    /// How the body is produced and framed.
    enum Body {
        /// No body: `Content-Length: 0`, or no framing at all for 204 and 304.
        case none
        /// These bytes with `Content-Length`.
        case bytes([UInt8])
        /// ``TestBytes`` pattern bytes `offset ..< offset + count`, written `chunkSize` at a
        /// time as the channel becomes writable; `Content-Length`, or chunked (one chunk per write).
        case pattern(offset: Int, count: Int, chunkSize: Int, chunked: Bool)
        /// `count` pattern bytes, one flushed write each, `interval` apart; `Content-Length`.
        case drip(count: Int, interval: TimeAmount)
        /// These bytes with no framing field: the body ends when the server closes.
        case untilClose([UInt8])
    }

    var status: HTTPResponseStatus
    var headers: HTTPHeaders
    var body: Body
    /// How long to wait before the head goes out.
    var delay: TimeAmount = .zero
    /// Close the connection after this response (`Connection: close` is added).
    var closeAfter = false

    init(status: HTTPResponseStatus, headers: HTTPHeaders = [:], body: Body = .none) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A JSON body with `Content-Type: application/json`.
    static func json(_ object: [String: Any], status: HTTPResponseStatus = .ok) -> HTTPBinResponse {
        HTTPBinResponse(
            status: status, headers: ["Content-Type": "application/json"], body: .bytes(HTTPBinJSON.encode(object)))
    }

    /// A `text/plain` body.
    static func text(_ text: String, status: HTTPResponseStatus) -> HTTPBinResponse {
        HTTPBinResponse(
            status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: .bytes(Array(text.utf8)))
    }

    /// A redirect to `location`.
    static func redirect(to location: String, status: HTTPResponseStatus = .found) -> HTTPBinResponse {
        HTTPBinResponse(status: status, headers: ["Location": location])
    }

    /// 400 with a reason, for parameters out of range.
    static func badRequest(_ reason: String) -> HTTPBinResponse {
        text(reason + "\n", status: .badRequest)
    }
}
