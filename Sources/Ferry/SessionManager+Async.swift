import FerrySession
import FoundationEssentials
import Synchronization

// The async forms of the manager's tasks: each makes the same task as the completion-handler
// form and awaits its completion; cancelling the awaiting Swift task cancels the task.

extension SessionManager {
    /// Loads `request` and returns what `serializer` made of the response.
    /// - Throws: ``NetworkError``: the task's failure, or the serializer's refusal (carrying
    ///   the response and its body).
    public func data<Serializer: ResponseSerializing>(
        for request: NetworkRequest, serializer: Serializer, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil
    ) async throws(NetworkError) -> (value: Serializer.Value, response: NetworkResponse) {
        let outcome = await response { handler in
            dataTask(with: request, serializer: serializer, uploadProgress: uploadProgress,
                     downloadProgress: downloadProgress, completionHandler: handler)
        }
        return try Self.valueAndResponse(outcome)
    }

    /// Loads `request` and returns what ``responseSerializer`` made of it (AFNetworking's
    /// `responseObject`, nil when the serializer gave none).
    /// - Throws: ``NetworkError`` as ``data(for:serializer:uploadProgress:downloadProgress:)``.
    public func data(for request: NetworkRequest, uploadProgress: ProgressHandler? = nil,
                     downloadProgress: ProgressHandler? = nil) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        let outcome = await response { handler in
            dataTask(with: request, serializer: responseObjectSerializer, uploadProgress: uploadProgress,
                     downloadProgress: downloadProgress, completionHandler: handler)
        }
        return try Self.valueAndResponse(outcome)
    }

    /// Loads `request` and decodes its JSON body as `type` with `decoder`.
    /// - Throws: ``NetworkError``: the task's failure, a refused response, or a body that does
    ///   not decode (``NetworkError/Code/cannotDecodeContentData``, naming the coding path).
    public func data<T: Decodable & Sendable>(for request: NetworkRequest, as type: T.Type,
                                              decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(for: request, serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// Downloads `request` to the file `destination` names (replacing one there) and returns
    /// its URL, once ``responseSerializer`` accepted the response.
    /// - Throws: ``NetworkError``: the task's failure, a refused response, or
    ///   ``NetworkError/Code/cannotMoveFile``.
    public func download(for request: NetworkRequest, progress: ProgressHandler? = nil,
                         destination: @escaping DownloadDestination) async throws(NetworkError)
        -> (fileURL: URL, response: NetworkResponse) {
        let outcome = await response { handler in
            managed(session.downloadTask(with: request), serializer: responseObjectSerializer, uploadProgress: nil,
                    downloadProgress: progress, destination: destination, completionHandler: handler)
        }
        let (_, response) = try Self.valueAndResponse(outcome)
        guard let fileURL = outcome.fileURL else {
            throw NetworkError(.cannotMoveFile, reason: "The download finished without a file", failingURL: request.url)
        }
        return (fileURL, response)
    }

    /// Makes a task with `make`, resumes it and waits for its completion handler.
    func response<Value: Sendable>(
        _ make: (@escaping @Sendable (DataResponse<Value>) -> Void) -> SessionTask
    ) async -> DataResponse<Value> {
        let running = Mutex<SessionTask?>(nil)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let task = make { continuation.resume(returning: $0) }
                running.withLock { $0 = task }
                task.resume()
                // Cancelled before the task was known to the handler below.
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            running.withLock { $0 }?.cancel()
        }
    }

    static func valueAndResponse<Value>(_ outcome: DataResponse<Value>) throws(NetworkError) -> (Value, NetworkResponse) {
        let value = try outcome.result.get()
        guard let response = outcome.response else {
            throw NetworkError(.badServerResponse, reason: "The task completed without a response", failingURL: outcome.request.url)
        }
        return (value, response)
    }
}
