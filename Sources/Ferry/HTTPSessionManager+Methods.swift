import FerrySession
import FoundationEssentials
import HTTPTypes

// AFHTTPSessionManager's verbs. The closure forms make the task, resume it and return it (nil
// when no request could be made; `failure` says why). The async forms return what the
// response serializer made of the response, and the response.

extension HTTPSessionManager {
    /// A GET request to `urlString` (resolved against ``baseURL``), already resumed.
    /// - Parameters:
    ///   - urlString: A URL, or a path relative to ``baseURL``.
    ///   - parameters: Written by ``requestSerializer`` (in the query by default).
    ///   - headers: Fields that replace the serializer's.
    ///   - progress: Reports the download progress.
    ///   - success: Called with the task and the serialized value.
    ///   - failure: Called with the task (nil when none was made) and the error.
    @discardableResult
    public func get(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                    progress: ProgressHandler? = nil, success: Success?, failure: Failure?) -> DataTask? {
        resumed(dataTask(withHTTPMethod: .get, urlString: urlString, parameters: parameters, headers: headers,
                         downloadProgress: progress, success: success, failure: failure))
    }

    /// A GET request (async form): the serialized value and the response.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, or the
    ///   response serializer's refusal (carrying the response and its body).
    public func get(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                    progress: ProgressHandler? = nil) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try await data(for: request(method: .get, urlString: urlString, parameters: parameters, headers: headers),
                       downloadProgress: progress)
    }

    /// A POST request to `urlString` (resolved against ``baseURL``), already resumed.
    /// - Parameters:
    ///   - urlString: A URL, or a path relative to ``baseURL``.
    ///   - parameters: Written by ``requestSerializer`` (in the body by default).
    ///   - headers: Fields that replace the serializer's.
    ///   - progress: Reports the upload progress.
    ///   - success: Called with the task and the serialized value.
    ///   - failure: Called with the task (nil when none was made) and the error.
    @discardableResult
    public func post(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                     progress: ProgressHandler? = nil, success: Success?, failure: Failure?) -> DataTask? {
        resumed(dataTask(withHTTPMethod: .post, urlString: urlString, parameters: parameters, headers: headers,
                         uploadProgress: progress, success: success, failure: failure))
    }

    /// A POST request (async form): the serialized value and the response.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, or the
    ///   response serializer's refusal (carrying the response and its body).
    public func post(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                     progress: ProgressHandler? = nil) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try await data(for: request(method: .post, urlString: urlString, parameters: parameters, headers: headers),
                       uploadProgress: progress)
    }

    /// A PUT request to `urlString` (resolved against ``baseURL``), already resumed.
    /// - Parameters:
    ///   - urlString: A URL, or a path relative to ``baseURL``.
    ///   - parameters: Written by ``requestSerializer`` (in the body by default).
    ///   - headers: Fields that replace the serializer's.
    ///   - success: Called with the task and the serialized value.
    ///   - failure: Called with the task (nil when none was made) and the error.
    @discardableResult
    public func put(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                    success: Success?, failure: Failure?) -> DataTask? {
        resumed(dataTask(withHTTPMethod: .put, urlString: urlString, parameters: parameters, headers: headers,
                         success: success, failure: failure))
    }

    /// A PUT request (async form): the serialized value and the response.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, or the
    ///   response serializer's refusal (carrying the response and its body).
    public func put(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                    ) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try await data(for: request(method: .put, urlString: urlString, parameters: parameters, headers: headers))
    }

    /// A PATCH request to `urlString` (resolved against ``baseURL``), already resumed.
    /// - Parameters:
    ///   - urlString: A URL, or a path relative to ``baseURL``.
    ///   - parameters: Written by ``requestSerializer`` (in the body by default).
    ///   - headers: Fields that replace the serializer's.
    ///   - success: Called with the task and the serialized value.
    ///   - failure: Called with the task (nil when none was made) and the error.
    @discardableResult
    public func patch(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                      success: Success?, failure: Failure?) -> DataTask? {
        resumed(dataTask(withHTTPMethod: .patch, urlString: urlString, parameters: parameters, headers: headers,
                         success: success, failure: failure))
    }

    /// A PATCH request (async form): the serialized value and the response.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, or the
    ///   response serializer's refusal (carrying the response and its body).
    public func patch(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                      ) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try await data(for: request(method: .patch, urlString: urlString, parameters: parameters, headers: headers))
    }

    /// A DELETE request to `urlString` (resolved against ``baseURL``), already resumed.
    /// - Parameters:
    ///   - urlString: A URL, or a path relative to ``baseURL``.
    ///   - parameters: Written by ``requestSerializer`` (in the query by default).
    ///   - headers: Fields that replace the serializer's.
    ///   - success: Called with the task and the serialized value.
    ///   - failure: Called with the task (nil when none was made) and the error.
    @discardableResult
    public func delete(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                       success: Success?, failure: Failure?) -> DataTask? {
        resumed(dataTask(withHTTPMethod: .delete, urlString: urlString, parameters: parameters, headers: headers,
                         success: success, failure: failure))
    }

    /// A DELETE request (async form): the serialized value and the response.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, or the
    ///   response serializer's refusal (carrying the response and its body).
    public func delete(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                       ) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try await data(for: request(method: .delete, urlString: urlString, parameters: parameters, headers: headers))
    }

    /// A HEAD request, already resumed: `success` gets the task only (a HEAD response has no body).
    @discardableResult
    public func head(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                     success: (@Sendable (_ task: DataTask) -> Void)?, failure: Failure?) -> DataTask? {
        var onSuccess: Success?
        if let success { onSuccess = { task, _ in success(task) } }
        return resumed(dataTask(withHTTPMethod: .head, urlString: urlString, parameters: parameters, headers: headers,
                                success: onSuccess, failure: failure))
    }

    /// A HEAD request (async form): the response, once the response serializer accepted it.
    /// - Throws: ``NetworkError`` as ``get(_:parameters:headers:progress:)``.
    public func head(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil)
        async throws(NetworkError) -> NetworkResponse {
        try await data(for: request(method: .head, urlString: urlString, parameters: parameters, headers: headers)).response
    }

    private func resumed(_ task: DataTask?) -> DataTask? {
        task?.resume()
        return task
    }
}
