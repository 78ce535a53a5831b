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
        try claimOutput { engineSide.stream(into: buffer) }
        let result = try await outcome(atHead: true)
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
        try claimOutput { engineSide.collect() }
        let result = try await outcome()
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
        // Refused before anything else: an awaiting Swift task already cancelled must not
        // cancel a task it was not allowed to await. (Checked again as the waiter is attached.)
        guard core.withLock(\.isUnclaimed) else { throw NetworkError(SessionFailure.taskCannotStream, url: originalRequest.url) }
        let result = try await outcome(onlyIfNew: true)
        guard let location = result.location else {
            throw NetworkError(EngineError(.internalInconsistency("a download ended without its file")), url: originalRequest.url)
        }
        return (location, result.response)
    }
}

extension SessionTask {
    /// Claims an unclaimed task for `data()` or `bytes()`, which first set where its body goes
    /// (`setUp`, under the task's lock; before the first resume nothing else touches the engine
    /// side, which must still deliver to the delegate).
    /// - Throws: `.invalidRequest` when the task was claimed already or its body goes elsewhere.
    fileprivate func claimOutput(_ setUp: () -> Void) throws(NetworkError) {
        let claimed = core.withLock { core -> Bool in
            guard core.isUnclaimed, case .delegate = engineSide.sink else { return false }
            setUp()
            return true
        }
        guard claimed else { throw NetworkError(SessionFailure.taskCannotStream, url: originalRequest.url) }
    }

    /// Resumes the task and waits for its outcome (or, with `atHead`, for the response head).
    /// Cancelling the awaiting Swift task cancels the task. With `onlyIfNew`, a task that was
    /// resumed or awaited already, or has a completion handler, fails with `.invalidRequest`
    /// (checked as the waiter is attached, so two callers cannot both wait).
    func outcome(atHead: Bool = false, onlyIfNew: Bool = false) async throws(NetworkError) -> TaskResult {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<TaskResult, NetworkError>, Never>) in
                // A task cancelled before this point (the Swift task was cancelled already) has
                // completed with no one waiting: it answers at once.
                if let ended = attachCompletion(.waiter(continuation, atHead: atHead), onlyIfNew: onlyIfNew) {
                    return continuation.resume(returning: .failure(ended))
                }
                resume()
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    /// Sets who waits for the outcome (before ``resume()``). Returns the error the task
    /// already ended with, if it ended before anyone waited (it was cancelled).
    func attachCompletion(_ completion: TaskCompletion, onlyIfNew: Bool = false) -> NetworkError? {
        core.withLock { core in
            // A task that ended unawaited answers with its error (cancelled before it ran).
            guard core.machine.publicState != .completed else {
                return core.error ?? NetworkError(onlyIfNew ? SessionFailure.taskCannotStream : .cancelled, url: originalRequest.url)
            }
            if onlyIfNew, !core.isUnclaimed {
                return NetworkError(SessionFailure.taskCannotStream, url: originalRequest.url)
            }
            core.completion = completion
            return nil
        }
    }
}
