import FoundationEssentials
import FerryWire
import HTTPTypes

/// A request to load: URL, method, header fields, body and per-request limits.
///
/// The counterpart of `URLRequest`. Header fields are typed (`HTTPFields`); the text setters
/// ``setValue(_:forHTTPHeaderField:)`` and ``addValue(_:forHTTPHeaderField:)`` refuse a name
/// that is not a token or a value containing CR, LF or NUL instead of silently rewriting it.
public struct NetworkRequest: Sendable {
    /// The URL to load (`http` in this version).
    public var url: URL
    /// The request method.
    public var method: HTTPRequest.Method
    /// Header fields sent after the session's additional headers (a field here replaces the
    /// session's field of the same name).
    public var headerFields: HTTPFields
    /// The body to send, if any.
    public var body: RequestBody?
    /// Overrides ``SessionConfiguration/timeoutIntervalForRequest`` (idle timeout) for this request.
    public var timeoutInterval: Duration?
    /// Overrides ``SessionConfiguration/maximumResponseBodySize`` for this request.
    public var maximumResponseBodySize: Int64?
    /// Whether this request carries cookies from the session's storage and keeps the cookies
    /// of its responses there (URLRequest's `httpShouldHandleCookies`); true by default. A
    /// `Cookie` field set on the request is sent either way, before the storage's cookies.
    public var httpShouldHandleCookies = true
    /// The URL of the page this request is part of, which
    /// ``CookieAcceptPolicy/onlyFromMainDocumentDomain`` compares cookie domains with
    /// (URLRequest's `mainDocumentURL`); nil counts the request as its own main document.
    public var mainDocumentURL: URL?
    /// The user name and password that answer the server's challenge (a 401 with Basic or
    /// Digest), before the session's credential storage and the URL's own user information:
    /// Alamofire's `authenticate(username:password:)`. It answers challenges of the request's
    /// origin only: a redirect to another origin drops it, as it drops `Authorization`.
    public var credential: Credential? {
        get { credentialBox?.credential }
        set { credentialBox = newValue.map(CredentialBox.init) }
    }
    // A credential is large (identity, trust) and rare: a word in every request, not 160 bytes
    // in every request, task and follow-up.
    private var credentialBox: CredentialBox?

    /// Creates a request.
    /// - Parameters:
    ///   - url: The URL to load.
    ///   - method: The method; GET by default.
    ///   - headerFields: Extra header fields.
    ///   - body: The body to send.
    public init(
        url: URL,
        method: HTTPRequest.Method = .get,
        headerFields: HTTPFields = [:],
        body: RequestBody? = nil
    ) {
        self.url = url
        self.method = method
        self.headerFields = headerFields
        self.body = body
    }

    /// Drops the body and the fields that describe it (`Content-Type`, `Content-Length`,
    /// `Transfer-Encoding`, `Content-Encoding`), as a 303 redirect does when it turns a POST
    /// into a GET; the method stays as it is.
    public mutating func removeBody() {
        body = nil
        for name in [HTTPField.Name.contentType, .contentLength, .transferEncoding, .contentEncoding] {
            headerFields[name] = nil
        }
    }

    /// Replaces every field named `name` with `value`, or removes them when `value` is nil.
    /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidRequest`` when `name` is not a
    ///   token or `value` holds CR, LF, NUL or another forbidden byte.
    public mutating func setValue(_ value: String?, forHTTPHeaderField name: String) throws(NetworkError) {
        let fieldName = try Self.validatedName(name)
        guard let value else {
            headerFields[fieldName] = nil
            return
        }
        headerFields[fieldName] = try Self.validatedValue(value, name: name)
    }

    /// Appends a field, keeping fields of the same name already present.
    /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidRequest`` as for
    ///   ``setValue(_:forHTTPHeaderField:)``.
    public mutating func addValue(_ value: String, forHTTPHeaderField name: String) throws(NetworkError) {
        let fieldName = try Self.validatedName(name)
        headerFields.append(HTTPField(name: fieldName, value: try Self.validatedValue(value, name: name)))
    }

    /// Sets `Authorization: Basic …` for `user` and `password` (RFC 7617, UTF-8), sent with
    /// the first request instead of after a challenge: curl's `-u` and AFNetworking's
    /// `setAuthorizationHeaderField(username:password:)`. A redirect to another origin drops it.
    /// - Throws: ``NetworkError`` with code ``NetworkError/Code/invalidRequest`` when the user
    ///   name holds a colon or either holds a control character.
    public mutating func setBasicAuthorization(user: String, password: String) throws(NetworkError) {
        do {
            headerFields[.authorization] = try BasicAuthentication.authorization(user: user, password: password)
        } catch {
            throw NetworkError(SessionFailure.invalidCredential(error), url: url)
        }
    }

    private static func validatedName(_ name: String) throws(NetworkError) -> HTTPField.Name {
        guard let fieldName = HTTPField.Name(name) else {
            throw NetworkError(SessionFailure.invalidHeaderName(name), url: nil)
        }
        return fieldName
    }

    // RFC 9110 §5.5: a field value is visible ASCII, obs-text, SP and HTAB. swift-http-types
    // would turn CR, LF and NUL into spaces; Ferry refuses them so nothing is smuggled or changed.
    private static func validatedValue(_ value: String, name: String) throws(NetworkError) -> String {
        let trimmed = HTTPSyntax.trimmingWhitespace(value)
        guard HTTPField.isValidValue(trimmed) else {
            throw NetworkError(SessionFailure.invalidHeaderValue(name: name), url: nil)
        }
        return trimmed
    }
}

/// Holds a request's credential out of line (immutable: a request that changes it gets a new box).
private final class CredentialBox: Sendable {
    let credential: Credential

    init(_ credential: Credential) {
        self.credential = credential
    }
}
