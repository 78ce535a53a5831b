// The one bridge from a task to `async`: every async call of ``Session`` makes a task and
// awaits it here, so cancellation, ordering and delivery are written once.

import FerryBase
import FerryEngine
import FoundationEssentials
import Synchronization

extension DataTask {
    /// Starts the task and returns as soon as the response head arrives; the body follows as
    /// an async sequence with backpressure (its ``ResponseBody/task`` is this task). What
    /// ``Session/bytes(for:delegate:)`` does, for a caller that wants the task itself: its
    /// ``SessionTask/metrics`` once it completed, or ``SessionTask/cancel()`` from elsewhere.
    ///
    /// Call it instead of ``SessionTask/resume()``, on a task made by
    /// ``Session/dataTask(with:)`` (or ``Session/uploadTask(withStreamedRequest:)``). Its
    /// delegate, if set before, receives its events; its data delegate is not given the body.
    /// - Throws: ``NetworkError`` as ``Session/data(for:delegate:)`` for failures before the
    ///   head; `.invalidRequest` when the task was resumed already or has a completion handler.
    public func bytes() async throws(NetworkError) -> (ResponseBody, NetworkResponse) {
        // Weak: the task holds the buffer (its output) until it completes.
        let buffer = ResponseBodyBuffer(
            onResume: { [weak self] in self?.outputDrained() },
            onAbandon: { [weak self] in self?.cancel() })
        try refuseUnlessUnclaimed()
        let result = try await outcome(atHead: true, claiming: { self.engineSide.stream(into: buffer) })
        return (ResponseBody(buffer: buffer, task: self), result.response)
    }
}

extension DataTask {
    /// Starts the task and returns its whole body and its response once it completed: what
    /// ``Session/data(for:delegate:)`` does, for a caller that wants the task itself (its
    /// ``SessionTask/metrics``, or ``SessionTask/cancel()`` from elsewhere).
    ///
    /// Call it instead of ``SessionTask/resume()``, on a task made by
    /// ``Session/dataTask(with:)`` (or ``Session/uploadTask(withStreamedRequest:)``). Its
    /// delegate, if set before, receives its events; its data delegate is not given the body.
    /// - Throws: ``NetworkError`` as ``Session/data(for:delegate:)``; `.invalidRequest` when
    ///   the task was resumed already or has a completion handler.
    public func data() async throws(NetworkError) -> (Data, NetworkResponse) {
        try refuseUnlessUnclaimed()
        let result = try await outcome(claiming: { self.engineSide.collect() })
        return (result.data, result.response)
    }
}

extension DownloadTask {
    /// Starts the task and returns the downloaded file and the response once it completed:
    /// what ``Session/download(resumeFrom:delegate:)`` and
    /// ``Session/download(for:continuing:from:delegate:)`` do, for a caller that wants the task
    /// itself (to set its ``SessionTask/priority`` or caps first, read its metrics, or cancel it
    /// with resume data from elsewhere).
    ///
    /// Call it instead of ``SessionTask/resume()``, on a task made by one of the session's
    /// `downloadTask` factories without a completion handler. Its delegate, if set before,
    /// receives its events. The file is the task's to hand over, as with the async calls: a
    /// temporary file, which the caller moves or removes, or the file it continued. (A
    /// download delegate hears of the writes, but is not handed the file.)
    /// - Throws: ``NetworkError`` as ``Session/download(resumeFrom:delegate:)``;
    ///   `.invalidRequest` when the task was resumed or cancelled already, is awaited by another
    ///   caller, or has a completion handler.
    public func download() async throws(NetworkError) -> (URL, NetworkResponse) {
        try refuseUnlessUnclaimed()
        let result = try await outcome(onlyIfNew: true)
        guard let location = result.location else {
            throw NetworkError(EngineError(.internalInconsistency("a download ended without its file")), url: originalRequest.url)
        }
        return (location, result.response)
    }
}

extension SessionTask {
    /// Refuses, before anything else, a task that was resumed, awaited or given a handler
    /// already: an awaiting Swift task already cancelled must not cancel a task it was not
    /// allowed to await. (Checked again as the waiter is attached.)
    /// - Throws: `.invalidRequest`.
    fileprivate func refuseUnlessUnclaimed() throws(NetworkError) {
        guard core.withLock(\.isUnclaimed) else { throw NetworkError(SessionFailure.taskCannotStream, url: originalRequest.url) }
    }

    /// Resumes the task and waits for its outcome (or, with `atHead`, for the response head).
    /// Cancelling the awaiting Swift task cancels the task. With `onlyIfNew`, a task that was
    /// resumed or awaited already, or has a completion handler, fails with `.invalidRequest`
    /// (checked as the waiter is attached, so two callers cannot both wait). `data()` and
    /// `bytes()` also say where the body goes (`claiming`, see ``attachCompletion(_:onlyIfNew:claiming:)``).
    func outcome(atHead: Bool = false, onlyIfNew: Bool = false,
                 claiming setUp: (() -> Void)? = nil) async throws(NetworkError) -> TaskResult {
        // Cancelling the Swift task cancels the task only once this call waits for it: a call
        // refused as the waiter is attached must not cancel another caller's task.
        let waiting = Atomic(false)
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<TaskResult, NetworkError>, Never>) in
                if let ended = attachCompletion(.waiter(continuation, atHead: atHead), onlyIfNew: onlyIfNew, claiming: setUp) {
                    return continuation.resume(returning: .failure(ended))
                }
                waiting.store(true, ordering: .releasing)
                // Cancelled before the handler below could see this call waiting: the task
                // completes as cancelled and never starts.
                if Task.isCancelled { cancel() }
                resume()
            }
        } onCancel: {
            if waiting.load(ordering: .acquiring) { cancel() }
        }
        return try result.get()
    }

    /// Sets who waits for the outcome (before ``resume()``). Returns the error the task
    /// already ended with, if it ended before anyone waited (it was cancelled).
    ///
    /// `setUp` claims an unclaimed task whose body would go to the delegate for `data()` or
    /// `bytes()`: it sets where the body goes, under the same lock as the waiter is attached,
    /// so a `resume()` from elsewhere either finds both or neither (and the claim then fails:
    /// with `.invalidRequest`, or with the error the task already ended with). Before the
    /// first resume nothing else touches the engine side.
    func attachCompletion(_ completion: TaskCompletion, onlyIfNew: Bool = false,
                          claiming setUp: (() -> Void)? = nil) -> NetworkError? {
        // Only a task nothing has claimed may be taken for a new waiter or a claimed body.
        let needsUnclaimed = onlyIfNew || setUp != nil
        return core.withLock { core in
            // A task that ended unawaited answers with its error (cancelled before it ran).
            guard core.machine.publicState != .completed else {
                return core.error ?? NetworkError(needsUnclaimed ? SessionFailure.taskCannotStream : .cancelled, url: originalRequest.url)
            }
            if needsUnclaimed, !core.isUnclaimed {
                return NetworkError(SessionFailure.taskCannotStream, url: originalRequest.url)
            }
            if let setUp {
                guard case .delegate = engineSide.sink else { return NetworkError(SessionFailure.taskCannotStream, url: originalRequest.url) }
                setUp()
            }
            core.completion = completion
            return nil
        }
    }
}
