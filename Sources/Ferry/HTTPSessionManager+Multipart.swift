import FerrySession
import FoundationEssentials

// AFHTTPSessionManager's multipart POST: parameters as the first form fields, then the parts
// the closure adds, streamed as an upload task (files are never read whole).

extension HTTPSessionManager {
    /// A `multipart/form-data` POST, already resumed (AFNetworking's
    /// `POST:parameters:headers:constructingBodyWithBlock:progress:success:failure:`).
    /// - Parameters:
    ///   - urlString: A URL, or a path relative to ``baseURL``.
    ///   - parameters: Form fields sent before the parts, named as the query-string rules name
    ///     them (`user[name]`).
    ///   - headers: Fields that replace the serializer's.
    ///   - build: Adds the parts (files, data, fields).
    ///   - progress: Reports the upload progress.
    ///   - success: Called with the task and the serialized value.
    ///   - failure: Called with the task (nil when none was made: a missing file, a refused
    ///     header) and the error.
    @discardableResult
    public func post(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                     constructingBodyWith build: (inout MultipartFormData) throws(NetworkError) -> Void,
                     progress: ProgressHandler? = nil, success: Success?, failure: Failure?) -> UploadTask? {
        let request: NetworkRequest
        do throws(NetworkError) {
            request = try multipartRequest(urlString, parameters: parameters, headers: headers, build)
        } catch {
            failWithoutTask(error, failure)
            return nil
        }
        let task = managed(session.uploadTask(withStreamedRequest: request), serializer: responseObjectSerializer,
                           uploadProgress: progress, downloadProgress: nil) { Self.report($0, success, failure) }
        task.resume()
        return task
    }

    /// A `multipart/form-data` POST (async form): the serialized value and the response.
    /// - Throws: ``NetworkError``: a request that cannot be made (a missing file), the task's
    ///   failure, or the response serializer's refusal.
    public func post(_ urlString: String, parameters: Parameters? = nil, headers: [String: String]? = nil,
                     constructingBodyWith build: (inout MultipartFormData) throws(NetworkError) -> Void,
                     progress: ProgressHandler? = nil) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        let request = try multipartRequest(urlString, parameters: parameters, headers: headers, build)
        return try Self.valueAndResponse(await run(session.uploadTask(withStreamedRequest: request), serializer: responseObjectSerializer,
                                                   uploadProgress: progress, downloadProgress: nil))
    }

    private func multipartRequest(_ urlString: String, parameters: Parameters?, headers: [String: String]?,
                                  _ build: (inout MultipartFormData) throws(NetworkError) -> Void) throws(NetworkError)
        -> NetworkRequest {
        var form = MultipartFormData()
        try build(&form)
        return try applying(headers, to: requestSerializer.multipartFormRequest(method: .post, url: url(for: urlString),
                                                                                parameters: parameters, formData: form))
    }
}
