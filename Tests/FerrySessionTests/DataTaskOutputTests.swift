// Where a data task's body goes besides its delegate: a download it turns into
// (ResponseDisposition.becomeDownload) or a stream its caller reads (DataTask.bytes()).
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Data task outputs")
struct DataTaskOutputTests {
    @Test func aDataTaskBecomesADownloadOnTheSameExchange() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue, disposition: .becomeDownload)
            let request = NetworkRequest(url: server.url("/bytes/300000"))
            let task = session.dataTask(with: request)
            task.delegate = delegate
            task.taskDescription = "kept"
            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion == .some(nil))
            #expect(delegate.names.filter { $0 != "wrote" } == ["head", "response", "became", "metrics", "downloaded", "complete"],
                    "no data and no completion for the data task; the download's events follow its announcement")
            let download = try #require(delegate.lastTask as? DownloadTask, "the download task completed")
            for case .became(let dataID, let downloadID) in delegate.events {
                #expect(dataID == task.taskIdentifier)
                #expect(downloadID == download.taskIdentifier)
                #expect(downloadID != dataID)
            }
            for case .downloaded(let location, let data) in delegate.events {
                #expect(data.map(Array.init) == TestBytes.pattern(count: 300_000))
                #expect(await waitUntil { !FileManager.default.fileExists(atPath: location.path) }, "the temporary file is removed")
            }
            #expect(task.state == .completed)
            #expect(task.error == nil)
            #expect(task.countOfBytesReceived == 0, "the data task read no body byte")
            #expect(download.state == .completed)
            #expect(download.originalRequest.url == request.url)
            #expect(download.response?.statusCode == 200)
            #expect(download.taskDescription == "kept")
            #expect(download.countOfBytesReceived == 300_000)
            #expect(download.progress.fractionCompleted == 1)
            #expect(delegate.metrics?.transactionMetrics.count == 1)
            #expect(server.requestCount == 1, "the body came on the data task's exchange, not a new request")
            #expect(await waitUntil { session.allTasks.isEmpty })
        }
    }

    @Test func aDataTaskThatBecomesADownloadAfterARedirectHandsOverWhatItLearnt() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue, disposition: .becomeDownload)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/redirect-to?url=/bytes/300000")))
            task.delegate = delegate
            task.resume()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion == .some(nil))
            let download = try #require(delegate.lastTask as? DownloadTask)
            #expect(download.currentRequest.url.path == "/bytes/300000", "the request after the redirect")
            #expect(download.originalRequest.url == task.originalRequest.url)
            let metrics = try #require(delegate.metrics)
            #expect(metrics.redirectCount == 1)
            #expect(metrics.transactionMetrics.map(\.statusCode) == [302, 200])
            #expect(metrics.transactionMetrics.last?.url?.path == "/bytes/300000")
            #expect(delegate.names.contains("downloaded"))
            for case .downloaded(_, let data) in delegate.events {
                #expect(data.map(Array.init) == TestBytes.pattern(count: 300_000))
            }
        }
    }

    @Test func aDataTaskBecomesADownloadWhileTheSessionFinishesItsTasks() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "session-delegate")
            let events = SessionEvents(queue: queue)
            let session = Session(configuration: SessionTest.configuration(), delegate: events, delegateQueue: queue)
            let holder = HoldingDelegate()
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/300000")))
            task.delegate = holder
            task.resume()
            #expect(await holder.asked.wait(timeout: .seconds(30)))
            session.finishTasksAndInvalidate()
            holder.answer(.becomeDownload)
            #expect(await events.invalidated.wait(timeout: .seconds(30)), "the session ends after the download")
            let download = try #require(holder.download)
            #expect(download.state == .completed)
            #expect(download.error == nil, "a running transfer may finish")
            #expect(download.countOfBytesReceived == 300_000)
        }
    }

    /// A data delegate whose first call waits for ``open()``, and that counts the body bytes.
    final class GatedCounter: SessionDataDelegate {
        private let gate = DispatchSemaphore(value: 0)
        private let received = Atomic<Int>(0)
        var count: Int { received.load(ordering: .relaxed) }

        let completed = AsyncEvent()

        func open() { gate.signal() }

        func session(_ session: Session, dataTask: DataTask, didReceive data: Data) {
            if received.add(data.count, ordering: .relaxed).oldValue == 0 { _ = gate.wait(timeout: .now() + 30) }
        }

        func session(_ session: Session, task: SessionTask, didCompleteWithError error: NetworkError?) { completed.set() }
    }

    @Test func aBodyOfTinyChunksHoldsTheEngineWhileTheDataDelegateLags() async throws {
        // 1-byte chunks, each its own delivery: their bytes alone (20,000) stay far below the
        // output's mark, but what each queued call costs does not.
        let pieces = 20_000
        let response = "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n" + String(repeating: "1\r\nx\r\n", count: pieces) + "0\r\n\r\n"
        let server = try ScriptedServer(scripts: [[.readRequest, .send(Array(response.utf8)), .stallUntilClosed(limit: .seconds(30))]])
        defer { server.shutdown() }
        let session = Session(configuration: SessionTest.configuration())
        defer { session.invalidateAndCancel() }
        let delegate = GatedCounter()
        let task = session.dataTask(with: NetworkRequest(url: URL(string: "http://127.0.0.1:\(server.port)/")!))
        task.delegate = delegate
        task.resume()
        // (It also pauses, briefly, while the delegate allows the response: no byte came yet.)
        #expect(await waitUntil { task.countOfBytesReceived > 0 && task.isReadingPausedForTests }, "the engine stopped reading")
        #expect(task.countOfBytesReceived < Int64(pieces), "before the body ended")
        delegate.open()
        #expect(await delegate.completed.wait(timeout: .seconds(30)))
        #expect(task.error == nil)
        #expect(delegate.count == pieces, "every byte, after the delegate caught up")
    }

    @Test func aDataTaskStreamsItsBodyAndKeepsItsMetrics() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/\(3 << 20)")))
            let (body, response) = try await task.bytes()
            #expect(response.statusCode == 200)
            #expect(body.task === task)
            #expect(task.metrics == nil, "3 MiB cannot have arrived: the body waits for its reader")
            let data = try await body.collect()
            #expect(Array(data) == TestBytes.pattern(count: 3 << 20))
            let metrics = try #require(task.metrics, "the body ended after the task completed")
            #expect(metrics.transactionMetrics.count == 1)
            #expect(metrics.transactionMetrics.first?.responseBodyBytesReceived == 3 << 20)
            #expect(task.state == .completed)
        }
    }

    @Test func aDataTaskCollectsItsBodyForAnAwaitingCallerAndKeepsItsMetrics() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/70000")))
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            task.delegate = delegate
            let (data, response) = try await task.data()
            #expect(response.statusCode == 200)
            #expect(Array(data) == TestBytes.pattern(count: 70_000))
            #expect(task.state == .completed)
            #expect(task.metrics?.transactionMetrics.first?.responseBodyBytesReceived == 70_000)
            let events = delegate.events
            #expect(events.contains { if case .completed(nil) = $0 { true } else { false } }, "the delegate hears of the task")
            #expect(!events.contains { if case .data = $0 { true } else { false } }, "but not of its body")
            #expect(delegate.offQueueCalls == 0)
            await #expect(throws: NetworkError.self) { try await task.data() }
        }
    }

    @Test func onlyANewTaskWithoutHandlerCanStream() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/bytes/10"))
            let resumed = session.dataTask(with: request)
            resumed.resume()
            await #expect(throws: NetworkError.self) { try await resumed.bytes() }
            let result = SessionTaskTests.HandlerResult<Data>(queue: session.delegateQueue)
            let handled = session.dataTask(with: request, completionHandler: result.handler)
            do throws(NetworkError) {
                _ = try await handled.bytes()
                Issue.record("a task with a completion handler streamed")
            } catch {
                #expect(error.code == .invalidRequest)
            }
            #expect(handled.state == .suspended, "the refused call left the task as it was")
        }
    }

    @Test("download() awaits a task the caller set up; a second caller, or a resumed task, is refused; the file is the caller's")
    func downloadAwaitsANewTaskOnce() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/drip?numbytes=10&duration=1&delay=0")))
            task.priority = 1
            async let first = task.download()
            #expect(await waitUntil { task.state == .running })
            do throws(NetworkError) {
                _ = try await task.download()
                Issue.record("a second caller awaited the same task")
            } catch {
                #expect(error.code == .invalidRequest)
            }
            let (location, response) = try await first
            defer { try? FileManager.default.removeItem(at: location) }
            #expect(response.statusCode == 200)
            #expect(try Data(contentsOf: location).count == 10, "the returned temporary file is kept for the caller")
            let resumed = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/1")))
            resumed.resume()
            await #expect(throws: NetworkError.self) { try await resumed.download() }
        }
    }

    @Test func aDownloadMadeFromADataTaskCancels() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: session.delegateQueue, disposition: .becomeDownload)
            // A body that trickles for half a minute: the download is cancelled while it runs,
            // even when a loaded machine starves this test's polling for a while.
            let task = session.dataTask(with: NetworkRequest(url: server.url("/drip?numbytes=3000&duration=30&delay=0")))
            task.delegate = delegate
            task.resume()
            #expect(await waitUntil { session.allTasks.first is DownloadTask })
            let download = try #require(session.allTasks.first as? DownloadTask)
            download.cancel()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion??.code == .cancelled)
            #expect(delegate.lastTask === download)
            #expect(!delegate.names.contains("downloaded"))
            #expect(task.state == .completed)
            #expect(task.error == nil, "the data task ended when it became the download")
        }
    }
}
