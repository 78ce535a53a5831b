// SessionTask.foundationProgress (the FoundationProgress trait): a Foundation.Progress that
// follows the task and acts on it.
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

#if FoundationProgress
@Suite("Task Foundation.Progress")
struct TaskFoundationProgressTests {
    @Test func itFollowsTheBytesAndFinishesWithTheTask() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = SessionTaskTests.HandlerResult<URL>(queue: session.delegateQueue)
            let task = session.downloadTask(with: NetworkRequest(url: server.url("/bytes/200000")), completionHandler: result.handler)
            let progress = task.foundationProgress
            #expect(progress.totalUnitCount == -1, "indeterminate until the head says how long")
            #expect(progress.completedUnitCount == 0)
            task.resume()
            let (_, _, error, _) = try await result.wait()
            #expect(error == nil)
            #expect(progress.totalUnitCount == 200_000)
            #expect(progress.completedUnitCount == 200_000)
            #expect(progress.isFinished)
            #expect(task.foundationProgress === progress, "one Progress per task")
        }
    }

    @Test func cancellingItCancelsTheTask() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = SessionTaskTests.HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/drip?numbytes=100&duration=30")),
                                        completionHandler: result.handler)
            task.resume()
            #expect(task.foundationProgress.isCancellable)
            task.foundationProgress.cancel()
            let (_, _, error, _) = try await result.wait()
            #expect(error?.code == .cancelled)
            #expect(task.state == .completed)
        }
    }

    /// With two pauses, a resume still resumes the task: before, each pause had suspended
    /// it once more, and one resume left it suspended.
    @Test(arguments: [1, 2])
    func pausingAndResumingItSuspendAndResumeTheTask(pauses: Int) async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let task = session.dataTask(with: NetworkRequest(url: server.url("/drip?numbytes=100&duration=30")))
            task.resume()
            let progress = task.foundationProgress
            #expect(progress.isPausable)
            // Foundation calls the handlers a moment later, on a queue of its own.
            for _ in 0..<pauses { progress.pause() }
            #expect(await waitUntil { task.state == .suspended })
            progress.resume()
            #expect(await waitUntil { task.state == .running }, "one resume of the progress resumes the task")
            task.cancel()
            #expect(await waitUntil { task.state == .completed })
        }
    }

    @Test func theTaskFollowsWhetherItIsPausedNotHowOften() async throws {
        // Foundation runs one handler per call, later and in no set order: two pauses and a
        // resume end with the progress not paused, and so must the task, whatever order the
        // handlers ran in (before, each pause suspended once more and the task never ran).
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let result = SessionTaskTests.HandlerResult<Data>(queue: session.delegateQueue)
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/1000")), completionHandler: result.handler)
            let progress = task.foundationProgress
            progress.pause()
            progress.pause()
            progress.resume()
            task.resume()
            let (data, _, error, _) = try await result.wait()
            #expect(error == nil)
            #expect(data?.count == 1000)
            #expect(!progress.isPaused)
        }
    }
}
#endif
