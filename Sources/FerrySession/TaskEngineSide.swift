#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import FerryEngine
import FerryIO
import FerryWire
import FoundationEssentials

/// The side of a ``SessionTask`` the engine drives: where the body goes (the task's output),
/// the delegate chosen when it started, and the metrics of its exchanges.
///
/// Confined: written by the thread that resumes the task before its first exchange starts
/// (or that cancels a task that never started: it completed under the task's lock first, so
/// no resume can race), then only by the exchange's callbacks on its loop thread, one at a time. A value stored in
/// the task (not an object of its own: one allocation fewer per request).
struct TaskEngineSide {
    /// Where response body bytes go.
    enum Sink {
        /// Collected in memory for a completion handler or an async call.
        case memory
        /// Handed to a ``ResponseBody`` consumer, with backpressure.
        case stream(ResponseBodyBuffer)
        /// Written to a file (a temporary one is removed once the delegate or completion
        /// handler returned, as URLSession's).
        case file(DownloadTarget)
        /// Given to the data delegate as it arrives, or dropped when there is none
        /// (URLSession's data task without a completion handler).
        case delegate
    }

    private(set) var sink: Sink
    private(set) var collected = Data()
    private(set) var file: DownloadFile?
    /// The task's delegate, else the session's task delegate; fixed when the task starts.
    private(set) var delegate: (any SessionTaskDelegate)?
    /// ``delegate`` when it says which events it wants (``SelectiveTaskDelegate``).
    private(set) var selective: (any SelectiveTaskDelegate)?
    /// The download delegate to tell of writes, and the task as it knows it; nil when a
    /// completion handler takes the file.
    private(set) var downloadObserver: (delegate: any SessionDownloadDelegate, task: DownloadTask)?
    /// The download delegate is handed the finished file (nobody else waits for it).
    private var handsFileToDelegate = false
    /// When the task started (wall clock), for metrics; set by ``start(delegate:reports:for:)``.
    private(set) var fetchStart = Date(timeIntervalSinceReferenceDate: 0)
    /// One entry per finished exchange.
    var transactions: [TransactionMetrics] = []
    /// The download task a data task's exchange was handed to (``ResponseDisposition/becomeDownload``):
    /// every later callback of the exchange goes to it.
    var successor: DownloadTask?
    /// What the running exchange's response leads to, when it is a redirect or an
    /// authentication challenge the task answers itself (its body is read and dropped meanwhile).
    var followUp: FollowUp?
    /// The exchange whose response ``followUp`` is asking about already failed (a proxy
    /// refused a tunnel with 407): what the decision completes.
    var endedWhileAsking: EndedExchange?
    /// Redirects followed so far.
    var redirectsFollowed = 0
    /// The running exchange's response status, for its metrics (0 before a head arrived).
    var exchangeStatus = 0
    /// Whether a follow-up replaced the original request (the common task never reads
    /// ``SessionTask/currentRequest``'s lock).
    var requestReplaced = false
    /// The response head that arrived while the task was suspended, until `resume()`.
    var heldHead: ResponseHead?
    /// The running exchange's head carries the `Expect: 100-continue` the engine added.
    var sentEnginesExpectation = false
    /// A server refused the engine's `Expect: 100-continue` with 417: later exchanges go
    /// without it.
    var expectationRefused = false
    /// The HTTP authentication this task has tried so far.
    var authentication = TaskAuthentication()
    /// When the first exchange started: the task's time zero for metrics across redirects.
    var firstExchangeStart: Deadline?

    init(sink: Sink) {
        self.sink = sink
    }

    /// The body goes to a ``ResponseBody`` consumer (before the task starts).
    mutating func stream(into buffer: ResponseBodyBuffer) {
        sink = .stream(buffer)
    }

    /// The body is collected for an awaiting caller (before the task starts).
    mutating func collect() {
        sink = .memory
    }

    /// What a download delegate hears of, by who else waits for the task: with a completion
    /// handler, no delivery call (URLSession's rule); with an awaiting caller, progress only.
    enum DownloadReports {
        /// Its writes and the finished file: nobody else waits.
        case writesAndFile
        /// Its writes only: an awaiting caller takes the file.
        case writes
        /// Nothing: a completion handler takes the file, and the delegate gets no delivery call.
        case none

    }

