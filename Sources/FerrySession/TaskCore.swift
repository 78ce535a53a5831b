import FerryEngine
import FoundationEssentials

/// What a ``SessionTask`` shares between the caller's threads and the engine's loop thread,
/// always under the task's lock: the state machine, the facts the public properties report,
/// and who waits for the outcome.
struct TaskCore {
    var machine = TaskStateMachine()
    /// Controls the running exchange; set once the engine accepted it.
    var handle: ExchangeHandle?
    /// The request a redirect or retry replaced the original with; nil while it is the
    /// original (kept out of the common case: a copy of the request per task costs).
    var replacedRequest: NetworkRequest?
    var response: NetworkResponse?
    var error: NetworkError?
    /// The task's metrics, once it completed.
    var metrics: TaskMetrics?
    var taskDescription: String?
    var priority: Float = 0.5
    /// The task's own caps (each under the session's), read as each exchange starts.
    var bandwidth: BandwidthLimits?
    var delegate: (any SessionTaskDelegate)? {
        // Worked out once here, so resume and suspend cast nothing.
        didSet { observesLifecycle = delegate is any TaskLifecycleObserving }
    }
    /// The delegate wants to hear of resume and suspend (``TaskLifecycleObserving``).
    private(set) var observesLifecycle = false
    var counts = TaskCounts()
    var completion = TaskCompletion.none

    /// Nothing has claimed the task yet: it was never resumed, and no handler or awaiting
    /// caller is attached. The async forms (`data()`, `bytes()`, `download()`) take only such
    /// a task.
    var isUnclaimed: Bool {
        guard case .created = machine.state, case .none = completion else { return false }
        return true
    }
    /// What a download delegate hears of, by who waits for the task besides it.
    var downloadReports: TaskEngineSide.DownloadReports {
        switch completion {
        case .none: .writesAndFile
        case .waiter: .writes
        case .handler: .none
        }
    }
    var progressObservers: [AsyncStream<TaskProgress>.Continuation] = []
    /// Told of every progress value, under the lock: what keeps ``foundationProgress`` current.
    var progressHandler: (@Sendable (TaskProgress) -> Void)?
    /// The task's `Foundation.Progress`, once asked for (only with the `FoundationProgress` trait).
    var foundationProgress: AnyObject?
    /// Whether the task holds a suspension for its paused ``foundationProgress``.
    var pausedByProgress = false
    /// Body bytes handed to the delegate queue and not yet delivered there (a data delegate's
    /// `didReceive data`): the output's fill level when the delegate is the output.
    var bytesQueuedForDelegate = 0
    /// A download's `didWriteData` call waits on the delegate queue; it reports what was
    /// written up to when it runs.
    var writeReportPending = false
    /// Bytes a download's delegate has been told of.
    var bytesReportedWritten: Int64 = 0
    /// Waits for a download's resume data (``DownloadTask/cancel(byProducingResumeData:)``).
    var resumeDataHandler: (@Sendable (Data?) -> Void)?
    /// ``bytesExpectedToReceive()`` once worked out (an absent length is kept as `.some(nil)`).
    private var expectedToReceive: Int64??
    /// The outcome was delivered (or is being delivered): nothing more happens.
    private(set) var isFinished = false

    init() {}

    /// What must happen once the lock is released, when the task ends.
    struct Ending {
        var completion: TaskCompletion
        var observers: [AsyncStream<TaskProgress>.Continuation]
        var progressHandler: (@Sendable (TaskProgress) -> Void)?
        var resumeDataHandler: (@Sendable (Data?) -> Void)?

        /// Gives the progress observers the task's last value and ends their sequences.
        func announce(_ final: TaskProgress) {
            progressHandler?(final)
            for observer in observers {
                observer.yield(final)
                observer.finish()
            }
        }
    }

    /// Records the outcome and hands out who must hear of it; nil when the task already ended.
    mutating func finish(_ outcome: Result<TaskResult, NetworkError>, metrics: TaskMetrics? = nil) -> Ending? {
        guard !isFinished else { return nil }
        isFinished = true
        self.metrics = metrics
        switch outcome {
        case .success(let result):
            response = result.response
        case .failure(let failure):
            error = failure
            if let failed = failure.response, response == nil { response = failed }
        }
        handle = nil
        // The caller's objects are let go of: a finished task keeps no delegate alive.
        delegate = nil
        // Moved out, not copied: no retain of what is handed over, no release of what is left.
        var ending = Ending(completion: .none, observers: [], progressHandler: progressHandler, resumeDataHandler: resumeDataHandler)
        swap(&ending.completion, &completion)
        swap(&ending.observers, &progressObservers)
        progressHandler = nil
        resumeDataHandler = nil
        return ending
    }

    /// The response body's announced length, once the head arrived: worked out from its
    /// fields the first time someone asks (most requests never do), then kept.
    mutating func bytesExpectedToReceive() -> Int64? {
        if let known = expectedToReceive { return known }
        guard let response else { return nil }
        let length = response.expectedContentLength
        expectedToReceive = .some(length)
        return length
    }

    /// A continued download goes on after the `offset` bytes on disk: they count as received
    /// (and as reported to the download delegate), out of `expectedTotal`, the whole file.
    mutating func downloadContinues(at offset: Int64, expectedTotal: Int64?) {
        counts.bytesReceived = offset
        bytesReportedWritten = offset
        expectedToReceive = .some(expectedTotal)
    }

    /// The progress value for the current counts.
    mutating func progress(uploads: Bool) -> TaskProgress {
        if uploads {
            return TaskProgress(completedUnitCount: counts.bytesSent, totalUnitCount: counts.bytesExpectedToSend,
                                isFinished: isFinished)
        }
        return TaskProgress(completedUnitCount: counts.bytesReceived, totalUnitCount: bytesExpectedToReceive(),
                            isFinished: isFinished)
    }

    /// Tells progress observers, if any (none: no work). An observer whose sequence its
    /// consumer dropped or stopped is let go of here.
    mutating func publishProgress(uploads: Bool) {
        guard !progressObservers.isEmpty || progressHandler != nil else { return }
        let value = progress(uploads: uploads)
        progressHandler?(value)
        progressObservers.removeAll { observer in
            if case .terminated = observer.yield(value) { return true }
            return false
        }
    }
}

/// Bytes moved by a task, as its public `countOf…` properties report them.
struct TaskCounts: Sendable {
    var bytesSent: Int64 = 0
    var bytesExpectedToSend: Int64?
    var bytesReceived: Int64 = 0
}

/// How far a task has come: a Sendable value (the library does not link the full Foundation,
/// where `Foundation.Progress` lives).
public struct TaskProgress: Sendable, Equatable {
    /// Bytes done: received, or sent for an upload task.
    public var completedUnitCount: Int64
    /// Bytes expected, when known.
    public var totalUnitCount: Int64?
    /// The task completed (successfully or not).
    public var isFinished: Bool

    /// Creates a progress value.
    public init(completedUnitCount: Int64, totalUnitCount: Int64?, isFinished: Bool = false) {
        self.completedUnitCount = completedUnitCount
        self.totalUnitCount = totalUnitCount
        self.isFinished = isFinished
    }

    /// The fraction done, from 0 to 1; nil while the total is unknown (1 once finished).
    public var fractionCompleted: Double? {
        if isFinished { return 1 }
        guard let totalUnitCount else { return nil }
        guard totalUnitCount > 0 else { return 0 }
        return min(1, Double(completedUnitCount) / Double(totalUnitCount))
    }
}
