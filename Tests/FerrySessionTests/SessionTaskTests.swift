// Task objects against the in-process httpbin server: completion handlers, the data and
// download delegates, resume/suspend/cancel, counts, progress and the session's task list.
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session tasks")
struct SessionTaskTests {
    /// A completion handler's arguments, once it ran, and whether it ran on the delegate queue.
    final class HandlerResult<Value: Sendable>: Sendable {
        let event = AsyncEvent()
        private let stored = Mutex<(Value?, NetworkResponse?, NetworkError?, onQueue: Bool)?>(nil)
        private let queueName: String
        private static var key: DispatchSpecificKey<String> { RecordingDelegate.queueKeyForTests }

        init(queue: DispatchQueue) {
            queueName = UUID().uuidString
            queue.setSpecific(key: Self.key, value: queueName)
        }

        var handler: @Sendable (Value?, NetworkResponse?, NetworkError?) -> Void {
            { [self] value, response, error in
                let onQueue = DispatchQueue.getSpecific(key: Self.key) == queueName
                stored.withLock { $0 = (value, response, error, onQueue) }
                event.set()
            }
        }

        func wait() async throws -> (Value?, NetworkResponse?, NetworkError?, onQueue: Bool) {
            #expect(await event.wait(timeout: .seconds(30)), "the completion handler never ran")
            return try #require(stored.withLock { $0 })
        }
    }

