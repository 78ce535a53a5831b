// Cancelling a task at the stages the mid-body and before-resume tests in SessionTaskTests do
// not reach: during the TLS handshake (a server that never answers the ClientHello), while the
// task waits for a connection, and while its data delegate decides about the response. Each
// completes once, as cancelled, and leaves the session usable.
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

@Suite("Session task cancellation at every stage")
struct SessionTaskCancellationTests {
    /// Runs `task` with a recording delegate and cancels it once `ready` holds.
    private func cancel(_ task: SessionTask, in session: Session, when ready: @escaping () -> Bool) async throws -> RecordingDelegate {
        let delegate = RecordingDelegate(queue: session.delegateQueue)
        task.delegate = delegate
        task.resume()
        #expect(await waitUntil(ready), "the stage was never reached")
        task.cancel()
        #expect(await waitUntil { delegate.completion != nil })
        #expect(delegate.completion??.code == .cancelled)
        #expect(task.state == .completed)
        #expect(delegate.names.filter { $0 == "complete" }.count == 1, "one completion")
        return delegate
    }

    @Test func duringTheTLSHandshake() async throws {
        // Accepts, reads nothing, answers nothing: the client's ClientHello waits for ever.
        let server = try ScriptedServer(scripts: [[.stallUntilClosed(limit: .seconds(30))]])
        defer { server.shutdown() }
        // A connection being opened for a cancelled task goes on opening, for the next task
        // (the pool's rule), bounded by the connect timeout; invalidating the session ends it.
        let session = Session(configuration: try TLSSessionTest.configuration())
        let url = try #require(URL(string: "https://localhost:\(server.port)/"))
        let task = session.dataTask(with: NetworkRequest(url: url))
        _ = try await cancel(task, in: session) { server.acceptedConnections > 0 }
        #expect(task.response == nil)
        await offThePool { session.invalidateAndCancel() }
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)), "invalidation closed the half-open connection")
    }

    @Test func whileWaitingForAConnection() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration { $0.httpMaximumConnectionsPerHost = 1 })
            defer { session.invalidateAndCancel() }
            let holder = HoldingDelegate()
            let busy = session.dataTask(with: NetworkRequest(url: server.url("/bytes/10")))
            busy.delegate = holder
            busy.resume()
            #expect(await holder.asked.wait(timeout: .seconds(30)))
            let waiting = session.dataTask(with: NetworkRequest(url: server.url("/get")))
            let delegate = RecordingDelegate(queue: session.delegateQueue)
            waiting.delegate = delegate
            waiting.resume()
            // The flush runs on the loop after the waiting task's start: it is in the pool's queue.
            await session.flush()
            waiting.cancel()
            #expect(await waitUntil { delegate.completion != nil })
            #expect(delegate.completion??.code == .cancelled)
            #expect(waiting.state == .completed)
            #expect(server.requestCount == 1, "the cancelled task never reached the server")
            holder.allow()
            let (data, _) = try await session.data(for: NetworkRequest(url: server.url("/bytes/5")))
            #expect(data.count == 5, "the connection serves the next request")
        }
    }

    @Test func whileTheDataDelegateDecides() async throws {
        try await HTTPBinServer.withServer { server in
            let session = Session(configuration: SessionTest.configuration())
            defer { session.invalidateAndCancel() }
            let holder = HoldingDelegate()
            let task = session.dataTask(with: NetworkRequest(url: server.url("/bytes/100000")))
            task.delegate = holder
            task.resume()
            #expect(await holder.asked.wait(timeout: .seconds(30)))
            task.cancel()
            #expect(await waitUntil { task.state == .completed })
            #expect(task.error?.code == .cancelled)
            #expect(task.countOfBytesReceived == 0, "no body byte was read")
            holder.allow()  // a late answer changes nothing
            #expect(task.error?.code == .cancelled)
        }
    }
}
