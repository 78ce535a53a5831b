import FerrySession
import FoundationEssentials

// AFURLSessionManager's task factories. Each returns a suspended task: call `resume()`.
// Progress handlers run on the session's delegate queue; completion handlers on the manager's
// completion queue, after the response serializer ran.

extension SessionManager {
    /// AFNetworking's completion handler: the response, the serialized value
    /// (AFNetworking's `responseObject`; nil when the serializer gave none) and the error.
    public typealias CompletionHandler = @Sendable (_ response: NetworkResponse?, _ responseObject: (any Sendable)?,
                                                    _ error: NetworkError?) -> Void

    /// A data task for `request` whose response ``responseSerializer`` turns into a value.
    /// - Parameters:
    ///   - request: What to send (its body, if any, is sent: AFNetworking's POST path).
    ///   - uploadProgress: Called as body bytes are sent.
    ///   - downloadProgress: Called as body bytes arrive.
    ///   - completionHandler: Called once, with the value or the error.
    public func dataTask(with request: NetworkRequest, uploadProgress: ProgressHandler? = nil,
                         downloadProgress: ProgressHandler? = nil,
                         completionHandler: CompletionHandler?) -> DataTask {
        dataTask(with: request, serializer: responseObjectSerializer, uploadProgress: uploadProgress,
                 downloadProgress: downloadProgress) { completionHandler?($0.response, $0.value ?? nil, $0.error) }
    }

    /// A data task whose response `serializer` turns into a typed value.
    public func dataTask<Serializer: ResponseSerializing>(
        with request: NetworkRequest, serializer: Serializer, uploadProgress: ProgressHandler? = nil,
        downloadProgress: ProgressHandler? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.Value>) -> Void
    ) -> DataTask {
        managed(session.dataTask(with: request), serializer: serializer, uploadProgress: uploadProgress,
                downloadProgress: downloadProgress, completionHandler: completionHandler)
    }

    /// An upload task sending `bodyData` as the body of `request`.
    public func uploadTask(with request: NetworkRequest, fromData bodyData: Data, progress: ProgressHandler? = nil,
                           completionHandler: CompletionHandler?) -> UploadTask {
        managed(session.uploadTask(with: request, from: bodyData), serializer: responseObjectSerializer,
                uploadProgress: progress, downloadProgress: nil) { completionHandler?($0.response, $0.value ?? nil, $0.error) }
    }

    /// An upload task streaming the file at `fileURL` as the body of `request`.
    public func uploadTask(with request: NetworkRequest, fromFile fileURL: URL, progress: ProgressHandler? = nil,
                           completionHandler: CompletionHandler?) -> UploadTask {
        managed(session.uploadTask(with: request, fromFile: fileURL), serializer: responseObjectSerializer,
                uploadProgress: progress, downloadProgress: nil) { completionHandler?($0.response, $0.value ?? nil, $0.error) }
    }

    /// An upload task sending the body of `request` as it is (a stream, a multipart body).
    public func uploadTask(withStreamedRequest request: NetworkRequest, progress: ProgressHandler? = nil,
                           completionHandler: CompletionHandler?) -> UploadTask {
        managed(session.uploadTask(withStreamedRequest: request), serializer: responseObjectSerializer,
                uploadProgress: progress, downloadProgress: nil) { completionHandler?($0.response, $0.value ?? nil, $0.error) }
    }

    /// A download task writing the body of `request` to a temporary file, then moving it to
    /// where `destination` says (replacing a file there), unless a block set with
    /// `setDownloadTaskDidFinishDownloading(_:)` returns a URL: that block is asked first. The
    /// completion gets the URL; the response serializer validates the response (a 404 is an
    /// error) but decodes no body.
    /// Without a destination (and no block set with `setDownloadTaskDidFinishDownloading(_:)`)
    /// the temporary file is removed and the URL is nil.
    public func downloadTask(
        with request: NetworkRequest, progress: ProgressHandler? = nil, destination: DownloadDestination? = nil,
        completionHandler: (@Sendable (_ response: NetworkResponse?, _ fileURL: URL?, _ error: NetworkError?) -> Void)?
    ) -> DownloadTask {
        managed(session.downloadTask(with: request), serializer: responseObjectSerializer, uploadProgress: nil,
                downloadProgress: progress, destination: destination) { completionHandler?($0.response, $0.fileURL, $0.error) }
    }

    /// A download task that continues where a failed or cancelled one stopped, from its
    /// resume data (``NetworkError/downloadTaskResumeData``, or
    /// ``DownloadTask/cancel(byProducingResumeData:)``), then moves the file as
    /// ``downloadTask(with:progress:destination:completionHandler:)`` does
    /// (`downloadTaskWithResumeData:progress:destination:completionHandler:`).
    /// ``Session/downloadTask(withResumeData:)`` says how the server's answer is judged. A
    /// download found complete already ends with the server's 416, which the default
    /// serializer refuses: add 416 to its acceptable status codes to take it as success.
    public func downloadTask(
        withResumeData resumeData: Data, progress: ProgressHandler? = nil, destination: DownloadDestination? = nil,
        completionHandler: (@Sendable (_ response: NetworkResponse?, _ fileURL: URL?, _ error: NetworkError?) -> Void)?
    ) -> DownloadTask {
        managed(session.downloadTask(withResumeData: resumeData), serializer: responseObjectSerializer, uploadProgress: nil,
                downloadProgress: progress, destination: destination) { completionHandler?($0.response, $0.fileURL, $0.error) }
    }

    /// Gives `task` the manager's delegate, so its events reach the manager and its completion
    /// runs `serializer`, then `completionHandler` on the completion queue.
    func managed<Task: SessionTask, Serializer: ResponseSerializing>(
        _ task: Task, serializer: Serializer, uploadProgress: ProgressHandler?, downloadProgress: ProgressHandler?,
        destination: DownloadDestination? = nil,
        completionHandler: @escaping @Sendable (DataResponse<Serializer.Value>) -> Void
    ) -> Task {
        managed(task, uploadProgress: uploadProgress, downloadProgress: downloadProgress, destination: destination,
                finish: completion(serializer: serializer) { outcome, result in completionHandler(DataResponse(outcome, result)) })
    }

    /// Gives `task` the manager's delegate, whose completion runs `finish` on the session's
    /// delegate queue.
    func managed<Task: SessionTask>(_ task: Task, uploadProgress: ProgressHandler?, downloadProgress: ProgressHandler?,
                                    destination: DownloadDestination?, finish: @escaping SessionManagerTaskDelegate.Finish) -> Task {
        task.delegate = SessionManagerTaskDelegate(hooks: hooks, uploadProgress: uploadProgress, downloadProgress: downloadProgress,
                                                   destination: destination, finish: finish)
        return task
    }
}

extension DataResponse {
    /// The record of a manager's completed task and what its serializer made of it.
    init(_ outcome: ManagerTaskOutcome, _ result: Result<Value, NetworkError>) {
        self.init(task: outcome.task, request: outcome.task.originalRequest, response: outcome.response, data: outcome.data,
                  fileURL: outcome.fileURL, metrics: outcome.metrics, result: result)
    }
}