    @Test func aTaskDoesNothingUntilResumed() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let idle = session.dataTask(with: NetworkRequest(url: server.url("/get")))
            #expect(idle.state == .suspended)
            _ = try await session.data(for: NetworkRequest(url: server.url("/get")))
            #expect(server.requestCount == 1, "only the awaited request reached the server")
            #expect(idle.state == .suspended)
            #expect(session.allTasks.isEmpty, "a task that never resumed is not running")
        }
    }

    @Test func dataTaskCompletionHandlerGetsBodyAndResponseOnTheDelegateQueue() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/70000")), completionHandler: result.handler)
            task.resume()
            let (data, response, error, onQueue) = try await result.wait()
            #expect(error == nil)
            #expect(response?.statusCode == 200)
            #expect(data.map(Array.init) == TestBytes.pattern(count: 70_000))
            #expect(onQueue)
            #expect(task.state == .completed)
            #expect(task.response?.statusCode == 200)
            #expect(task.error == nil)
            #expect(task.countOfBytesReceived == 70_000)
            #expect(task.countOfBytesExpectedToReceive == 70_000)
            #expect(task.progress == TaskProgress(completedUnitCount: 70_000, totalUnitCount: 70_000, isFinished: true))
        }
    }

    @Test func taskIdentifiersAreUniqueAndRunningTasksAreListed() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = HandlerResult<Data>(queue: session.delegateQueue)
            let slow = session.dataTask(with: NetworkRequest(url: server.url("/delay/30")), completionHandler: result.handler)
            let other = session.dataTask(with: NetworkRequest(url: server.url("/get")))
            #expect(slow.taskIdentifier != other.taskIdentifier)
            slow.taskDescription = "slow one"
            slow.resume()
            #expect(slow.state == .running)
            #expect(session.allTasks.map(\.taskIdentifier) == [slow.taskIdentifier])
            let listed = AsyncEvent()
            let names = Mutex<[String?]>([])
            session.getAllTasks { tasks in
                names.withLock { $0 = tasks.map(\.taskDescription) }
                listed.set()
            }
            #expect(await listed.wait(timeout: .seconds(30)))
            #expect(names.withLock { $0 } == ["slow one"])
            slow.cancel()
            let (_, _, error, _) = try await result.wait()
            #expect(error?.code == .cancelled)
            #expect(session.allTasks.isEmpty)
        }
    }

    @Test func cancellingBeforeResumeCompletesAtOnceAndSendsNothing() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/get")), completionHandler: result.handler)
            task.cancel()
            let (data, _, error, onQueue) = try await result.wait()
            #expect(data == nil)
            #expect(error?.code == .cancelled)
            #expect(onQueue)
            #expect(task.state == .completed)
            task.resume()
            #expect(task.state == .completed, "a completed task stays completed")
            #expect(server.requestCount == 0)
        }
    }

    @Test func aDataTaskWithoutHandlerFeedsItsDataDelegateInOrder() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/stream-bytes/300000?chunk_size=7000")))
            task.delegate = delegate
            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion == .some(nil))
            #expect(Array(delegate.receivedData) == TestBytes.pattern(count: 300_000))
            let names = delegate.names.filter { $0 != "data" }
            #expect(names == ["head", "response", "metrics", "complete"])
            #expect(delegate.names.firstIndex(of: "data")! > delegate.names.firstIndex(of: "response")!)
            #expect(delegate.offQueueCalls == 0)
            #expect(task.delegate == nil, "a completed task lets go of its delegate")
        }
    }

    @Test("the data delegate decides about the response before any body byte is read", arguments: [
        ResponseDisposition.allow, .cancel,
    ])
    func responseDisposition(_ disposition: ResponseDisposition) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = DecidingDelegate(disposition)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/300000")))
            task.delegate = delegate
            task.resume()
            #expect(await delegate.completed.wait(timeout: .seconds(30)))
            #expect(delegate.askedWith?.statusCode == 200)
            #expect(delegate.bytesBeforeDecision == 0)
            switch disposition {
            case .allow:
                #expect(delegate.error == nil)
                #expect(delegate.received == 300_000)
            case .cancel:
                #expect(delegate.error?.code == .cancelled)
                #expect(delegate.received == 0)
            }
        }
    }

    @Test func theAsyncDecisionFormIsAskedWhenTheHandlerFormIsNotImplemented() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = AsyncDecidingDelegate()
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/1000")))
            task.delegate = delegate
            task.resume()
            #expect(await delegate.completed.wait(timeout: .seconds(30)))
            #expect(delegate.error?.code == .cancelled)
            #expect(delegate.asked)
        }
    }

    @Test func theSessionDelegateHearsTasksWithoutTheirOwn() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "session-delegate")
            let delegate = SessionEvents(queue: queue)
            let session = Session(configuration: SessionTest.configuration(), delegate: delegate, delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/5000")))
            task.resume()
            #expect(await waitUntil { delegate.tasks.completion != nil })
            #expect(Array(delegate.tasks.receivedData) == TestBytes.pattern(count: 5000))
        }
    }

    @Test func aDownloadTaskHandsOverATemporaryFileAndRemovesItAfterwards() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let contents = Mutex<Data?>(nil)
            let result = HandlerResult<URL>(queue: session.delegateQueue)
            let handler = result.handler
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/200000"))) { location, response, error in
                contents.withLock { $0 = location.flatMap { FileManager.default.contents(atPath: $0.path) } }
                handler(location, response, error)
            }
            task.resume()
            let (location, response, error, onQueue) = try await result.wait()
            #expect(error == nil)
            #expect(onQueue)
            #expect(response?.statusCode == 200)
            #expect(contents.withLock { $0 }.map(Array.init) == TestBytes.pattern(count: 200_000))
            let path = try #require(location?.path)
            #expect(await waitUntil { !FileManager.default.fileExists(atPath: path) }, "the temporary file is removed")
        }
    }

    @Test func aDownloadDelegateGetsTheFile() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/\(3 << 20)")))
            task.delegate = delegate
            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.names.filter { $0 != "wrote" } == ["head", "response", "metrics", "downloaded", "complete"])
            #expect(delegate.names.lastIndex(of: "wrote")! < delegate.names.firstIndex(of: "metrics")!)
            var written: Int64 = 0
            for case .wrote(let bytes, let total, let expected) in delegate.events {
                written += bytes
                #expect(bytes > 0)
                #expect(total == written, "totals add up the pieces")
                #expect(expected == 3 << 20)
            }
            #expect(written == 3 << 20, "every byte written was reported")
            for case .downloaded(let location, let data) in delegate.events {
                #expect(data.map(Array.init) == TestBytes.pattern(count: 3 << 20))
                #expect(await waitUntil { !FileManager.default.fileExists(atPath: location.path) })
            }
        }
    }

    @Test func uploadTasksSendDataAndFilesAndCountWhatTheySent() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let body = TestBytes.pattern(count: 150_000)
            var request = NetworkRequest(url: server.url("/echo"))
            request.method = .post

            let fromData = HandlerResult<Data>(queue: session.delegateQueue)
            let dataTask = session.uploadTask(with: request, from: Data(body), completionHandler: fromData.handler)
            dataTask.resume()
            let (echoed, _, error, _) = try await fromData.wait()
            #expect(error == nil)
            #expect(echoed.map(Array.init) == body)
            #expect(dataTask.countOfBytesSent == 150_000)
            #expect(dataTask.countOfBytesExpectedToSend == 150_000)
            #expect(dataTask.progress.fractionCompleted == 1)

            let file = SessionTest.temporaryURL("upload")
            try Data(body).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = HandlerResult<Data>(queue: session.delegateQueue)
            let fileTask = session.uploadTask(with: request, fromFile: file, completionHandler: fromFile.handler)
            fileTask.resume()
            let (echoedFile, _, fileError, _) = try await fromFile.wait()
            #expect(fileError == nil)
            #expect(echoedFile.map(Array.init) == body)
            #expect(fileTask.countOfBytesSent == 150_000)
        }
    }

    @Test func progressUpdatesFollowTheBytesAndEndWithTheTask() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/stream-bytes/400000?chunk_size=20000")),
                                        completionHandler: result.handler)
            let updates = task.progressUpdates
            task.resume()
            var seen: [TaskProgress] = []
            for await update in updates { seen.append(update) }
            _ = try await result.wait()
            #expect(seen.first == TaskProgress(completedUnitCount: 0, totalUnitCount: nil))
            #expect(seen.last == TaskProgress(completedUnitCount: 400_000, totalUnitCount: nil, isFinished: true))
            let counts = seen.map(\.completedUnitCount)
            #expect(counts == counts.sorted(), "progress never goes back")
            #expect(seen.count > 2, "progress moved while the body arrived")
        }
    }

    @Test func cancellingMidBodyCompletesAsCancelled() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            // Cancelled from the first piece's callback: the delegate queue's backlog holds the
            // engine at 512 KiB, so the 64 MiB body cannot have ended by then.
            let delegate = CancellingDelegate()
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(64 << 20)")))
            task.delegate = delegate
            task.resume()
            #expect(await delegate.completed.wait(timeout: .seconds(30)))
            #expect(delegate.error?.code == .cancelled)
            #expect(task.state == .completed)
            #expect(task.error?.code == .cancelled)
            #expect(task.countOfBytesReceived < 64 << 20)
        }
    }

    /// 100 MiB through a data delegate, suspended at several points: nothing is read while
    /// suspended beyond what was in flight, and every byte arrives once, in order.
    @Test func suspendAndResumeLoseNothing() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let size = 100 << 20
            let checker = PatternChecker()
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(size)")))
            task.delegate = checker
            task.resume()
            for mark in [1 << 20, 30 << 20, 70 << 20] {
                #expect(await waitUntil { task.countOfBytesReceived >= mark })
                task.suspend()
                #expect(task.state == .suspended)
                let suspendedAt = task.countOfBytesReceived
                #expect(await waitUntil { task.isReadingPausedForTests }, "the engine stopped reading")
                let pausedAt = task.countOfBytesReceived
                // At most what one read and the pieces in flight to the delegate held.
                #expect(pausedAt - suspendedAt <= 2 << 20)
                task.resume()
            }
            #expect(await waitUntil(timeout: .seconds(60)) { checker.completed.isSet })
            #expect(checker.error == nil)
            #expect(checker.mismatch == nil)
            #expect(checker.count == size)
        }
    }

    @Test func finishTasksAndInvalidateLetsRunningTasksEnd() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "session-delegate")
            let delegate = SessionEvents(queue: queue)
            let session = Session(configuration: SessionTest.configuration(), delegate: delegate, delegateQueue: queue)
            let result = HandlerResult<Data>(queue: queue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/delay/0.3")), completionHandler: result.handler)
            task.resume()
            session.finishTasksAndInvalidate()
            let late = await networkError { try await session.data(for: NetworkRequest(url: server.url("/get"))) }
            #expect(late?.code == .sessionInvalidated)
            let (data, _, error, _) = try await result.wait()
            #expect(error == nil)
            #expect(data != nil)
            #expect(await delegate.invalidated.wait(timeout: .seconds(30)))
            #expect(session.delegate == nil, "an invalidated session lets go of its delegate")
        }
    }

    @Test func invalidateAndCancelCancelsRunningTasksAndTellsTheDelegate() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "session-delegate")
            let delegate = SessionEvents(queue: queue)
            let session = Session(configuration: SessionTest.configuration(), delegate: delegate, delegateQueue: queue)
            let result = HandlerResult<Data>(queue: queue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/delay/30")), completionHandler: result.handler)
            task.resume()
            #expect(await waitUntil { server.requestCount > 0 })
            session.invalidateAndCancel()
            let (_, _, error, _) = try await result.wait()
            #expect(error?.code == .cancelled)
            #expect(await delegate.invalidated.wait(timeout: .seconds(30)))
        }
    }
}

