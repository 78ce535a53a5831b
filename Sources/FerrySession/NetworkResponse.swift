import FerryWire
import FoundationEssentials
import HTTPTypes

/// The head of an HTTP response: status, header fields and the URL it answers.
///
/// The counterpart of `HTTPURLResponse`.
public struct NetworkResponse: Sendable, Equatable {
    /// The URL of the request this responds to.
    public var url: URL
    /// Status code and reason phrase, as sent.
    public var status: HTTPResponse.Status
    /// Header fields, in order, duplicates kept.
    public var headerFields: HTTPFields
    /// `HTTP/1.1` or `HTTP/1.0`.
    public var httpVersion: String

    /// Creates a response.
    public init(url: URL, status: HTTPResponse.Status, headerFields: HTTPFields, httpVersion: String = "HTTP/1.1") {
        self.url = url
        self.status = status
        self.headerFields = headerFields
        self.httpVersion = httpVersion
    }

    /// The status code, such as 200.
    public var statusCode: Int { status.code }

    /// The announced body length (Content-Length), or `nil` when unknown or when the body is
    /// content-decoded (the announced length is then the encoded size). `identity` is no coding.
    public var expectedContentLength: Int64? {
        guard contentCoding == nil,
              let text = headerFields[.contentLength], let length = Int64(text), length >= 0 else { return nil }
        return length
    }

    /// The Content-Encoding the body carries, or nil when none (absent, or `identity`).
    var contentCoding: String? {
        guard let coding = headerFields[.contentEncoding],
              HTTPSyntax.trimmingWhitespace(coding).lowercased() != "identity" else { return nil }
        return coding
    }

    /// The value of the first field named `name`, or the comma-joined values when repeated.
    public func value(forHTTPHeaderField name: String) -> String? {
        guard let fieldName = HTTPField.Name(name) else { return nil }
        let values = headerFields[values: fieldName]
        return values.isEmpty ? nil : values.joined(separator: ", ")
    }

    /// The MIME type from Content-Type, lower-cased, without parameters.
    public var mimeType: String? {
        guard let type = headerFields[.contentType] else { return nil }
        return HeaderParameters(parsing: type).value.lowercased()
    }

    /// The `charset` parameter of Content-Type, as the server wrote it (such as `utf-8`), if any.
    public var textEncodingName: String? {
        guard let type = headerFields[.contentType] else { return nil }
        return HeaderParameters(parsing: type)["charset"]
    }

    /// A file name for the body: Content-Disposition's `filename*` or `filename` (RFC 6266),
    /// else the URL's last path component, else `"Unknown"`, as URLSession's. Only the last
    /// path component of a suggested name is kept (`../../etc/passwd` suggests `passwd`), so it
    /// is safe to join to a directory; names that would still be unsafe (`.`, `..`, empty,
    /// containing NUL) are not used, and the next offered (`filename` after `filename*`) is.
    public var suggestedFilename: String {
        dispositionFilename ?? Self.lastComponent(url.path(percentEncoded: false)) ?? "Unknown"
    }

    /// The file name Content-Disposition gives (RFC 6266: `filename*`, else `filename`), its
    /// last path component only, as ``suggestedFilename`` uses it; nil when the field is
    /// absent or names no usable file (curl's `-J` takes only this).
    public var dispositionFilename: String? {
        guard let disposition = headerFields[.contentDisposition] else { return nil }
        return HeaderParameters(parsing: disposition).filenames.lazy.compactMap(Self.lastComponent).first
    }

    /// The part after the last `/` or `\\`, when it is a usable file name.
    private static func lastComponent(_ path: String) -> String? {
        let last = path.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? ""
        guard !last.isEmpty, last != ".", last != "..", !last.contains("\0") else { return nil }
        return last
    }
}
