import FerryBase
import Dispatch
import FerrySession
import FoundationEssentials
import HTTPTypes
import Synchronization

/// A ``SessionManager`` for an HTTP API: requests to paths under ``baseURL``, parameters
/// written by ``requestSerializer``, responses read by the ``SessionManager/responseSerializer``
/// (JSON by default). The counterpart of AFNetworking's `AFHTTPSessionManager`.
///
/// ```swift
/// let api = HTTPSessionManager(baseURL: URL(string: "https://api.example.com/v1/"))
/// let user = try await api.get("users/1", as: User.self)
/// api.get("users", parameters: ["page": 2], success: { task, object in … }, failure: { task, error in … })
/// ```
///
/// The closure forms resume their task at once and call `success` or `failure` on the
/// completion queue; the async forms return the value and the response.
open class HTTPSessionManager: SessionManager, @unchecked Sendable {
    /// `success`: the task and the serialized value (nil when the serializer gave none).
    public typealias Success = @Sendable (_ task: DataTask, _ responseObject: (any Sendable)?) -> Void
    /// `failure`: the task (nil when no request could be made) and the error.
    public typealias Failure = @Sendable (_ task: DataTask?, _ error: NetworkError) -> Void

    /// The URL relative paths resolve against (RFC 3986), ending in `/` when it has a path.
    public let baseURL: URL?
    private let serializer: Locked<any RequestSerializing>

    /// A manager for the API at `baseURL` (a base with a path but no trailing slash gets one,
    /// as AFNetworking does, so `v1` stays in `…/v1/users`).
    public init(baseURL: URL? = nil, sessionConfiguration: SessionConfiguration = .default) {
        self.baseURL = baseURL.map(Self.directory)
        serializer = Locked(HTTPRequestSerializer())
        super.init(sessionConfiguration: sessionConfiguration)
    }

    /// Writes each request's parameters and default headers; ``HTTPRequestSerializer`` by
    /// default.
    public var requestSerializer: any RequestSerializing {
        get { serializer.withLock { $0 } }
        set { serializer.withLock { $0 = newValue } }
    }

    /// Sets ``SessionManager/securityPolicy``.
    /// - Throws: ``NetworkError/Code/invalidRequest`` for a pinning policy when ``baseURL`` is
    ///   not https: pins cannot protect a clear-text connection (AFNetworking raises).
    open override func setSecurityPolicy(_ policy: SecurityPolicy) throws(NetworkError) {
        if policy.pinningMode != .none, baseURL?.scheme?.lowercased() != "https" {
            throw NetworkError(.invalidRequest,
                               reason: "A security policy pinning by \(policy.pinningMode.rawValue) needs an https base URL;"
                                   + " this manager's is \(baseURL?.absoluteString ?? "not set")", failingURL: baseURL)
        }
        try super.setSecurityPolicy(policy)
    }

    // MARK: Requests

    /// `urlString` resolved against ``baseURL`` (RFC 3986: `foo` → `/v1/foo`, `/foo` → `/foo`,
    /// `http://other.example/` → itself).
    /// - Throws: ``NetworkError/Code/badURL`` for a string that is not a URL reference.
    public func url(for urlString: String) throws(NetworkError) -> URL {
        // An empty reference is the base itself (RFC 3986 §5.2.2).
        let resolved = urlString.isEmpty ? baseURL : URL(string: urlString, relativeTo: baseURL)?.absoluteURL
        guard let url = resolved, url.scheme != nil, url.host != nil else {
            throw NetworkError(.badURL, reason: "\"\(urlString)\" is not a valid URL"
                                   + (baseURL.map { " relative to \($0.absoluteString)" } ?? ""), failingURL: baseURL)
        }
        return url
    }

    /// The request a call makes: ``requestSerializer``'s, then `headers` (which replace the
    /// serializer's fields of the same name).
    /// - Throws: ``NetworkError``: a bad URL, a refused header, or the serializer's error.
    public func request(method: HTTPRequest.Method, urlString: String, parameters: Parameters?,
                        headers: [String: String]?) throws(NetworkError) -> NetworkRequest {
        try applying(headers, to: requestSerializer.request(method: method, url: url(for: urlString), parameters: parameters))
    }

    /// `request` with `headers` replacing its fields of the same names.
    func applying(_ headers: [String: String]?, to request: NetworkRequest) throws(NetworkError) -> NetworkRequest {
        var request = request
        for (name, value) in headers ?? [:] { try request.setValue(value, forHTTPHeaderField: name) }
        return request
    }

    /// A suspended data task for `method` (AFNetworking's `dataTaskWithHTTPMethod:…`), or nil
    /// when the request cannot be made: `failure` then gets the error, with no task, on the
    /// completion queue.
    public func dataTask(withHTTPMethod method: HTTPRequest.Method, urlString: String, parameters: Parameters? = nil,
                         headers: [String: String]? = nil, uploadProgress: ProgressHandler? = nil,
                         downloadProgress: ProgressHandler? = nil, success: Success?, failure: Failure?) -> DataTask? {
        let request: NetworkRequest
        do throws(NetworkError) {
            request = try self.request(method: method, urlString: urlString, parameters: parameters, headers: headers)
        } catch {
            failWithoutTask(error, failure)
            return nil
        }
        return dataTask(with: request, serializer: responseObjectSerializer, uploadProgress: uploadProgress,
                        downloadProgress: downloadProgress) { response in
            Self.report(response, success, failure)
        }
    }

    /// Calls `failure` for a request that could not be made, on the completion queue.
    func failWithoutTask(_ error: NetworkError, _ failure: Failure?) {
        guard let failure else { return }
        completionDelivery()({ failure(nil, error) })
    }

    static func report(_ response: DataResponse<(any Sendable)?>, _ success: Success?, _ failure: Failure?) {
        // Always a data task: this manager's closures are only given to data tasks.
        guard let task = response.task as? DataTask else { return }
        switch response.result {
        case .success(let object): success?(task, object)
        case .failure(let error): failure?(task, error)
        }
    }

    /// `baseURL` with a trailing slash on its path.
    private static func directory(_ url: URL) -> URL {
        let path = url.path(percentEncoded: true)
        guard !path.isEmpty, !path.hasSuffix("/"),
              var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else { return url }
        components.percentEncodedPath += "/"
        return components.url ?? url
    }
}
