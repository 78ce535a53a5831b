// The one bridge from a task to `async`: every async call of ``Session`` makes a task and
// awaits it here, so cancellation, ordering and delivery are written once.

extension SessionTask {
    /// Resumes the task and waits for its outcome (or, with `atHead`, for the response head).
    /// Cancelling the awaiting Swift task cancels the task.
    func outcome(atHead: Bool = false) async throws(NetworkError) -> TaskResult {
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<TaskResult, NetworkError>, Never>) in
                // A task cancelled before this point (the Swift task was cancelled already) has
                // completed with no one waiting: it answers at once.
                if let ended = attachCompletion(.waiter(continuation, atHead: atHead)) {
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
    func attachCompletion(_ completion: TaskCompletion) -> NetworkError? {
        core.withLock { core in
            guard core.machine.publicState == .completed else {
                core.completion = completion
                return nil
            }
            return core.error ?? NetworkError(SessionFailure.cancelled, url: originalRequest.url)
        }
    }
}
