import FerryBase
import Dispatch
import FerryEngine
import FoundationEssentials
import Synchronization

/// One request a ``Session`` runs: the counterpart of `URLSessionTask`.
///
/// A task is made suspended by one of the session's factory methods
/// (``Session/dataTask(with:)``, ``Session/uploadTask(with:from:)``,
/// ``Session/downloadTask(with:)``, …) and does nothing until ``resume()``. It then runs one
/// or more exchanges on the session's engine and completes exactly once: its completion
/// handler, or its delegate's ``SessionTaskDelegate/session(_:task:didCompleteWithError:)``,
/// says how. The async calls (``Session/data(for:delegate:)`` and the others) run a task too;
/// cancelling the awaiting Swift task cancels it.
///
/// Every property and method may be used from any thread.
public class SessionTask: @unchecked Sendable {
    /// Where a task is in its life: URLSessionTask's four states.
    public enum State: Int, Sendable {
        /// Running (the first ``SessionTask/resume()`` was called, and every `suspend()` since
        /// was balanced by a `resume()`).
        case running = 0
        /// Made but not resumed yet, or suspended: no body bytes are read while suspended.
        case suspended = 1
        /// ``SessionTask/cancel()`` was called; the task completes soon with
        /// ``NetworkError/Code/cancelled``.
        case canceling = 2
        /// The task completed; ``SessionTask/response`` and ``SessionTask/error`` are final.
        case completed = 3
    }

    // A task object must stay within 1,032 bytes, glibc's per-thread cache limit: above it,
    // every request's task takes malloc's slow path (W1 under callgrind: about +1,500
    // instructions). Rare state goes out of line (FollowUp is indirect, a request's credential
    // is boxed); TaskObjectSizeTests holds the line.

    /// A number that identifies the task among its session's tasks.
    public let taskIdentifier: Int
    /// The request the task was made with.
    public let originalRequest: NetworkRequest
    /// The session that runs the task.
    public let session: Session
    /// What kind of task this is (fixed; readable from any thread, unlike ``engineSide``).
    let kind: TaskKind

    let core: Locked<TaskCore>
    /// Where the session's ``TaskRegistry`` keeps this task while it runs (-1: not there).
    /// Read and written only under the session's registry lock.
    @exclusivity(unchecked) var registryIndex = -1
    /// Engine-side state: touched by the exchange's callbacks on its loop thread (one at a
    /// time, in order), and before the first exchange by the thread that resumes the task
    /// (the loop's task queue orders the two). Never touched by two threads at once, so the
    /// runtime's exclusivity checks, a call each per access, are left out.
    @exclusivity(unchecked) var engineSide: TaskEngineSide
    /// Delegate calls made during the current pass of the exchange's loop, sent to the
    /// delegate queue together when it ends (``toDelegate(_:)``). Confined as ``engineSide``.
    @exclusivity(unchecked) var delegateBatch: [@Sendable () -> Void] = []

    init(session: Session, identifier: Int, request: NetworkRequest, sink: TaskEngineSide.Sink, kind: TaskKind) {
        self.session = session
        self.kind = kind
        taskIdentifier = identifier
        originalRequest = request
        core = Locked(TaskCore())
        engineSide = TaskEngineSide(sink: sink)
    }

    // MARK: - State

    /// Where the task is in its life.
    public var state: State { core.withLock { $0.machine.publicState } }
    /// The request the task is running now: ``originalRequest`` until a redirect replaces it.
    public var currentRequest: NetworkRequest { core.withLock { $0.replacedRequest } ?? originalRequest }
    /// The response head, once it arrived.
    public var response: NetworkResponse? { core.withLock { $0.response } }
    /// Why the task failed, once it completed with an error; nil while it runs or after success.
    public var error: NetworkError? { core.withLock { $0.error } }
    /// What the task's exchanges took (one transaction each), once it completed: the value its
    /// delegate's ``SessionTaskDelegate/session(_:task:didFinishCollecting:)`` receives, here
    /// for callers without a delegate. Nil while it runs, and for a task that never started an
    /// exchange.
    public var metrics: TaskMetrics? { core.withLock { $0.metrics } }

    /// A description of the task for the caller's own use (URLSession's `taskDescription`).
    public var taskDescription: String? {
        get { core.withLock { $0.taskDescription } }
        set { core.withLock { $0.taskDescription = newValue } }
    }

    /// How urgent the task is, from 0 (lowest) to 1 (highest); 0.5 by default. While tasks
    /// wait for a connection to the same host, the most urgent gets the next free one. Read
    /// when the task starts; values outside the range are clamped.
    public var priority: Float {
        get { core.withLock { $0.priority } }
        set { core.withLock { $0.priority = min(1, max(0, newValue)) } }
    }

