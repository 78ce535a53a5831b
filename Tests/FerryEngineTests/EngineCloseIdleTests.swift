// HTTPClientEngine.closeIdleConnections (URLSession's flush and reset): parked keep-alive
// connections close on every loop that runs, connections serving an exchange stay, and a loop
// that never started is left startable.
//
// ScriptedServer serves connections one after another: a second connection waits in the
// backlog until the first script ends, so a request that gets a new connection also proves the
// engine closed the old one (its `stallUntilClosed` ended).
@testable import FerryEngine
import Synchronization
import Testing
import TestSupport

@Suite("Engine: closing idle connections")
struct EngineCloseIdleTests {
    private static let stall = ScriptStep.stallUntilClosed(limit: .seconds(30))

    /// Calls `closeIdleConnections` and suspends until its completion ran (at most 30 s).
    private func closeIdle(_ engine: HTTPClientEngine) async -> Bool {
        let done = AsyncEvent()
        engine.closeIdleConnections { done.set() }
        return await done.wait(timeout: .seconds(30))
    }

    @Test("after closing idle connections the next request opens a new one")
    func nextRequestOpensANewConnection() async throws {
        let server = try ScriptedServer(scripts: [
            [.readRequest, .send(EngineTest.ok("one")), Self.stall],
            [.readRequest, .send(EngineTest.ok("two")), Self.stall],
        ])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        let first = await EngineTest.run(engine, EngineTest.request(server, target: "/1"))
        let closed = await closeIdle(engine)
        let second = await EngineTest.run(engine, EngineTest.request(server, target: "/2"))
        await EngineTest.shutdown(engine)
        #expect(closed)
        #expect(first.succeeded && second.succeeded)
        #expect(second.record.body == EngineTest.bytes("two"))
        #expect(second.record.connections.map(\.isReused) == [false])
        #expect(second.record.metrics?.connectionsOpened == 1)
        #expect(server.acceptedConnections == 2)
    }

    @Test("a connection serving an exchange stays open and is reused afterwards")
    func busyConnectionStays() async throws {
        let flushed = Atomic<Bool>(false)
        let server = try ScriptedServer(scripts: [[
            .readRequest, .waitUntil { flushed.load(ordering: .acquiring) }, .send(EngineTest.ok("busy")),
            .readRequest, .send(EngineTest.ok("again")), Self.stall,
        ]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        let busy = CollectingDelegate()
        _ = engine.execute(EngineTest.request(server, target: "/busy"), delegate: busy)
        // The request is on the server, so its connection is serving it (not parked).
        let arrived = await waitUntil { server.receivedRequestHeads(connection: 0).count == 1 }
        let closed = await closeIdle(engine)
        flushed.store(true, ordering: .releasing)
        _ = await busy.wait()
        let again = await EngineTest.run(engine, EngineTest.request(server, target: "/again"))
        await EngineTest.shutdown(engine)
        #expect(arrived && closed)
        #expect(busy.succeeded && busy.record.body == EngineTest.bytes("busy"))
        #expect(again.succeeded && again.record.connections.map(\.isReused) == [true])
        #expect(server.acceptedConnections == 1)
    }

    @Test("an engine whose loops never started completes at once and still serves requests")
    func neverStartedLoopsStayUsable() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("later")), Self.stall]])
        defer { server.shutdown() }
        let engine = try HTTPClientEngine(loopCount: 2, maxConnectionsPerHost: 6, idleTimeout: .seconds(60))
        let closed = await closeIdle(engine)
        let later = await EngineTest.run(engine, EngineTest.request(server))
        await EngineTest.shutdown(engine)
        #expect(closed)
        #expect(later.succeeded && later.record.body == EngineTest.bytes("later"))
    }
}