    /// The task starts: the delegate is fixed from here on.
    /// - Parameter reports: What a download delegate hears of.
    mutating func start(delegate: (any SessionTaskDelegate)?, reports: DownloadReports, for task: SessionTask) {
        self.delegate = delegate
        // Cast once here, not per body write or per head.
        selective = delegate.flatMap { $0 as? any SelectiveTaskDelegate }
        if reports != .none, case .file = sink, let downloadDelegate = delegate as? any SessionDownloadDelegate,
           let downloadTask = task as? DownloadTask {
            downloadObserver = (downloadDelegate, downloadTask)
        } else {
            downloadObserver = nil
        }
        handsFileToDelegate = reports == .writesAndFile
        fetchStart = Date()
    }

    /// The task takes over `predecessor`'s running exchange, paused at its response head: the
    /// same delegate, start time, redirects and metrics so far, and the exchange's status.
    mutating func adopt(from predecessor: TaskEngineSide, for task: SessionTask) {
        start(delegate: predecessor.delegate, reports: .writesAndFile, for: task)
        fetchStart = predecessor.fetchStart
        transactions = predecessor.transactions
        redirectsFollowed = predecessor.redirectsFollowed
        exchangeStatus = predecessor.exchangeStatus
        requestReplaced = predecessor.requestReplaced
        firstExchangeStart = predecessor.firstExchangeStart
    }

    /// Opens what the task writes to before any byte is requested.
    /// - Throws: ``NetworkError/Code/cannotCreateFile`` when a download's file cannot be made;
    ///   ``NetworkError/Code/cannotResumeDownload`` when a continued one's file is gone or short,
    ///   or its resume data could not be read.
    mutating func prepareSink(for request: NetworkRequest) throws(NetworkError) {
        guard case .file(let target) = sink else { return }
        switch target {
        case .temporary, .destination:
            let destination: String?
            if case .destination(let path) = target { destination = path } else { destination = nil }
            do throws(SystemError) {
                if let destination {
                    file = try DownloadFile.create(replacing: destination)
                } else {
                    file = try DownloadFile.createTemporary()
                }
            } catch {
                let path = destination ?? DownloadFile.temporaryDirectory
                throw NetworkError(SessionFailure.cannotCreateFile(path: path, error), url: request.url)
            }
        case .continuing(let continuation):
            do throws(ResumeFailure) {
                file = try DownloadFile.continuing(path: continuation.path, keeping: continuation.offset,
                                                   followingLinks: continuation.followsLinks)
            } catch {
                throw NetworkError(SessionFailure.cannotResume(error), url: request.url)
            }
        case .unusable(let error):
            throw error
        }
    }

    // MARK: - Body

    /// Hands body bytes to the output. Returns whether the output wants more, or the error
    /// that stops the exchange (a file that cannot be written).
    mutating func deliver(_ bytes: UnsafeRawBufferPointer, of task: SessionTask) -> Result<Bool, EngineError> {
        switch sink {
        case .memory:
            collected.append(contentsOf: bytes)
            return .success(true)
        case .stream(let buffer):
            return .success(buffer.append(Array(bytes)))
        case .file:
            guard let file else { return .success(true) }
            do throws(SystemError) {
                try file.write(bytes)
                return .success(true)
            } catch {
                return .failure(EngineError(.fileWriteFailed(path: file.destination ?? file.path, error)))
            }
        case .delegate:
            guard let dataDelegate = delegate as? any SessionDataDelegate, let dataTask = task as? DataTask else {
                return .success(true)
            }
            let data = Data(bytes)
            return .success(task.queueForDelegate(byteCount: data.count) { session in
                dataDelegate.session(session, dataTask: dataTask, didReceive: data)
            })
        }
    }

