// Task objects against the in-process httpbin server: completion handlers, the data and
// download delegates, resume/suspend/cancel, counts, progress and the session's task list.
import FerryBase
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
        private let stored = Locked<(Value?, NetworkResponse?, NetworkError?, onQueue: Bool)?>(nil)
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
            let names = Locked<[String?]>([])
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

    @Test func cancellingBeforeResumeTellsTheTasksDelegateOrTheSessions() async throws {
        let queue = DispatchQueue(label: "session-delegate")
        let sessionWide = SessionEvents(queue: queue)
        let session = Session(configuration: SessionTest.configuration(), delegate: sessionWide, delegateQueue: queue)
        defer { session.invalidateAndCancel() }
        // Nothing listens there: a task cancelled before it ran sends nothing.
        let request = NetworkRequest(url: URL(string: "http://127.0.0.1:9/")!)
        let own = RecordingDelegate(queue: queue)
        let withOwn = session.dataTask(with: request)
        withOwn.delegate = own
        withOwn.cancel()
        #expect(await waitUntil { own.completion != nil })
        #expect(own.names == ["complete"])
        #expect(own.completion??.code == .cancelled)
        #expect(own.offQueueCalls == 0)

        session.dataTask(with: request).cancel()
        #expect(await waitUntil { sessionWide.tasks.completion != nil })
        #expect(sessionWide.tasks.names == ["complete"], "only the task without its own delegate reaches the session's")
        #expect(sessionWide.tasks.completion??.code == .cancelled)
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
            case .becomeDownload:
                Issue.record("aDataTaskBecomesADownloadOnTheSameExchange covers it")
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
            let contents = Locked<Data?>(nil)
            let result = SessionTaskTests.HandlerResult<URL>(queue: session.delegateQueue)
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

    /// A session-wide download delegate that takes (removes) every file it is handed, as one
    /// that moves downloads where they belong would.
    final class FileTaker: SessionDelegate, SessionDownloadDelegate {
        let completed = AsyncEvent()
        let handed = Atomic<Int>(0)
        let writes = Atomic<Int>(0)

        func session(_ session: Session, didBecomeInvalidWithError error: NetworkError?) {}
        func session(_ session: Session, downloadTask: DownloadTask, didWriteData bytesWritten: Int64,
                     totalBytesWritten: Int64, totalBytesExpectedToWrite: Int64?) {
            writes.add(1, ordering: .relaxed)
        }
        func session(_ session: Session, downloadTask: DownloadTask, didFinishDownloadingTo location: URL) {
            handed.add(1, ordering: .relaxed)
            try? FileManager.default.removeItem(at: location)
        }
        func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) { completed.set() }
    }

    @Test func aDownloadWithACompletionHandlerOrAnAwaitingCallerKeepsTheFileFromTheDelegate() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "session-delegate")
            let taker = FileTaker()
            let session = Session(configuration: SessionTest.configuration(), delegate: taker, delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let contents = Locked<Data?>(nil)
            let result = SessionTaskTests.HandlerResult<URL>(queue: queue)
            let handler = result.handler
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/200000"))) { location, response, error in
                contents.withLock { $0 = location.flatMap { FileManager.default.contents(atPath: $0.path) } }
                handler(location, response, error)
            }
            task.resume()
            let (_, _, error, _) = try await result.wait()
            #expect(error == nil)
            #expect(contents.withLock { $0 }.map(Array.init) == TestBytes.pattern(count: 200_000), "the handler found its file")
            #expect(await taker.completed.wait(timeout: .seconds(30)), "the delegate still hears of the completion")
            #expect(taker.handed.load(ordering: .relaxed) == 0, "the delegate was handed no file")
            #expect(taker.writes.load(ordering: .relaxed) == 0, "nor told of the writes")

            let (location, _) = try await session.downloadTask(with: NetworkRequest(url: server.url("/bytes/1000"))).download()
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(FileManager.default.contents(atPath: location.path).map(Array.init) == TestBytes.pattern(count: 1000),
                    "the awaiting caller found its file")
            #expect(taker.handed.load(ordering: .relaxed) == 0, "the delegate was handed no file")
            #expect(taker.writes.load(ordering: .relaxed) > 0, "it hears of an awaited download's progress")
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
            #expect(fileTask.countOfBytesExpectedToSend == 150_000, "known from the file's size as it starts")
            let (echoedFile, _, fileError, _) = try await fromFile.wait()
            #expect(fileError == nil)
            #expect(echoedFile.map(Array.init) == body)
            #expect(fileTask.countOfBytesSent == 150_000)
        }
    }

    @Test func aBodySentAgainAfterA307CountsFromZero() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/redirect-to?url=/echo&status_code=307"))
            request.method = .post
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            let task = session.uploadTask(with: request, from: Data(TestBytes.pattern(count: 150_000)))
            task.delegate = delegate
            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion == .some(nil))
            #expect(server.requestCount == 2, "the body went twice")
            var sends = 0
            for case .sentBody(_, let total, let expected) in delegate.events {
                sends += 1
                #expect(total <= 150_000)
                #expect(expected == 150_000)
            }
            #expect(sends >= 2)
            #expect(task.countOfBytesSent == 150_000)
            #expect(task.progress.fractionCompleted == 1)
            #expect(delegate.receivedData.count == 150_000, "the echo of the second request")
        }
    }

    @Test func progressUpdatesFollowTheBytesAndEndWithTheTask() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/stream-bytes/400000?chunk_size=20000")),
                                        completionHandler: result.handler)
            var updates = task.progressUpdates.makeAsyncIterator()
            // The current value comes first. Taken before the task starts: a slow reader sees
            // only the newest 8 values, so under load the first could be gone by the time it looks.
            let first = await updates.next()
            #expect(first == TaskProgress(completedUnitCount: 0, totalUnitCount: nil))
            task.resume()
            var seen: [TaskProgress] = first.map { [$0] } ?? []
            while let update = await updates.next() { seen.append(update) }
            _ = try await result.wait()
            #expect(seen.last == TaskProgress(completedUnitCount: 400_000, totalUnitCount: nil, isFinished: true))
            let counts = seen.map(\.completedUnitCount)
            #expect(counts == counts.sorted(), "progress never goes back")
            #expect(seen.count > 2, "progress moved while the body arrived")
        }
    }

    @Test func progressSequencesTheirConsumersDroppedAreLetGo() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = DataTaskOutputTests.GatedCounter()
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(4 << 20)")))
            task.delegate = delegate
            for _ in 0..<100 { _ = task.progressUpdates }
            let kept = task.progressUpdates
            #expect(task.core.withLock { $0.progressObservers.count } == 101)
            task.resume()
            // The first piece holds the delegate queue; the engine goes on until its mark. (It
            // also pauses, briefly, while the delegate allows the response: no byte came yet.)
            #expect(await waitUntil { task.countOfBytesReceived > 0 && task.isReadingPausedForTests })
            #expect(task.core.withLock { $0.progressObservers.count } == 1, "only the sequence still held")
            delegate.open()
            #expect(await delegate.completed.wait(timeout: .seconds(30)))
            var last: TaskProgress?
            for await update in kept { last = update }
            #expect(last?.isFinished == true)
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
            let marks = [1 << 20, 30 << 20, 70 << 20]
            // The delegate suspends the task from the piece that crosses each mark: the body
            // cannot have ended by then (the delegate queue's backlog holds the engine).
            let checker = PatternChecker(suspendingAt: marks)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(size)")))
            task.delegate = checker
            task.resume()
            for index in marks.indices {
                #expect(await checker.suspensions[index].wait(timeout: .seconds(30)), "mark \(marks[index]) reached")
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