    /// The most response bytes per second this task receives (curl's `--limit-rate`, or
    /// `CURLOPT_MAX_RECV_SPEED_LARGE`); nil, the default, or a value below 1: no cap of its own.
    /// Counted as bytes arrive (heads and bodies, before decoding); the session's cap
    /// (``SessionConfiguration/maximumDownloadBytesPerSecond``) applies as well. At most 1 GB/s
    /// (a higher value is read as that). Set it before ``resume()``; a change applies from the
    /// task's next request (a redirect, an answer to a challenge), with a fresh burst.
    public var maximumDownloadBytesPerSecond: Int64? {
        get { core.withLock { $0.bandwidth?.download?.bytesPerSecond } }
        set {
            let limiter = BandwidthLimits.limiter(newValue, under: session.bandwidth?.download)
            core.withLock { $0.bandwidth = BandwidthLimits(download: limiter, upload: $0.bandwidth?.upload) }
        }
    }

    /// The most request-body bytes per second this task sends (curl's `--limit-rate`, or
    /// `CURLOPT_MAX_SEND_SPEED_LARGE`); nil, the default, or a value below 1: no cap of its
    /// own. The session's cap (``SessionConfiguration/maximumUploadBytesPerSecond``) and a
    /// throttled body's (``RequestBody/maximumBytesPerSecond``) apply as well. At most 1 GB/s.
    /// Set it before ``resume()``; a change applies from the task's next request.
    public var maximumUploadBytesPerSecond: Int64? {
        get { core.withLock { $0.bandwidth?.upload?.bytesPerSecond } }
        set {
            let limiter = BandwidthLimits.limiter(newValue, under: session.bandwidth?.upload)
            core.withLock { $0.bandwidth = BandwidthLimits(download: $0.bandwidth?.download, upload: limiter) }
        }
    }

    /// The task's own delegate: it receives this task's events instead of the session's
    /// delegate. Set it before ``resume()``; the task lets go of it once it completed.
    public var delegate: (any SessionTaskDelegate)? {
        get { core.withLock { $0.delegate } }
        set { core.withLock { $0.delegate = newValue } }
    }

    // MARK: - Counts and progress

    /// Body bytes written so far by the running exchange: a body sent again (after a 307, or
    /// to answer a 401) counts from 0 again, so this never passes its length.
    public var countOfBytesSent: Int64 { core.withLock { $0.counts.bytesSent } }
    /// The request body's length, when known.
    public var countOfBytesExpectedToSend: Int64? { core.withLock { $0.counts.bytesExpectedToSend } }
    /// Response body bytes received so far (after content decoding).
    public var countOfBytesReceived: Int64 { core.withLock { $0.counts.bytesReceived } }
    /// The response body's announced length, when known (never for a content-encoded body).
    public var countOfBytesExpectedToReceive: Int64? { core.withLock { $0.bytesExpectedToReceive() } }

    /// How far the task has come: body bytes received against those expected (for an upload
    /// task, body bytes sent against the body's length).
    public var progress: TaskProgress { core.withLock { $0.progress(uploads: kind == .upload) } }

    /// The task's progress as it changes, starting with its current value and ending when the
    /// task completes. Each call makes a new sequence; a slow reader sees the newest values (at
    /// most 8 wait for it).
    public var progressUpdates: AsyncStream<TaskProgress> {
        let (stream, continuation) = AsyncStream.makeStream(of: TaskProgress.self, bufferingPolicy: .bufferingNewest(8))
        let uploads = kind == .upload
        let finished = core.withLock { core -> Bool in
            continuation.yield(core.progress(uploads: uploads))
            guard core.machine.publicState != .completed else { return true }
            core.progressObservers.append(continuation)
            return false
        }
        if finished { continuation.finish() }
        return stream
    }

    // MARK: - Control

    /// Starts the task, or continues it after ``suspend()``. A surplus call does nothing.
    public func resume() {
        changeSuspension { _ in false }
    }

    /// Suspends the task: nothing more of the response is read or delivered (a head that
    /// arrives waits, and so does the end of a response without a body) until ``resume()``;
    /// the socket's backpressure holds the server, and nothing is lost. A request already
    /// handed to the engine still goes out. Calls are counted: each needs its `resume()`. A
    /// task that has not started yet simply waits longer.
    public func suspend() {
        changeSuspension { _ in true }
    }