    /// Whether the output still holds reading after it refused more (`deliver` returned
    /// false), given the task's delegate backlog. Asked under the task's lock, as the task
    /// records the output full: the output drains on another thread and may have done so in
    /// between, while the task did not yet know it was full; its drain call then changed
    /// nothing, and recording the output full now would stop reading for good. A stream is
    /// still full while its buffer is paused (its consumer resumes it once). A delegate's
    /// backlog is while a call in it has yet to run: each one that leaves it below half
    /// drains it.
    func outputStillFull(bytesQueuedForDelegate: Int) -> Bool {
        switch sink {
        case .stream(let buffer): return buffer.isPaused
        case .delegate: return bytesQueuedForDelegate > 0
        case .memory, .file: return true
        }
    }

    /// The data delegate that decides about the response, when the task hands its body to one
    /// (URLSession asks only then: not for a task with a completion handler or an async call).
    func responseDecider(for task: SessionTask) -> (any SessionDataDelegate, DataTask)? {
        guard case .delegate = sink, let dataDelegate = delegate as? any SessionDataDelegate,
              let dataTask = task as? DataTask else { return nil }
        // Asking holds the body (reading paused, then resumed: two epoll_ctl calls) and a hop.
        if let selective, !selective.decidesResponses { return nil }
        return (dataDelegate, dataTask)
    }

    /// A stream hands arrays to its consumer, so the engine may read body bytes into one.
    var prefersOwnedBodyChunks: Bool {
        if case .stream = sink { return true }
        return false
    }

    /// Hands an array the engine read body bytes into to a stream's consumer.
    mutating func deliver(owned chunk: consuming [UInt8], of task: SessionTask) -> Result<Bool, EngineError> {
        guard case .stream(let buffer) = sink else {
            let bytes = chunk
            return bytes.withUnsafeBytes { deliver($0, of: task) }
        }
        return .success(buffer.append(consume chunk))
    }

    /// An emptied array of a stream's consumer, for the next owned chunk.
    func reusableBodyChunk(minimumCapacity: Int) -> [UInt8]? {
        guard case .stream(let buffer) = sink else { return nil }
        return buffer.takeSpareChunk(minimumCapacity: minimumCapacity)
    }

    // MARK: - End

    /// What the output holds once the exchange completed.
    /// The file is closed (or, after a failure to close or move it, removed unless it is the
    /// caller's). A continued file that ended short of its 206's range is left open, for the
    /// task's settlement to keep with resume data, as a download that stopped part way.
    mutating func finishedResult(response: NetworkResponse, url: URL?) -> Result<TaskResult, NetworkError> {
        guard case .file = sink, let file else { return .success(TaskResult(response: response, data: collected)) }
        if let complete = file.completeLength, file.length != complete {
            // A continued body that ended cleanly but early (a last chunk before the range's
            // end): the download stopped part way, and its file is settled as any such
            // (kept with resume data when it can be continued).
            let early = EngineError(.partialBody(received: file.length, expected: complete))
            return .failure(NetworkError(early, url: url).attaching(response: response))
        }
        self.file = nil
        do throws(SystemError) {
            try file.applyPendingCut()
            try file.close()
            return .success(TaskResult(response: response, location: URL(fileURLWithPath: try file.commit())))
        } catch {
            if !keepsCallersFile { file.discard() } else { try? file.close() }
            return .failure(NetworkError(EngineError(.fileWriteFailed(path: file.destination ?? file.path, error)), url: url))
        }
    }

    /// The download continues a file the caller named: it is never removed.
    private var keepsCallersFile: Bool {
        if case .file(.continuing(let continuation)) = sink { return continuation.isCallersFile }
        return false
    }

    /// The task failed: a partial download is removed (URLSession's rule), unless `keeping`
    /// (its resume data names it) or the caller named it to be continued (curl's `-C`).
    /// Returns whether the file was kept whole (a deferred write error, reported by `close`,
    /// means the bytes on disk cannot be trusted: resume data must not name them then).
    @discardableResult
    mutating func endPartialOutput(keeping: Bool = false) -> Bool {
        defer {
            file = nil
            collected = Data()
        }
        guard let file else { return false }
        guard keeping || keepsCallersFile else {
            file.discard()
            return false
        }
        do throws(SystemError) {
            try file.close()
            return true
        } catch {
            if !keepsCallersFile { file.discard() }
            return false
        }
    }

