import Ferry
import FoundationEssentials
import Synchronization

/// The delegate of a `-C` transfer, which the library runs as a continuing download: what the
/// data path reads from its body loop, a download hears from the session instead.
///
/// It hands the events of `-v` and `-e ';auto'` to a ``TransferObserver``, draws the progress meter from the bytes
/// written, and keeps what the report needs once the download ended: the response head it
/// was told about, where the file was continued from, how many bytes went into the file this
/// time (curl's `size_download`) and the metrics. Its calls run on the session's serial
/// delegate queue, all of them before the awaiting call returns; the lock only makes the
/// values readable from the transfer afterwards.
final class ContinuationObserver: SessionDownloadDelegate {
    private struct State {
        var response: NetworkResponse?
        var resumedAt: Int64?
        var written: Int64 = 0
        var metrics: TaskMetrics?
    }

    /// `-v`'s printer and `;auto`'s Referer, or nil without either.
    private let observer: TransferObserver?
    private let progress: ProgressReporter?
    private let state = Mutex(State())

    init(observer: TransferObserver?, progress: ProgressReporter?) {
        self.observer = observer
        self.progress = progress
    }

    /// The response head the session delegated, or nil: a continuation the library refuses
    /// (a 200, a 404) is told only in the error, which carries that head.
    var response: NetworkResponse? { state.withLock { $0.response } }
    /// The bytes on disk the file was continued after, or nil when nothing was continued (an
    /// ordinary download: no file, an empty one, `-C 0`, or an answer that was refused).
    var resumedAt: Int64? { state.withLock { $0.resumedAt } }
    /// Body bytes written to the file by this transfer, not counting those it continued.
    var written: Int64 { state.withLock { $0.written } }
    var metrics: TaskMetrics? { state.withLock { $0.metrics } }

    /// Whether `response` says the file was complete already: the 416 of a continued file,
    /// which the library turns into a success that writes nothing.
    func isComplete(_ response: NetworkResponse) -> Bool {
        response.statusCode == 416 && resumedAt != nil
    }

    // MARK: - SessionTaskDelegate

    func session(_ session: Session, task: SessionTask, didSendRequestHead head: HTTPRequest, over connection: ConnectionInfo) {
        observer?.session(session, task: task, didSendRequestHead: head, over: connection)
    }

    func session(_ session: Session, task: SessionTask, didReceive response: NetworkResponse) {
        state.withLock { $0.response = response }
        observer?.session(session, task: task, didReceive: response)
        // The 206's length is what is left to fetch, as curl's meter counts it.
        if !isComplete(response) { progress?.expect(response.expectedContentLength) }
    }

    func session(_ session: Session, task: SessionTask, willPerformHTTPRedirection response: NetworkResponse,
                 newRequest request: NetworkRequest, completionHandler: @escaping @Sendable (NetworkRequest?) -> Void) {
        guard let observer else { return completionHandler(request) }
        observer.session(session, task: task, willPerformHTTPRedirection: response, newRequest: request,
                         completionHandler: completionHandler)
    }

    func session(_ session: Session, task: SessionTask, didFinishCollecting metrics: TaskMetrics) {
        state.withLock { $0.metrics = metrics }
    }

    // MARK: - SessionDownloadDelegate

    func session(_ session: Session, downloadTask: DownloadTask, didResumeAtOffset fileOffset: Int64, expectedTotalBytes: Int64?) {
        state.withLock { $0.resumedAt = fileOffset }
    }

    func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                 totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?) {
        state.withLock { $0.written += bytesWritten }
        progress?.received(Int(bytesWritten))
    }

    /// The file is the `-o` file, the caller's: it stays where it is.
    func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {}
}
