// Timeouts and cancellation: request (idle) and resource (total) timeouts, Swift task
// cancellation, dropping a streamed body, and invalidateAndCancel(). Every wait has a
// generous upper bound so a hang fails the test instead of stalling the suite.
import FerryBase
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session timeouts and cancellation")
struct SessionTimeoutTests {
    @Test("timeoutIntervalForRequest fires while the server is silent")
    func requestTimeout() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.timeoutIntervalForRequest = .milliseconds(300)
            })
            defer { session.invalidateAndCancel() }
            let request = NetworkRequest(url: server.url("/delay/30"))
            let error = await networkError { try await session.data(for: request) }
            #expect(error?.code == .timedOut)
            #expect(error?.failingURL == request.url)
        }
    }

    @Test("a request's timeoutInterval overrides the session's")
    func perRequestTimeout() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            var request = NetworkRequest(url: server.url("/delay/30"))
            request.timeoutInterval = .milliseconds(300)
            let error = await networkError { try await session.data(for: request) }
            #expect(error?.code == .timedOut)
        }
    }

    @Test("a body that keeps trickling is not an idle timeout")
    func tricklingBodyIsNotIdle() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.timeoutIntervalForRequest = .seconds(1)
            })
            defer { session.invalidateAndCancel() }
            // A byte every 100 ms for 1 s: never 1 s without progress, with a wide margin for a
            // loaded machine.
            let url = server.url("/drip?numbytes=10&duration=1&delay=0")
            let (data, _) = try await session.data(for: NetworkRequest(url: url))
            #expect(Array(data) == TestBytes.pattern(count: 10))
        }
    }

    @Test("timeoutIntervalForResource bounds the whole exchange even while bytes keep coming")
    func resourceTimeout() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration {
                $0.timeoutIntervalForResource = .milliseconds(500)
            })
            defer { session.invalidateAndCancel() }
            let url = server.url("/drip?numbytes=10&duration=30&delay=0")
            let error = await networkError { try await session.data(for: NetworkRequest(url: url)) }
            #expect(error?.code == .timedOut)
        }
    }

    @Test("cancelling the Swift task fails the request with cancelled, promptly")
    func taskCancellation() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/delay/30")
            let task = Task { await networkError { try await session.data(for: NetworkRequest(url: url)) } }
            // Let the request reach the server before cancelling.
            try #require(await waitUntil { server.requestCount > 0 }, "precondition not reached")
            task.cancel()
            let error = await task.value
            #expect(error?.code == .cancelled)
        }
    }

    @Test("cancelling a request that waits for a connection ends it at once and leaves the pool usable")
    func cancelWhileQueued() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 1 })
            defer { session.invalidateAndCancel() }
            // The first request holds the only connection far longer than any stall of a loaded
            // machine, so the queued one is certainly still waiting when it is cancelled.
            let slow = server.url("/delay/30")
            let firstEnded = Locked(false)
            let first = Task {
                defer { firstEnded.withLock { $0 = true } }
                return await networkError { try await session.data(for: NetworkRequest(url: slow)) }
            }
            try #require(await waitUntil { server.requestCount > 0 }, "precondition not reached")
            let queued = Task { await networkError { try await session.data(for: NetworkRequest(url: slow)) } }
            try #require(await waitUntil { session.allTasks.count == 2 }, "the second request is under way")
            queued.cancel()
            let error = await queued.value
            #expect(error?.code == .cancelled)
            #expect(server.requestCount == 1, "the cancelled request was never sent")
            #expect(!firstEnded.withLock { $0 }, "cancelling the queued request left the running one alone")
            #expect(server.connectionCount == 1, "the cancelled request opened no connection of its own")
            // Free the connection (waiting 30 s for /delay would only slow the suite down).
            first.cancel()
            #expect(await first.value?.code == .cancelled)
            let (_, response) = try await session.data(for: NetworkRequest(url: server.url("/get")))
            #expect(response.statusCode == 200)
            #expect(server.requestCount == 2, "the cancelled request was never sent")
        }
    }

    @Test("cancelling a download removes the partial file (written beside the destination, which never appears)")
    func cancelDownload() async throws {
        let directory = try TemporaryDirectory()
        let destination = directory.url.appendingPathComponent("cancelled.bin")
        let partial = { (try? FileManager.default.contentsOfDirectory(atPath: directory.url.path))?.first }
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/drip?numbytes=20&duration=30&delay=0")
            let task = Task { await networkError { try await session.download(for: NetworkRequest(url: url), to: destination) } }
            try #require(await waitUntil { partial().map { SessionTest.fileSize(directory.url.appendingPathComponent($0)) > 0 } == true },
                         "precondition not reached: bytes written")
            #expect(!FileManager.default.fileExists(atPath: destination.path), "the destination waits for the whole body")
            task.cancel()
            #expect(await task.value?.code == .cancelled)
            #expect(partial() == nil)
        }
    }

    @Test("invalidateAndCancel() ends a body being streamed with an error")
    func invalidateWhileStreaming() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            let url = server.url("/drip?numbytes=50&duration=30&delay=0")
            let (body, _) = try await session.bytes(for: NetworkRequest(url: url))
            await offThePool { session.invalidateAndCancel() }
            let outcome = try await withTimeLimit(seconds: 20) {  // the drip lasts 30 s: still tells "ended" from "ran out"
                await networkError { _ = try await body.collect() }
            }
            let error = try #require(outcome, "the body must end, not hang")
            #expect(error?.code == .cancelled)
        }
    }

    @Test("a task cancelled before it starts fails with cancelled and sends nothing")
    func cancelledBeforeStart() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/get")
            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return await networkError { try await session.data(for: NetworkRequest(url: url)) }
            }
            let error = await task.value
            #expect(error?.code == .cancelled)
        }
    }

    @Test("cancelling during bytes(for:) iteration ends the body with an error")
    func cancelWhileIterating() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let url = server.url("/drip?numbytes=50&duration=30&delay=0")
            let (body, _) = try await session.bytes(for: NetworkRequest(url: url))
            let outcome = try await withTimeLimit(seconds: 20) {  // the drip lasts 30 s: still tells "ended" from "ran out"
                let task = Task { () async -> NetworkError? in
                    await networkError {
                        var iterator = body.makeAsyncIterator()
                        while try await iterator.next() != nil {}
                    }
                }
                #expect(await waitUntil { body.lifetime.buffer.hasWaitingConsumer }, "the iterator waits for the drip")
                task.cancel()
                return await task.value
            }
            let error = try #require(outcome, "the iterator must notice cancellation, not wait for the server")
            #expect(error?.code == .cancelled)
        }
    }

    @Test("dropping a ResponseBody mid-stream cancels the request and frees the connection")
    func droppedBodyCancels() async throws {
        try await HTTPBinServer.withServer { server in
            let queue = DispatchQueue(label: "drop.delegate")
            // One connection per host: the next request can only run if the first one ended.
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 1 },
                                  delegateQueue: queue)
            defer { session.invalidateAndCancel() }
            let delegate = RecordingDelegate(queue: queue)
            do {
                let (body, _) = try await session.bytes(for: NetworkRequest(url: server.url("/large/\(100 << 20)")), delegate: delegate)
                var iterator = body.makeAsyncIterator()
                _ = try await iterator.next()
            }
            let next = try await withTimeLimit(seconds: 5) {
                try await session.data(for: NetworkRequest(url: server.url("/bytes/10"))).0
            }
            #expect(next.map(Array.init) == TestBytes.pattern(count: 10), "the next request must not wait behind the dropped body")
            #expect(delegate.metrics != nil, "the dropped request finished (its metrics were delivered)")
        }
    }

    @Test("invalidateAndCancel() fails a running request and every later one, without hanging")
    func invalidateAndCancel() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            let url = server.url("/delay/30")
            let running = Task { await networkError { try await session.data(for: NetworkRequest(url: url)) } }
            try #require(await waitUntil { server.requestCount > 0 }, "precondition not reached")
            await offThePool { session.invalidateAndCancel() }
            let error = await running.value
            #expect(error?.code == .cancelled)
            let later = try await withTimeLimit(seconds: 20) {  // the drip lasts 30 s: still tells "ended" from "ran out"
                await networkError { try await session.data(for: NetworkRequest(url: server.url("/get"))) }
            }
            let laterError = try #require(later, "a request after invalidation must fail at once, not hang")
            #expect(laterError != nil)
            #expect(laterError?.code == .sessionInvalidated)
            // Invalidating twice is harmless.
            await offThePool { session.invalidateAndCancel() }
        }
    }

    @Test("invalidateAndCancel() fails requests still waiting for a connection")
    func invalidateFailsWaiters() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 1 })
            let url = server.url("/delay/30")
            let tasks = (0..<4).map { _ in
                Task { await networkError { try await session.data(for: NetworkRequest(url: url)) } }
            }
            try #require(await waitUntil { server.requestCount > 0 }, "precondition not reached")
            await offThePool { session.invalidateAndCancel() }
            let errors = try await withTimeLimit(seconds: 20) {  // the drip lasts 30 s: still tells "ended" from "ran out"
                var errors: [NetworkError?] = []
                for task in tasks { errors.append(await task.value) }
                return errors
            }
            let codes = try #require(errors, "every request must end").map { $0?.code }
            #expect(codes == Array(repeating: .cancelled, count: 4))
        }
    }

    @Test("invalidateAndCancel() during a burst of new requests ends every one of them")
    func invalidateDuringBurst() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.eventLoopCount = 2 })
            let url = server.url("/get")
            // A bound that tells a hang from a slow run: 200 requests and the invalidation take
            // seconds, but up to ~20 s on a loaded two-core CI machine (seen); a hang never ends.
            let ended = try await withTimeLimit(seconds: 90) {
                await withTaskGroup(of: Void.self) { group in
                    for _ in 0..<200 {
                        group.addTask { _ = await networkError { try await session.data(for: NetworkRequest(url: url)) } }
                    }
                    // Off the cooperative pool: invalidation joins the session's loop threads.
                    group.addTask { await offThePool { session.invalidateAndCancel() } }
                    await group.waitForAll()
                }
                return true
            }
            #expect(ended == true, "a request racing invalidateAndCancel() must not hang")
        }
    }
}
