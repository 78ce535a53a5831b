#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import FerrySession
import FoundationEssentials
import Synchronization

/// What a manager's task left when it completed, handed to the task's completion step.
struct ManagerTaskOutcome: Sendable {
    let task: SessionTask
    let response: NetworkResponse?
    /// The body collected by a data or upload task (nil for a download task).
    let data: Data?
    /// Where a download task's file was moved.
    let fileURL: URL?
    let error: NetworkError?
    let metrics: TaskMetrics?
}

/// The delegate of one task a ``SessionManager`` made (AFURLSessionManagerTaskDelegate): it
/// collects the body, reports progress, moves a download to its destination, passes every
/// event to the manager's blocks, and hands the outcome to the task's completion step.
///
/// Its events arrive on the session's delegate queue, one at a time, in order.
final class SessionManagerTaskDelegate: SessionDataDelegate, SessionDownloadDelegate, TaskLifecycleObserving,
    SelectiveTaskDelegate {
    typealias Finish = @Sendable (ManagerTaskOutcome) -> Void

    let hooks: SessionManagerHooks
    let uploadProgress: SessionManager.ProgressHandler?
    let downloadProgress: SessionManager.ProgressHandler?
    let destination: SessionManager.DownloadDestination?
    private let finish: Finish
    private let state = Locked<(data: Data, fileURL: URL?, moveError: NetworkError?, metrics: TaskMetrics?)>((Data(), nil, nil, nil))

    init(hooks: SessionManagerHooks, uploadProgress: SessionManager.ProgressHandler?,
         downloadProgress: SessionManager.ProgressHandler?, destination: SessionManager.DownloadDestination? = nil,
         finish: @escaping Finish) {
        self.hooks = hooks
        self.uploadProgress = uploadProgress
        self.downloadProgress = downloadProgress
        self.destination = destination
        self.finish = finish
    }

    // MARK: Task events

    /// Upload progress goes nowhere without a handler or a block: not worth a hop per write.
    var wantsSendProgress: Bool { uploadProgress != nil || hooks.block { $0.taskDidSendBodyData } != nil }

    func taskDidResume(_ task: SessionTask) {
        hooks.notify?(.taskDidResume(task))
    }

    func taskDidSuspend(_ task: SessionTask) {
        hooks.notify?(.taskDidSuspend(task))
    }

    func session(_ session: Session, task: SessionTask, didSendBodyData bytesSent: Int64, totalBytesSent: Int64,
                 totalBytesExpectedToSend: Int64?) {
        uploadProgress?(TaskProgress(completedUnitCount: totalBytesSent, totalUnitCount: totalBytesExpectedToSend))
        hooks.block { $0.taskDidSendBodyData }?(session, task, bytesSent, totalBytesSent, totalBytesExpectedToSend)
    }

    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        guard let block = hooks.block({ $0.taskWillPerformHTTPRedirection }) else { return completionHandler(request) }
        completionHandler(block(session, task, response, request))
    }

    func session(_ session: Session, task: SessionTask, didReceive challenge: AuthenticationChallenge,
                 completionHandler: @escaping @Sendable (AuthChallengeDisposition, Credential?) -> Void) {
        guard let block = hooks.block({ $0.taskDidReceiveChallenge }) else { return completionHandler(.performDefaultHandling, nil) }
        let (disposition, credential) = block(session, task, challenge)
        completionHandler(disposition, credential)
    }

    func session(_ session: Session, task: SessionTask, needNewBodyStream completionHandler: @escaping @Sendable (RequestBody?) -> Void) {
        completionHandler(hooks.block { $0.taskNeedNewBodyStream }?(session, task))
    }

    func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        state.withLock { $0.metrics = metrics }
        hooks.block { $0.taskDidFinishCollectingMetrics }?(session, task, metrics)
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        hooks.block { $0.taskDidComplete }?(session, task, error)
        let (data, fileURL, moveError, metrics) = state.withLock { state in
            defer { state.data = Data() }
            return (state.data, state.fileURL, state.moveError, state.metrics)
        }
        if let downloadProgress, error == nil {
            downloadProgress(TaskProgress(completedUnitCount: task.countOfBytesReceived,
                                          totalUnitCount: task.countOfBytesExpectedToReceive, isFinished: true))
        }
        finish(ManagerTaskOutcome(task: task, response: task.response, data: task is DownloadTask ? nil : data,
                                  fileURL: fileURL, error: error ?? moveError, metrics: metrics))
    }

    // MARK: Data events

    /// Only a block decides about responses: without one the body is read at once.
    var decidesResponses: Bool { hooks.block { $0.dataTaskDidReceiveResponse } != nil }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        completionHandler(hooks.block { $0.dataTaskDidReceiveResponse }?(session, dataTask, response) ?? .allow)
    }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { $0.data.append(data) }
        downloadProgress?(TaskProgress(completedUnitCount: dataTask.countOfBytesReceived,
                                       totalUnitCount: dataTask.countOfBytesExpectedToReceive))
        hooks.block { $0.dataTaskDidReceiveData }?(session, dataTask, data)
    }

    func session(_ session: Session, dataTask: DataTask, didBecome downloadTask: DownloadTask) {
        hooks.block { $0.dataTaskDidBecomeDownloadTask }?(session, dataTask, downloadTask)
    }

    // MARK: Download events

    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?) {
        downloadProgress?(TaskProgress(completedUnitCount: totalBytesWritten, totalUnitCount: totalBytesExpectedToWrite))
        hooks.block { $0.downloadTaskDidWriteData }?(session, downloadTask, bytesWritten, totalBytesWritten, totalBytesExpectedToWrite)
    }

    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
        downloadProgress?(TaskProgress(completedUnitCount: fileOffset, totalUnitCount: expectedTotalBytes))
        hooks.block { $0.downloadTaskDidResume }?(session, downloadTask, fileOffset, expectedTotalBytes)
    }

    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
        // The manager's block first; the task's own destination only when the block is not set
        // or returns nil (AFURLSessionManager's order).
        let target = hooks.block { $0.downloadTaskDidFinishDownloading }?(session, downloadTask, location)
            ?? destination.flatMap { choose in downloadTask.response.map { choose(location, $0) } }
        guard let target else { return }
        do throws(NetworkError) {
            try FileMove.move(location, to: target)
            state.withLock { $0.fileURL = target }
            hooks.notify?(.downloadDidMoveFile(downloadTask, target))
        } catch {
            state.withLock { $0.moveError = error }
            hooks.notify?(.downloadDidFailToMoveFile(downloadTask, error))
        }
    }
}