/// A session delegate that records invalidation and, as the session-wide task delegate,
/// every task event.
final class SessionEvents: SessionDelegate, SessionDataDelegate {
    let invalidated = AsyncEvent()
    let tasks: RecordingDelegate

    init(queue: DispatchQueue) { tasks = RecordingDelegate(queue: queue) }

    func session(_ session: Session, didBecomeInvalidWithError error: NetworkError?) { invalidated.set() }
    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        tasks.session(session, dataTask: dataTask, didReceive: data)
    }
    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        tasks.session(session, task: task, didCompleteWithError: error)
    }
}

/// Checks a body against ``TestBytes`` as it arrives, keeping none of it.
final class PatternChecker: SessionDataDelegate {
    let completed = AsyncEvent()
    private let state = Mutex<(count: Int, mismatch: Int?, error: NetworkError?)>((0, nil, nil))

    var count: Int { state.withLock { $0.count } }
    var mismatch: Int? { state.withLock { $0.mismatch } }
    var error: NetworkError? { state.withLock { $0.error } }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { state in
            if state.mismatch == nil {
                for (index, byte) in data.enumerated() where byte != TestBytes.byte(at: state.count + index) {
                    state.mismatch = state.count + index
                    break
                }
            }
            state.count += data.count
        }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        state.withLock { $0.error = error }
        completed.set()
    }
}

