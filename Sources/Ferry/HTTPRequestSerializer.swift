#if canImport(Glibc)
import Glibc
#endif
import FerrySession
import FoundationEssentials
import HTTPTypes

/// AFNetworking's `AFHTTPRequestSerializer`: default headers, parameters as a query string in
/// the URL for GET, HEAD and DELETE, and as an `application/x-www-form-urlencoded` body for the
/// other methods (``QueryStringSerialization``'s rules, or a closure of the caller's).
///
/// A value: configure a copy, hand it to a manager. Headers set on a request already win over
/// the serializer's, as in AFNetworking.
public struct HTTPRequestSerializer: RequestSerializing {
    /// Writes parameters as a query string instead of ``QueryStringSerialization``
    /// (AFNetworking's `setQueryStringSerializationWithBlock:`). It returns the query already
    /// percent-encoded: one that goes in the URL is refused with ``NetworkError/Code/badURL``
    /// when a byte needs encoding.
    public typealias QueryStringWriter = @Sendable (NetworkRequest, Parameters) throws(NetworkError) -> String

    /// Fields added to every request that does not set them itself. By default
    /// `Accept-Language` from the process's locale (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`)
    /// with q values, and a `User-Agent` naming the program and Ferry.
    public var httpRequestHeaders: HTTPFields
    /// The timeout of the requests made, when set (nil: the session's).
    public var timeoutInterval: Duration?
    /// Methods whose parameters go in the URL's query; GET, HEAD and DELETE by default.
    public var httpMethodsEncodingParametersInURI: Set<HTTPRequest.Method> = [.get, .head, .delete]
    /// A caller's query-string rules, if any.
    public var queryStringWriter: QueryStringWriter?

    /// A serializer with the default headers.
    public init() {
        httpRequestHeaders = [:]
        httpRequestHeaders[.acceptLanguage] = Self.acceptLanguage(environment: ProcessInfo.processInfo.environment)
        httpRequestHeaders[.userAgent] = Self.userAgent(program: CommandLine.arguments.first ?? "")
    }

    /// The serializer's value for `name`, if it sets one.
    public func value(forHTTPHeaderField name: String) -> String? {
        HTTPField.Name(name).flatMap { httpRequestHeaders[$0] }
    }

