import FerrySession
import FoundationEssentials
import HTTPTypes

// The typed async forms: any response serializer, or a Decodable type read from JSON with
// the caller's decoder (`try await api.get("users/1", as: User.self)`).

extension HTTPSessionManager {
    /// A request for `method` whose response `serializer` turns into a typed value.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, or the
    ///   serializer's refusal (carrying the response and its body).
    public func data<Serializer: ResponseSerializing>(
        withHTTPMethod method: HTTPRequest.Method, urlString: String, parameters: Parameters? = nil,
        headers: [String: String]? = nil, serializer: Serializer, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil
    ) async throws(NetworkError) -> (value: Serializer.Value, response: NetworkResponse) {
        try await data(for: request(method: method, urlString: urlString, parameters: parameters, headers: headers),
                       serializer: serializer, uploadProgress: uploadProgress, downloadProgress: downloadProgress)
    }

    /// A GET request whose JSON response is decoded as `type` with `decoder`.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, a refused
    ///   response, or a body that does not decode (``NetworkError/Code/cannotDecodeContentData``,
    ///   naming the coding path).
    public func get<T: Decodable & Sendable>(_ urlString: String, parameters: Parameters? = nil,
                                             headers: [String: String]? = nil, progress: ProgressHandler? = nil, as type: T.Type,
                                             decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(withHTTPMethod: .get, urlString: urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder), downloadProgress: progress).value
    }

    /// A POST request whose JSON response is decoded as `type` with `decoder`.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, a refused
    ///   response, or a body that does not decode (``NetworkError/Code/cannotDecodeContentData``,
    ///   naming the coding path).
    public func post<T: Decodable & Sendable>(_ urlString: String, parameters: Parameters? = nil,
                                              headers: [String: String]? = nil, progress: ProgressHandler? = nil, as type: T.Type,
                                              decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(withHTTPMethod: .post, urlString: urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder), uploadProgress: progress).value
    }

    /// A PUT request whose JSON response is decoded as `type` with `decoder`.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, a refused
    ///   response, or a body that does not decode (``NetworkError/Code/cannotDecodeContentData``,
    ///   naming the coding path).
    public func put<T: Decodable & Sendable>(_ urlString: String, parameters: Parameters? = nil,
                                             headers: [String: String]? = nil, as type: T.Type,
                                             decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(withHTTPMethod: .put, urlString: urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// A PATCH request whose JSON response is decoded as `type` with `decoder`.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, a refused
    ///   response, or a body that does not decode (``NetworkError/Code/cannotDecodeContentData``,
    ///   naming the coding path).
    public func patch<T: Decodable & Sendable>(_ urlString: String, parameters: Parameters? = nil,
                                               headers: [String: String]? = nil, as type: T.Type,
                                               decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(withHTTPMethod: .patch, urlString: urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// A DELETE request whose JSON response is decoded as `type` with `decoder`.
    /// - Throws: ``NetworkError``: a request that cannot be made, the task's failure, a refused
    ///   response, or a body that does not decode (``NetworkError/Code/cannotDecodeContentData``,
    ///   naming the coding path).
    public func delete<T: Decodable & Sendable>(_ urlString: String, parameters: Parameters? = nil,
                                                headers: [String: String]? = nil, as type: T.Type,
                                                decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(withHTTPMethod: .delete, urlString: urlString, parameters: parameters, headers: headers,
                       serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }
}