/// Cancels its data task from the first piece of body it receives.
final class CancellingDelegate: SessionDataDelegate {
    let completed = AsyncEvent()
    private let outcome = Mutex<NetworkError?>(nil)

    var error: NetworkError? { outcome.withLock { $0 } }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        dataTask.cancel()
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        outcome.withLock { $0 = error }
        completed.set()
    }
}

/// Decides about the response with the completion-handler form, later and from another queue.
final class DecidingDelegate: SessionDataDelegate {
    let completed = AsyncEvent()
    private let disposition: ResponseDisposition
    private let state = Mutex<(asked: NetworkResponse?, before: Int64?, received: Int, error: NetworkError?)>((nil, nil, 0, nil))

    init(_ disposition: ResponseDisposition) { self.disposition = disposition }

    var askedWith: NetworkResponse? { state.withLock { $0.asked } }
    var bytesBeforeDecision: Int64? { state.withLock { $0.before } }
    var received: Int { state.withLock { $0.received } }
    var error: NetworkError? { state.withLock { $0.error } }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        state.withLock { $0.asked = response }
        let disposition = self.disposition
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(50)) { [self] in
            // The engine paused at the head: nothing of the body has arrived even now.
            state.withLock { $0.before = dataTask.countOfBytesReceived }
            completionHandler(disposition)
        }
    }

    func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
        state.withLock { $0.received += data.count }
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        state.withLock { $0.error = error }
        completed.set()
    }
}

/// Decides with the async form only: cancels.
final class AsyncDecidingDelegate: SessionDataDelegate {
    let completed = AsyncEvent()
    private let state = Mutex<(asked: Bool, error: NetworkError?)>((false, nil))

    var asked: Bool { state.withLock { $0.asked } }
    var error: NetworkError? { state.withLock { $0.error } }

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse) async -> ResponseDisposition {
        state.withLock { $0.asked = true }
        return .cancel
    }

    func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) {
        state.withLock { $0.error = error }
        completed.set()
    }
}

