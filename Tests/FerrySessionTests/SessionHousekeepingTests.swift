// flush, reset, priority and the running-task list, against the in-process servers.
import FerryBase
import Dispatch
import Foundation
import Synchronization
import Testing
import TestSupport

@testable import FerrySession

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
            let order = Locked<[String]>([])
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