    /// Sets (or, with nil, removes) a default field.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` for a name that is
    ///   not a token or a value with CR, LF or NUL, as ``NetworkRequest/setValue(_:forHTTPHeaderField:)``.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) throws(NetworkError) {
        // NetworkRequest's setter holds the validation rules; borrow them.
        var probe = NetworkRequest(url: URL(fileURLWithPath: "/"))
        try probe.setValue(value, forHTTPHeaderField: name)
        guard let fieldName = HTTPField.Name(name) else { return }
        httpRequestHeaders[fieldName] = probe.headerFields[fieldName]
    }

    /// `Authorization: Basic …` on every request (RFC 7617): AFNetworking's
    /// `setAuthorizationHeaderFieldWithUsername:password:`.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/invalidRequest`` when the user name
    ///   holds a colon or either holds a control character.
    public mutating func setAuthorizationHeaderField(username: String, password: String) throws(NetworkError) {
        var probe = NetworkRequest(url: URL(fileURLWithPath: "/"))
        try probe.setBasicAuthorization(user: username, password: password)
        httpRequestHeaders[.authorization] = probe.headerFields[.authorization]
    }

    /// Removes the `Authorization` field.
    public mutating func clearAuthorizationHeader() {
        httpRequestHeaders[.authorization] = nil
    }

    /// Applies the default fields, the timeout and `parameters` (query or form body).
    ///
    /// As AFNetworking's (its fix #2864: an empty string is a valid form), a method that sends
    /// parameters as a body gets a form body even without parameters: an empty one, with
    /// `Content-Type: application/x-www-form-urlencoded` unless the request has a type. A
    /// request that has a body already keeps it when there are no parameters. A serializer
    /// that writes a body of another format starts from ``applyingDefaults(to:)`` instead.
    /// - Throws: ``NetworkError``: what ``queryStringWriter`` throws; ``NetworkError/Code/badURL``
    ///   when the query it wrote for the URL holds a byte RFC 3986 does not allow there (a
    ///   space, CR, LF, `#`, non-ASCII, a `%` not before two hex digits).
    public func serialize(_ request: NetworkRequest, with parameters: Parameters?) throws(NetworkError) -> NetworkRequest {
        var request = applyingDefaults(to: request)
        let query: String
        if let parameters {
            query = try queryStringWriter.map { writer throws(NetworkError) in try writer(request, parameters) }
                ?? QueryStringSerialization.queryString(from: parameters)
        } else if httpMethodsEncodingParametersInURI.contains(request.method) || request.body != nil {
            return request
        } else {
            query = ""
        }
        if httpMethodsEncodingParametersInURI.contains(request.method) {
            guard !query.isEmpty else { return request }
            // QueryStringSerialization escapes everything; a caller's writer may not, and
            // URLComponents traps on a query it cannot hold.
            if queryStringWriter != nil, let offset = Self.invalidQueryByteOffset(query) {
                throw NetworkError(.badURL, reason: "The query string writer returned a query a URL cannot hold: byte "
                                       + "\(offset) of \"\(query.prefix(80))\" must be percent-encoded (RFC 3986 §3.4)",
                                   failingURL: request.url)
            }
            request.url = Self.url(request.url, appendingQuery: query)
        } else {
            if request.headerFields[.contentType] == nil {
                request.headerFields[.contentType] = "application/x-www-form-urlencoded"
            }
            request.body = .bytes(Array(query.utf8))
        }
        return request
    }

    /// For a serializer that writes parameters as a body of its own (JSON, property list, a
    /// caller's format): the methods that put parameters in the URL keep this serializer's
    /// rules; the others get the default fields, the timeout, `body(parameters)` and
    /// `contentType` unless the request has a `Content-Type` already, or, without parameters,
    /// no body (AFJSONRequestSerializer's and AFPropertyListRequestSerializer's rule).
    /// - Throws: ``NetworkError``: what `body` throws, or a refused header.
    public func serialize(_ request: NetworkRequest, with parameters: Parameters?, asBody contentType: String,
                          _ body: (Parameters) throws(NetworkError) -> [UInt8]) throws(NetworkError) -> NetworkRequest {
        guard !httpMethodsEncodingParametersInURI.contains(request.method) else { return try serialize(request, with: parameters) }
        var request = applyingDefaults(to: request)
        guard let parameters else { return request }
        request.body = .bytes(try body(parameters))
        if request.headerFields[.contentType] == nil { request.headerFields[.contentType] = contentType }
        return request
    }

    /// `request` with the default fields it does not set itself, and the timeout unless it has
    /// one: what every serializer applies, whatever it does with parameters.
    public func applyingDefaults(to request: NetworkRequest) -> NetworkRequest {
        var request = request
        for field in httpRequestHeaders where request.headerFields[field.name] == nil {
            request.headerFields.append(field)
        }
        if request.timeoutInterval == nil, let timeoutInterval { request.timeoutInterval = timeoutInterval }
        return request
    }

    /// The offset of the first byte of `query` that RFC 3986 §3.4 does not allow in a query
    /// (anything but pchar, `/` and `?`: a space, CR, LF, NUL, `#`, non-ASCII, a `%` not
    /// before two hex digits), or nil when there is none. Exactly what URLComponents'
    /// `percentEncodedQuery` accepts rather than traps on.
    static func invalidQueryByteOffset(_ query: String) -> Int? {
        let bytes = Array(query.utf8)
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                guard index + 2 < bytes.count, isHexDigit(bytes[index + 1]), isHexDigit(bytes[index + 2]) else { return index }
                index += 3
                continue
            }
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                break
            default:
                guard "-._~!$&'()*+,;=:@/?".utf8.contains(byte) else { return index }
            }
            index += 1
        }
        return nil
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "f"), UInt8(ascii: "A")...UInt8(ascii: "F"): true
        default: false
        }
    }

    /// `url` with `query` after its own query (joined by `&`), before any fragment.
    static func url(_ url: URL, appendingQuery query: String) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        if let existing = components.percentEncodedQuery, !existing.isEmpty {
            components.percentEncodedQuery = existing + "&" + query
        } else {
            components.percentEncodedQuery = query
        }
        return components.url ?? url
    }

    /// `Accept-Language` for the locale the environment names, as AFNetworking writes it from
    /// `NSLocale.preferredLanguages`: up to six languages, `q` falling by 0.1 from 1
    /// (`fr-CA;q=1, fr;q=0.9, en;q=0.8`). `LANGUAGE` (GNU gettext's list) first, else the
    /// first of `LC_ALL`, `LC_MESSAGES`, `LANG`; `C` and `POSIX` mean English.
    static func acceptLanguage(environment: [String: String]) -> String {
        var names: [String] = []
        if let list = environment["LANGUAGE"], !list.isEmpty {
            names = list.split(separator: ":").map(String.init)
        } else if let locale = ["LC_ALL", "LC_MESSAGES", "LANG"].lazy.compactMap({ environment[$0] }).first(where: { !$0.isEmpty }) {
            names = [locale]
        }
        var languages: [String] = []
        for name in names {
            // ll_CC.encoding@modifier → ll-CC
            let base = name.split(separator: ".").first.map(String.init)?.split(separator: "@").first.map(String.init) ?? name
            let tag = base == "C" || base == "POSIX" ? "en" : String(base.map { $0 == "_" ? "-" : $0 })
            guard !tag.isEmpty, tag.utf8.allSatisfy({ $0 < 0x80 && $0 > 0x20 && $0 != UInt8(ascii: ",") && $0 != UInt8(ascii: ";") }),
                  !languages.contains(tag) else { continue }
            languages.append(tag)
            if languages.count == 6 { break }
        }
        if languages.isEmpty { languages = ["en"] }
        return languages.enumerated().map { index, tag in
            let q = 10 - index
            return q == 10 ? "\(tag);q=1" : "\(tag);q=0.\(q)"
        }.joined(separator: ", ")
    }

    /// `User-Agent`: the program's name, then Ferry's (`myapp Ferry/0.1 (Linux)`), as
    /// AFNetworking names the app and its platform.
    static func userAgent(program: String) -> String {
        let name = program.split(separator: "/").last.map(String.init) ?? ""
        let token = name.filter { $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }
        let platform = "(Linux)"
        return token.isEmpty ? "\(SessionConfiguration.ferryProduct) \(platform)"
            : "\(token) \(SessionConfiguration.ferryProduct) \(platform)"
    }
}