    /// Suspends the task (`decide` answers true), resumes it (false) or does nothing (nil), as
    /// `decide` chooses under the task's lock; then tells a lifecycle observer when the task
    /// went between running and suspended.
    func changeSuspension(_ decide: (inout TaskCore) -> Bool?) {
        let (action, told) = core.withLock { core -> (TaskStateMachine.Action, Bool?) in
            guard let suspending = decide(&core) else { return (.none, nil) }
            let before = core.observesLifecycle ? core.machine.publicState : nil
            let action = suspending ? core.machine.suspend() : core.machine.resume()
            guard let before, before != core.machine.publicState else { return (action, nil) }
            return (action, suspending)
        }
        run(action)
        guard let suspending = told, let observer = delegate as? any TaskLifecycleObserving else { return }
        if suspending { observer.taskDidSuspend(self) } else { observer.taskDidResume(self) }
    }

    /// Cancels the task. It completes with ``NetworkError/Code/cancelled`` (at once if it never
    /// started); a task that already completed is not changed.
    public func cancel() {
        let (action, neverStarted) = core.withLock { core in
            let neverStarted = if case .created = core.machine.state { true } else { false }
            return (core.machine.cancel(), neverStarted)
        }
        // Its delegate hears of it all the same, as URLSession's does.
        if neverStarted { fixDelegate { session.sessionWideTaskDelegate } }
        run(action)
    }

    /// Runs what the state machine decided, outside the lock.
    func run(_ action: TaskStateMachine.Action) {
        switch action {
        case .none:
            break
        case .startExchange:
            startFirstExchange()
        case .resumeReading:
            core.withLock { $0.handle }?.resumeReading()
        case .deliverHeldHead:
            guard let handle = core.withLock({ $0.handle }) else { return }
            handle.onLoop { [self] in deliverHeldHead() }
        case .cancelExchange:
            guard let handle = core.withLock({ $0.handle }) else { return }
            handle.cancel()
            // A challenge being decided after its exchange failed has nothing to cancel.
            handle.onLoop { [self] in cancelWhileAskingWithoutExchange() }
        case .completeCancelled:
            complete(.failure(NetworkError(SessionFailure.cancelled, url: originalRequest.url)),
                     metrics: nil)
        case .complete:
            // Reached only through `exchangeEnded`, whose caller completes the task itself.
            break
        }
    }

    /// The first resume: register with the session, open what the task writes to, start.
    private func startFirstExchange() {
        // Outside the lock: a file body's length takes a stat.
        let bodyLength = originalRequest.body?.knownLength
        let settings = core.withLock { core in
            core.counts.bytesExpectedToSend = bodyLength
            return (core.priority, core.bandwidth)
        }
        do throws(NetworkError) {
            // Registered (the session keeps it until it completes) with its delegate fixed.
            try fixDelegate { () throws(NetworkError) in try session.register(self) }
            try engineSide.prepareSink(for: originalRequest)
        } catch {
            return exchangeEnded(.failure(error), metrics: nil)
        }
        startExchange(originalRequest, settings: settings)
    }

    /// Fixes the task's delegate, as it starts or as it is cancelled before it ever started:
    /// its own, else what `sessionWide` returns (the session's task delegate). The own one is
    /// fixed first, so it hears of a `sessionWide` that throws.
    private func fixDelegate<Failure: Error>(
        sessionWide: () throws(Failure) -> (any SessionTaskDelegate)?
    ) throws(Failure) {
        // Only a download has reports to decide: reading the completion costs a generic copy.
        let isDownload = kind == .download
        let (own, reports) = core.withLock { core in (core.delegate, isDownload ? core.downloadReports : .writesAndFile) }
        engineSide.start(delegate: own, reports: reports, for: self)
        let sessionWide = try sessionWide()
        if own == nil, let sessionWide {
            engineSide.start(delegate: sessionWide, reports: reports, for: self)
        }
    }

