import FerrySession
import FoundationEssentials
import HTTPTypes

/// AFNetworking's `AFHTTPResponseSerializer`: checks the status code and content type and
/// hands back the body as it came. The other response serializers validate with it first.
public struct HTTPResponseSerializer: ResponseSerializing {
    /// Status codes accepted; 200–299 by default; nil accepts any.
    public var acceptableStatusCodes: Set<Int>? = Set(200...299)
    /// MIME types accepted (lower case, without parameters); nil (the default) accepts any.
    public var acceptableContentTypes: Set<String>?

    /// A serializer accepting 2xx responses of any content type.
    public init() {}

    /// Refuses a response whose status or content type is not acceptable.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/badServerResponse`` for a status
    ///   (`Request failed: not found (404)`), ``NetworkError/Code/cannotDecodeContentData``
    ///   for a content type when there is a body (naming the type received, the acceptable
    ///   ones and the first bytes of the body); both carry the response and the body.
    public func validate(_ response: NetworkResponse, data: Data?) throws(NetworkError) {
        if let acceptableStatusCodes, !acceptableStatusCodes.contains(response.statusCode) {
            throw NetworkError(.badServerResponse, reason: "Request failed: \(Self.describe(response.status))"
                                   + Self.bodyStart(data), failingURL: response.url, response: response, responseData: data)
        }
        if let acceptableContentTypes, let data, !data.isEmpty {
            let received = response.mimeType
            guard let received, acceptableContentTypes.contains(received) else {
                let acceptable = acceptableContentTypes.sorted().joined(separator: ", ")
                throw NetworkError(.cannotDecodeContentData,
                                   reason: "Request failed: unacceptable content-type: \(received ?? "(none)") (\(response.statusCode);"
                                       + " acceptable: \(acceptable))" + Self.bodyStart(data),
                                   failingURL: response.url, response: response, responseData: data)
            }
        }
    }

    /// The body, once the response is valid (empty when there was none).
    public func serialize(_ response: NetworkResponse, data: Data?) throws(NetworkError) -> Data {
        try validate(response, data: data)
        return data ?? Data()
    }

    /// `not found (404)`: the reason phrase the server sent, else RFC 9110's.
    static func describe(_ status: HTTPResponse.Status) -> String {
        let phrase = status.reasonPhrase.isEmpty ? standardPhrases[status.code] ?? "" : status.reasonPhrase
        return phrase.isEmpty ? "status \(status.code)" : "\(phrase.lowercased()) (\(status.code))"
    }

    /// RFC 9110 §15's reason phrases (and 429, RFC 6585), for servers that send none.
    private static let standardPhrases: [Int: String] = [
        300: "Multiple Choices", 301: "Moved Permanently", 302: "Found", 303: "See Other", 304: "Not Modified",
        307: "Temporary Redirect", 308: "Permanent Redirect", 400: "Bad Request", 401: "Unauthorized",
        402: "Payment Required", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed", 406: "Not Acceptable",
        407: "Proxy Authentication Required", 408: "Request Timeout", 409: "Conflict", 410: "Gone",
        411: "Length Required", 412: "Precondition Failed", 413: "Content Too Large", 414: "URI Too Long",
        415: "Unsupported Media Type", 416: "Range Not Satisfiable", 417: "Expectation Failed",
        421: "Misdirected Request", 422: "Unprocessable Content", 426: "Upgrade Required", 429: "Too Many Requests",
        500: "Internal Server Error", 501: "Not Implemented", 502: "Bad Gateway", 503: "Service Unavailable",
        504: "Gateway Timeout", 505: "HTTP Version Not Supported",
    ]

    /// `; body begins: …` with the first 100 bytes of a body, printable, or nothing.
    static func bodyStart(_ data: Data?) -> String {
        guard let data, !data.isEmpty else { return "" }
        let text = String(decoding: data.prefix(100), as: UTF8.self)
            .map { $0.isASCII && ($0.asciiValue! < 0x20 || $0.asciiValue! == 0x7F) ? " " : String($0) }.joined()
        return "; body begins: \(text)\(data.count > 100 ? "…" : "")"
    }
}
