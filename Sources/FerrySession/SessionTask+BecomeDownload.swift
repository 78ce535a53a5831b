import FerryBase
import FerryEngine
import Synchronization

// ResponseDisposition.becomeDownload, as URLSession's `didBecomeDownloadTask`: a data task whose
// exchange is paused at the response head hands that exchange to a new download task. The
// exchange keeps running (the same connection, nothing sent again); the data task forwards its
// later callbacks to the download task (``TaskEngineSide/successor``).

extension SessionTask {
    /// The data delegate answered ``ResponseDisposition/becomeDownload``. The hand-over runs on
    /// the exchange's loop, between two of its callbacks, where the engine side may change.
    func becomeDownload(telling dataDelegate: any SessionDataDelegate) {
        guard let handle = core.withLock({ $0.handle }) else { return }
        handle.onLoop { [self] in handOverToDownload(handle, telling: dataDelegate) }
    }

    /// Ends this task (no completion call: URLSession's data task simply becomes the download)
    /// and starts the download task on its exchange. Nothing happens when the task stopped
    /// waiting for the decision meanwhile (cancelled, or its exchange failed).
    private func handOverToDownload(_ handle: ExchangeHandle, telling dataDelegate: any SessionDataDelegate) {
        let uploads = kind == .upload
        let ended = core.withLock { core -> (TaskCore.Ending, TaskProgress, NetworkResponse, TaskCounts)? in
            guard let response = core.response, core.machine.becameDownload(),
                  let ending = core.finish(.success(TaskResult(response: response))) else { return nil }
            return (ending, core.progress(uploads: uploads), response, core.counts)
        }
        guard let (ending, finalProgress, response, counts) = ended, let dataTask = self as? DataTask else { return }
        ending.announce(finalProgress)
        let download = session.downloadTask(originalRequest, into: .temporary)
        engineSide.successor = download
        download.adopt(handle, response: response, counts: counts, from: dataTask, telling: dataDelegate)
        // After the download registered: a session finishing its tasks never sees none between.
        // (Had the download already failed, as when its file could not be made, this was the
        // last task: the session ends now.)
        if let invalidation = session.unregister(self) { session.shutDownAfterLastTask(announcingTo: invalidation) }
    }
}

extension DownloadTask {
    /// Takes over `dataTask`'s exchange, paused at `response`'s head, and lets it read on.
    fileprivate func adopt(_ handle: ExchangeHandle, response: NetworkResponse, counts: TaskCounts, from dataTask: DataTask,
                       telling dataDelegate: any SessionDataDelegate) {
        let (priority, description, bandwidth, replacedRequest) = dataTask.core.withLock {
            ($0.priority, $0.taskDescription, $0.bandwidth, $0.replacedRequest)
        }
        let action = core.withLock { core -> TaskStateMachine.Action in
            core.handle = handle
            core.replacedRequest = replacedRequest
            core.response = response
            core.counts = counts
            core.priority = priority
            core.taskDescription = description
            core.bandwidth = bandwidth
            return core.machine.adoptExchange()
        }
        engineSide.adopt(from: dataTask.engineSide, for: self)
        toDelegate { [self] in
            dataDelegate.session(session, dataTask: dataTask, didBecome: self)
        }
        do throws(NetworkError) {
            // Taken over, not new: a session finishing its tasks lets it run to its end.
            _ = try session.register(self, succeeding: true)
            try engineSide.prepareSink(for: originalRequest)
        } catch {
            handle.cancel()
            return exchangeEnded(.failure(error.attaching(response: response)), metrics: nil)
        }
        run(action)
    }
}