    /// Tells everyone who waits how the task ended, in URLSession's order: metrics, the
    /// downloaded file, completion to the delegate; then the completion handler or the awaiting
    /// call; then a temporary file is removed.
    /// - Returns: What must run on the delegate queue, when the task has a delegate: the
    ///   caller sends it after the delegate calls already on their way.
    mutating func deliverCompletion(of task: SessionTask, outcome: Result<TaskResult, NetworkError>, metrics: TaskMetrics?,
                                    ending: TaskCore.Ending) -> (@Sendable () -> Void)? {
        if !ending.observers.isEmpty || ending.progressHandler != nil {
            ending.announce(task.progress)
        }
        let temporaryFile: String?
        let handedOver: String?
        if case .file(let target) = sink, target.handsOver, case .success(let result) = outcome {
            handedOver = result.location?.path
            // An awaiting call (``DownloadTask/download()``) returns the file: it is the caller's.
            let returned = if case .waiter = ending.completion { true } else { false }
            temporaryFile = target.removesFile && !returned ? handedOver : nil
        } else {
            (handedOver, temporaryFile) = (nil, nil)
        }
        guard let delegate else {
            switch ending.completion {
            case .handler:
                let frontEnd = FrontEnd(completion: ending.completion, sink: sink, outcome: outcome)
                task.session.delegateQueue.async {
                    frontEnd.run()
                    if let temporaryFile { unlink(temporaryFile) }
                }
            case .waiter, .none:
                // The common case (an async call without a delegate): straight from here.
                FrontEnd.run(ending.completion, sink: sink, outcome: outcome)
                if let temporaryFile { unlink(temporaryFile) }
            }
            return nil
        }
        let frontEnd = FrontEnd(completion: ending.completion, sink: sink, outcome: outcome)
        let session = task.session
        let error = outcome.failureValue
        let observer = handsFileToDelegate ? downloadObserver : nil
        self.delegate = nil
        downloadObserver = nil
        return {
            if let metrics { delegate.session(session, task: task, didFinishCollecting: metrics) }
            // A download to a destination the caller chose (`download(for:to:)`) is already
            // where it belongs: only the others are handed over.
            if let handedOver, let observer {
                observer.delegate.session(session, downloadTask: observer.task,
                                          didFinishDownloadingTo: URL(fileURLWithPath: handedOver))
            }
            delegate.session(session, task: task, didCompleteWithError: error)
            frontEnd.run()
            if let temporaryFile { unlink(temporaryFile) }
        }
    }
}

/// The front end's share of a task's end: the completion handler or awaiting call, and the
/// end of a streamed body.
private struct FrontEnd: @unchecked Sendable {
    let completion: TaskCompletion
    let sink: TaskEngineSide.Sink
    let outcome: Result<TaskResult, NetworkError>

    func run() {
        Self.run(completion, sink: sink, outcome: outcome)
    }

    static func run(_ completion: TaskCompletion, sink: TaskEngineSide.Sink, outcome: Result<TaskResult, NetworkError>) {
        switch completion {
        case .none: break
        case .waiter(let continuation, _): continuation.resume(returning: outcome)
        case .handler(let handler): handler(outcome)
        }
        // A streamed body ends with the task (its head was handed over already, or the failure
        // above told the waiter).
        if case .stream(let buffer) = sink { buffer.finish(outcome.failureValue) }
    }
}

extension Result {
    /// The failure, if this is one.
    var failureValue: Failure? {
        if case .failure(let failure) = self { return failure }
        return nil
    }
}

/// A task delegate that says which of its events it has a use for, so the others cost no hop
/// to the delegate queue (package-only: Ferry's managers, whose interest depends on the
/// blocks and progress handlers their user set).
package protocol SelectiveTaskDelegate: SessionTaskDelegate {
    /// Whether to ask ``SessionDataDelegate/session(_:dataTask:didReceive:completionHandler:)``
    /// about the response now arriving; false allows it unasked, and its body is read at once.
    var decidesResponses: Bool { get }
    /// Whether to tell
    /// ``SessionTaskDelegate/session(_:task:didSendBodyData:totalBytesSent:totalBytesExpectedToSend:)``
    /// as body bytes are written.
    var wantsSendProgress: Bool { get }
}