@Suite("Session housekeeping and priority")
struct SessionHousekeepingTests {
    @Test func flushClosesIdleConnections() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let first = try await session.fetch(server.url("/get"))
            let kept = try await session.fetch(server.url("/get"))
            #expect(kept.metrics.isReusedConnection, "precondition: keep-alive reuses the connection")
            await session.flush()
            let after = try await session.fetch(server.url("/get"))
            #expect(!first.metrics.isReusedConnection)
            #expect(!after.metrics.isReusedConnection)
            #expect(after.metrics.connectionsOpened == 1)
        }
    }

    @Test func flushOnASessionThatNeverRanAnswersAtOnce() async {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        await session.flush()
        await session.reset()
        #expect(session.allTasks.isEmpty)
    }

    @Test func resetForgetsTLSSessions() async throws {
        try await TLSTestServer.withServer { server in
            let session = Session(configuration: try TLSSessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = try TLSSessionTest.url(server)
            _ = try await session.fetch(url)
            await session.flush()
            let resumed = try await session.fetch(url)
            #expect(resumed.metrics.isTLSSessionResumed, "precondition: a flushed connection's session resumes")
            await session.reset()
            let full = try await session.fetch(url)
            #expect(!full.metrics.isReusedConnection)
            #expect(!full.metrics.isTLSSessionResumed, "reset forgets the TLS session")
            #expect(full.metrics.serverCertificateVerifyResult == 0)
        }
    }

    /// One connection: a request held at its response (its data delegate has not answered)
    /// keeps it busy while a low and then a high priority task queue; the high one goes first
    /// when it frees. A flush, which runs on the same loop after the two tasks' starts, proves
    /// both wait in the pool before the connection is let go.
    @Test func aHigherPriorityTaskGetsTheFreeConnectionFirst() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 1 })
            defer { session.invalidateAndCancel() }
            let holder = HoldingDelegate()
            let held = session.dataTask(with: NetworkRequest(url: server.url("/bytes/10")))
            held.delegate = holder
            held.resume()
            #expect(await holder.asked.wait(timeout: .seconds(30)))
            let order = Mutex<[String]>([])
            let done = AsyncEvent()
            for (name, priority) in [("low", Float(0.1)), ("high", Float(0.9))] {
                let task = session.dataTask(with: NetworkRequest(url: server.url("/get?\(name)"))) { _, _, _ in
                    let count = order.withLock { $0.append(name); return $0.count }
                    if count == 2 { done.set() }
                }
                task.priority = priority
                task.resume()
            }
            await session.flush()
            holder.allow()
            #expect(await done.wait(timeout: .seconds(30)))
            #expect(order.withLock { $0 } == ["high", "low"])
        }
    }

    @Test func theRunningTaskListFollowsCompletionsInAnyOrder() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let holders = (0..<3).map { _ in HoldingDelegate() }
            let tasks = holders.map { holder in
                let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/3")))
                task.delegate = holder
                task.resume()
                return task
            }
            for holder in holders { #expect(await holder.asked.wait(timeout: .seconds(30))) }
            #expect(session.allTasks.map(\.taskIdentifier) == tasks.map(\.taskIdentifier))
            var left = tasks.map(\.taskIdentifier)
            for index in [1, 0, 2] {
                holders[index].allow()
                left.removeAll { $0 == tasks[index].taskIdentifier }
                let expected = left
                #expect(await waitUntil { session.allTasks.map(\.taskIdentifier) == expected })
            }
            #expect(session.allTasks.isEmpty)
        }
    }

    @Test func priorityIsClampedToZeroThroughOne() async throws {
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let task = session.dataTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:9/")!))
        #expect(task.priority == 0.5)
        task.priority = 7
        #expect(task.priority == 1)
        task.priority = -1
        #expect(task.priority == 0)
    }
}

/// Holds its data task at the response until ``allow()``.
final class HoldingDelegate: SessionDataDelegate {
    let asked = AsyncEvent()
    private let handler = Mutex<(@Sendable (ResponseDisposition) -> Void)?>(nil)

    func session(_ session: Session, dataTask: DataTask, didReceive response: NetworkResponse,
                 completionHandler: @escaping @Sendable (ResponseDisposition) -> Void) {
        handler.withLock { $0 = completionHandler }
        asked.set()
    }

    func allow() {
        handler.withLock { $0 }?(.allow)
    }
}
