import FerrySession
import FoundationEssentials
import Synchronization

// The async forms of the manager's tasks: each makes the same task, with the same delegate, as
// the completion-handler form and awaits its completion; the serializer then runs in the
// awaiting Swift task (no processing or completion queue: nothing is handed to them).
// Cancelling the awaiting Swift task cancels the task.

extension SessionManager {
    /// Loads `request` and returns what `serializer` made of the response.
    /// - Throws: ``NetworkError``: the task's failure, or the serializer's refusal (carrying
    ///   the response and its body).
    public func data<Serializer: ResponseSerializing>(
        for request: NetworkRequest, serializer: Serializer, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil
    ) async throws(NetworkError) -> (value: Serializer.Value, response: NetworkResponse) {
        try Self.valueAndResponse(await run(session.dataTask(with: request), serializer: serializer,
                                            uploadProgress: uploadProgress, downloadProgress: downloadProgress))
    }

    /// Loads `request` and returns what ``responseSerializer`` made of it (AFNetworking's
    /// `responseObject`, nil when the serializer gave none).
    /// - Throws: ``NetworkError`` as ``data(for:serializer:uploadProgress:downloadProgress:)``.
    public func data(for request: NetworkRequest, uploadProgress: ProgressHandler? = nil,
                     downloadProgress: ProgressHandler? = nil) async throws(NetworkError)
        -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try Self.valueAndResponse(await run(session.dataTask(with: request), serializer: responseObjectSerializer,
                                            uploadProgress: uploadProgress, downloadProgress: downloadProgress))
    }

    /// Loads `request` and decodes its JSON body as `type` with `decoder`.
    /// - Throws: ``NetworkError``: the task's failure, a refused response, or a body that does
    ///   not decode (``NetworkError/Code/cannotDecodeContentData``, naming the coding path).
    public func data<T: Decodable & Sendable>(for request: NetworkRequest, as type: T.Type,
                                              decoder: JSONDecoder = JSONDecoder()) async throws(NetworkError) -> T {
        try await data(for: request, serializer: DecodableResponseSerializer(type, decoder: decoder)).value
    }

    /// Sends `bodyData` as the body of `request` (an upload task) and returns what
    /// ``responseSerializer`` made of the response.
    /// - Throws: ``NetworkError`` as ``data(for:serializer:uploadProgress:downloadProgress:)``.
    public func upload(for request: NetworkRequest, fromData bodyData: Data, progress: ProgressHandler? = nil)
        async throws(NetworkError) -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try Self.valueAndResponse(await run(session.uploadTask(with: request, from: bodyData), serializer: responseObjectSerializer,
                                            uploadProgress: progress, downloadProgress: nil))
    }

    /// Streams the file at `fileURL` as the body of `request` (an upload task, the file never
    /// read whole) and returns what ``responseSerializer`` made of the response.
    /// - Throws: ``NetworkError`` as ``data(for:serializer:uploadProgress:downloadProgress:)``,
    ///   and ``NetworkError/Code/cannotOpenFile``.
    public func upload(for request: NetworkRequest, fromFile fileURL: URL, progress: ProgressHandler? = nil)
        async throws(NetworkError) -> (responseObject: (any Sendable)?, response: NetworkResponse) {
        try Self.valueAndResponse(await run(session.uploadTask(with: request, fromFile: fileURL), serializer: responseObjectSerializer,
                                            uploadProgress: progress, downloadProgress: nil))
    }

    /// Downloads `request` to the file `destination` names (replacing one there) and returns
    /// its URL, once ``responseSerializer`` accepted the response. A block set with
    /// `setDownloadTaskDidFinishDownloading(_:)` that returns a URL is asked first and wins.
    /// - Throws: ``NetworkError``: the task's failure, a refused response, or
    ///   ``NetworkError/Code/cannotMoveFile``.
    public func download(for request: NetworkRequest, progress: ProgressHandler? = nil,
                         destination: @escaping DownloadDestination) async throws(NetworkError)
        -> (fileURL: URL, response: NetworkResponse) {
        try await download(session.downloadTask(with: request), progress: progress, destination: destination)
    }

    /// Continues a failed or cancelled download from its resume data
    /// (``downloadTask(withResumeData:progress:destination:completionHandler:)``), moves the file
    /// where `destination` says and returns its URL.
    /// - Throws: ``NetworkError`` as ``download(for:progress:destination:)``, plus
    ///   ``NetworkError/Code/cannotResumeDownload``; a download that fails again carries new
    ///   resume data.
    public func download(resumeFrom resumeData: Data, progress: ProgressHandler? = nil,
                         destination: @escaping DownloadDestination) async throws(NetworkError)
        -> (fileURL: URL, response: NetworkResponse) {
        try await download(session.downloadTask(withResumeData: resumeData), progress: progress, destination: destination)
    }

    private func download(_ task: DownloadTask, progress: ProgressHandler?, destination: @escaping DownloadDestination)
        async throws(NetworkError) -> (fileURL: URL, response: NetworkResponse) {
        let outcome = await run(task, serializer: responseObjectSerializer, uploadProgress: nil, downloadProgress: progress,
                                destination: destination)
        let (_, response) = try Self.valueAndResponse(outcome)
        guard let fileURL = outcome.fileURL else {
            throw NetworkError(.cannotMoveFile, reason: "The download finished without a file", failingURL: task.originalRequest.url)
        }
        return (fileURL, response)
    }

    /// Gives `task` the manager's delegate, resumes it, waits for it to complete and runs
    /// `serializer` on what it left.
    func run<Serializer: ResponseSerializing>(
        _ task: SessionTask, serializer: Serializer, uploadProgress: ProgressHandler?, downloadProgress: ProgressHandler?,
        destination: DownloadDestination? = nil
    ) async -> DataResponse<Serializer.Value> {
        // A data task whose body no one watches arriving is awaited as Session.data(for:) is:
        // its body collected, and the caller resumed from the engine's loop, not through the
        // delegate queue (W8 measures that hop).
        if let dataTask = task as? DataTask, downloadProgress == nil, !hooks.observesDataEvents {
            return await collect(dataTask, serializer: serializer, uploadProgress: uploadProgress)
        }
        let started = Atomic(false)
        let outcome = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<ManagerTaskOutcome, Never>) in
                _ = managed(task, uploadProgress: uploadProgress, downloadProgress: downloadProgress, destination: destination) {
                    continuation.resume(returning: $0)
                }
                task.resume()
                started.store(true, ordering: .releasing)
                // Cancelled before the handler below could see the task started.
                if Task.isCancelled { task.cancel() }
            }
        } onCancel: {
            // A task cancelled before it has its delegate would complete with no one told.
            if started.load(ordering: .acquiring) { task.cancel() }
        }
        let result = Self.serialize(outcome, with: serializer)
        hooks.announceCompletion(outcome, serializer: serializer, result: result)
        return DataResponse(outcome, result)
    }

    /// Awaits `task`'s whole body (``DataTask/data()``), with the manager's delegate only when
    /// a progress handler or a block wants its events, and runs `serializer` on it.
    private func collect<Serializer: ResponseSerializing>(_ task: DataTask, serializer: Serializer,
                                                          uploadProgress: ProgressHandler?) async -> DataResponse<Serializer.Value> {
        if uploadProgress != nil || hooks.observesTaskEvents {
            _ = managed(task, uploadProgress: uploadProgress, downloadProgress: nil, destination: nil) { _ in }
        }
        // No delegate tells of the start here: the manager does.
        hooks.notify?(.taskDidResume(task))
        let outcome: ManagerTaskOutcome
        do throws(NetworkError) {
            let (data, response) = try await task.data()
            outcome = ManagerTaskOutcome(task: task, response: response, data: data, fileURL: nil, error: nil, metrics: task.metrics)
        } catch {
            outcome = ManagerTaskOutcome(task: task, response: error.response ?? task.response, data: nil, fileURL: nil,
                                         error: error, metrics: task.metrics)
        }
        let result = Self.serialize(outcome, with: serializer)
        hooks.announceCompletion(outcome, serializer: serializer, result: result)
        return DataResponse(outcome, result)
    }

    static func valueAndResponse<Value>(_ outcome: DataResponse<Value>) throws(NetworkError) -> (Value, NetworkResponse) {
        let value = try outcome.result.get()
        guard let response = outcome.response else {
            throw NetworkError(.badServerResponse, reason: "The task completed without a response", failingURL: outcome.request.url)
        }
        return (value, response)
    }
}