    /// Runs `request` as the task's next exchange: the first, or one after a redirect.
    /// - Parameter settings: The task's priority and caps, when the caller read them already.
    func startExchange(_ request: NetworkRequest, settings: (priority: Float, bandwidth: BandwidthLimits?)? = nil) {
        let (priority, bandwidth) = settings ?? core.withLock { ($0.priority, $0.bandwidth) }
        do throws(NetworkError) {
            let (exchange, engine, upFront) = try session.prepare(
                request, priority: priority, bandwidth: bandwidth, expectingContinue: !engineSide.expectationRefused)
            if let upFront { engineSide.authentication.sendingUpFront(upFront) }
            // Cancelled meanwhile: the exchange must not start (a fast one could finish, and
            // send what the caller no longer wants, before the cancellation reached it).
            if core.withLock({ $0.machine.publicState == .canceling }) {
                return exchangeEnded(.failure(NetworkError(SessionFailure.cancelled, url: request.url)), metrics: nil)
            }
            // The handle is kept before the exchange can start: a decision about its response
            // (a delegate's, from any thread) finds it however fast the response came.
            var cancelNow = false
            let handle = engine.execute(consume exchange, delegate: self) { handle in
                cancelNow = core.withLock { core -> Bool in
                    core.handle = handle
                    return core.machine.publicState == .canceling
                }
            }
            // `cancel()` ran while the exchange was being handed to the engine.
            if cancelNow { handle.cancel() }
        } catch {
            exchangeEnded(.failure(error), metrics: nil)
        }
    }

    /// The running exchange ended with `outcome`: completes the task unless it already did.
    func exchangeEnded(_ outcome: Result<TaskResult, NetworkError>, metrics: TaskMetrics?) {
        guard core.withLock({ $0.machine.exchangeEnded() }) == .complete else { return }
        complete(outcome, metrics: metrics)
    }

    /// Ends the task exactly once: records the outcome, tells the delegate (metrics, then
    /// completion) and then the front end, and lets go of everything the caller gave it.
    private func complete(_ outcome: Result<TaskResult, NetworkError>, metrics: TaskMetrics?) {
        var outcome = outcome
        // Whatever ended the task, a partial download keeps its file with resume data, or goes.
        if case .failure(let error) = outcome, case .file = engineSide.sink {
            outcome = .failure(settlePartialDownload(after: error))
        }
        let ending = core.withLock { $0.finish(outcome, metrics: metrics) }
        guard let ending else { return }
        // Unregistered first (a caller woken below sees the task gone), but the session's
        // invalidation it may bring is announced after this task's delegate calls.
        let invalidation = session.unregister(self)
        defer { if let invalidation { session.shutDownAfterLastTask(announcingTo: invalidation) } }
        let delegateCalls = engineSide.deliverCompletion(of: self, outcome: outcome, metrics: metrics, ending: ending)
        guard let resumeDataHandler = ending.resumeDataHandler else {
            if let delegateCalls { toDelegate(delegateCalls) }
            return
        }
        // After the completion calls: in the same batch when there are some.
        let resumeData = outcome.failureValue?.downloadTaskResumeData
        if let delegateCalls {
            toDelegate {
                delegateCalls()
                resumeDataHandler(resumeData)
            }
        } else {
            session.delegateQueue.async { resumeDataHandler(resumeData) }
        }
    }
}

/// What kind of task runs: it decides what the progress counts and what the sink holds.
enum TaskKind: Sendable {
    case data, upload, download
}

/// The outcome a front end receives.
struct TaskResult: Sendable {
    var response: NetworkResponse
    /// The body, for tasks that collect it.
    var data: Data = Data()
    /// The downloaded file, for download tasks.
    var location: URL?
}

/// Who waits for a task's outcome.
enum TaskCompletion: Sendable {
    /// Nobody but the delegate.
    case none
    /// An async call; `atHead` resumes it when the response head arrives (``Session/bytes(for:delegate:)``).
    case waiter(CheckedContinuation<Result<TaskResult, NetworkError>, Never>, atHead: Bool)
    /// A completion handler, run on the delegate queue.
    case handler(@Sendable (Result<TaskResult, NetworkError>) -> Void)
}

extension SessionTask {
    /// Whether the engine was told to stop reading and has not been resumed (for tests).
    var isReadingPausedForTests: Bool {
        core.withLock { core in
            guard case .running(let running) = core.machine.state else { return false }
            return running.readingPaused
        }
    }

    /// Whether a response head waits for ``resume()``, for tests.
    var isHoldingResponseHeadForTests: Bool {
        core.withLock { core in
            guard case .running(let running) = core.machine.state else { return false }
            return running.heldHead == .waiting
        }
    }
}

/// A task delegate told when its task starts running or is suspended, on the thread that
/// called ``SessionTask/resume()`` or ``SessionTask/suspend()``: what AFNetworking's task
/// notifications need, which URLSession's delegates do not say. Package-only: Ferry's
/// managers use it.
package protocol TaskLifecycleObserving: AnyObject {
    /// The task went from suspended (or never started) to running.
    func taskDidResume(_ task: SessionTask)
    /// The task went from running to suspended.
    func taskDidSuspend(_ task: SessionTask)
}
