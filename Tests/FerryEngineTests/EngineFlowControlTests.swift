// Cancellation and read backpressure against a raw-socket server.
import FerryBase
import Dispatch
@testable import FerryEngine
import FerryIO
import Foundation
import Glibc
import Synchronization
import Testing
import TestSupport

/// Holds the handle of an exchange so a body policy can resume it from another thread.
final class HandleBox: Sendable {
    private let handle = Locked<ExchangeHandle?>(nil)
    /// Set just before `resumeReading()` is called.
    let resumed = Atomic<Bool>(false)
    /// Set when a body callback arrived while the exchange was paused.
    let pauseLeak = Atomic<Bool>(false)

    /// Whether a body callback arrived while the exchange was paused.
    var deliveredWhilePaused: Bool { pauseLeak.load(ordering: .acquiring) }

    func set(_ value: ExchangeHandle) { handle.withLock { $0 = value } }

    /// Resumes reading after `delay`, from a global queue (never the loop thread).
    func resume(after delay: Duration) {
        let milliseconds = Int(delay.components.seconds * 1000 + delay.components.attoseconds / 1_000_000_000_000_000)
        DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(milliseconds)) { [self] in
            resumed.store(true, ordering: .releasing)
            handle.withLock { $0 }?.resumeReading()
        }
    }
}

/// Waits until `condition` holds, polling (suspended, not blocking a thread), at most `timeout`.
func eventually(timeout: Duration = .seconds(5), _ condition: () -> Bool) async -> Bool {
    await waitUntil(timeout: timeout, pollingEvery: .milliseconds(5), condition)
}

@Suite("Engine: cancellation and backpressure")
struct EngineFlowControlTests {
    private static let stall = ScriptStep.stallUntilClosed(limit: .seconds(30))

    // MARK: - Cancellation

    @Test("cancel through the handle before the exchange reached its loop: cancelled, and no connection is made")
    func cancelBeforeTheExchangeStarted() async throws {
        // The cancel's task reaches the loop before the one that starts the exchange.
        let server = try ScriptedServer(scripts: [EngineTest.markerScript])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        let delegate = CollectingDelegate()
        _ = engine.execute(EngineTest.request(server), delegate: delegate) { handle in handle.cancel() }
        #expect(await delegate.wait())
        #expect(delegate.error?.kind == .cancelled)
        try await EngineTest.expectNoOtherConnection(from: engine, to: server, accepted: 0)
    }

    @Test("cancel while the server stalls: cancelled, and the server sees the connection closed")
    func cancelWhileAwaitingResponse() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, Self.stall]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = CollectingDelegate()
        let handle = engine.execute(EngineTest.request(server), delegate: delegate)
        #expect(await eventually { server.receivedRequestHeads(connection: 0).count == 1 })
        handle.cancel()
        #expect(await delegate.wait())
        #expect(delegate.error?.kind == .cancelled)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
    }

    @Test("cancel in the middle of the body: cancelled, connection closed, no more body")
    func cancelMidBody() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.response(["Content-Length: 100"], body: "abc")), Self.stall]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let delegate = CollectingDelegate()
        let handle = engine.execute(EngineTest.request(server), delegate: delegate)
        #expect(await eventually { delegate.record.body.count == 3 })
        handle.cancel()
        #expect(await delegate.wait())
        #expect(delegate.error?.kind == .cancelled)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
    }

    @Test("cancel after the end changes nothing")
    func cancelAfterFinish() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.ok("done")), Self.stall]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        let delegate = CollectingDelegate()
        let handle = engine.execute(EngineTest.request(server), delegate: delegate)
        #expect(await delegate.wait())
        handle.cancel()
        await EngineTest.shutdown(engine)
        #expect(delegate.record.endings == [.finished(trailers: [:])])
    }

    @Test("cancel a request queued behind a busy connection: cancelled at once, nothing else disturbed")
    func cancelQueuedRequest() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, Self.stall], EngineTest.markerScript])
        defer { server.shutdown() }
        let engine = try HTTPClientEngine(loopCount: 1, maxConnectionsPerHost: 1, idleTimeout: .seconds(60))
        defer { engine.shutdown() }
        let first = CollectingDelegate()
        let queued = CollectingDelegate()
        let firstHandle = engine.execute(EngineTest.request(server, target: "/busy"), delegate: first)
        #expect(await eventually { server.receivedRequestHeads(connection: 0).count == 1 })
        engine.execute(EngineTest.request(server, target: "/queued"), delegate: queued).cancel()
        #expect(await queued.wait())
        #expect(queued.error?.kind == .cancelled)
        #expect(queued.record.sentHeads.isEmpty)
        #expect(first.record.endings.isEmpty)
        firstHandle.cancel()
        #expect(await first.wait())
        #expect(first.error?.kind == .cancelled)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
        // The freed slot must not open a connection for the cancelled request.
        try await EngineTest.expectNoOtherConnection(from: engine, to: server, accepted: 1)
    }

    @Test("shutdown during a stalled exchange: cancelled, and the server sees the connection closed")
    func shutdownDuringExchange() async throws {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(EngineTest.response(["Content-Length: 9"], body: "part")), Self.stall]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        let delegate = CollectingDelegate()
        _ = engine.execute(EngineTest.request(server), delegate: delegate)
        #expect(await eventually { delegate.record.body.count == 4 })
        await EngineTest.shutdown(engine)
        #expect(delegate.record.endings == [.failed(EngineError(.cancelled))])
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(30)))
    }

    @Test("execute after shutdown fails at once as cancelled")
    func executeAfterShutdown() async throws {
        let server = try ScriptedServer(scripts: [])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        await EngineTest.shutdown(engine)
        let delegate = await EngineTest.run(engine, EngineTest.request(server))
        #expect(delegate.error?.kind == .cancelled)
        #expect(server.acceptedConnections == 0)
    }

    // MARK: - Backpressure

    private func runPaused(
        _ script: ConnectionScript, pauseOn: @escaping @Sendable (Int) -> Bool, delay: Duration = .milliseconds(200),
        requestTimeout: Duration = .seconds(60)
    ) async throws -> (CollectingDelegate, HandleBox) {
        let server = try ScriptedServer(scripts: [script])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let box = HandleBox()
        let delegate = CollectingDelegate { call, _ in
            // A callback right after a pause, before the resume, means the pause leaked.
            if call > 0, pauseOn(call - 1), !box.resumed.load(ordering: .acquiring) {
                box.pauseLeak.store(true, ordering: .releasing)
            }
            if pauseOn(call) {
                box.resumed.store(false, ordering: .releasing)
                box.resume(after: delay)
                return .pause
            }
            return .more
        }
        var request = EngineTest.request(server)
        request.requestTimeout = requestTimeout
        box.set(engine.execute(request, delegate: delegate))
        _ = await delegate.wait()
        return (delegate, box)
    }

    @Test("pause on the first chunk, resume after 200 ms: 8 MiB arrive intact and in order")
    func pauseThenResumeLargeBody() async throws {
        let size = 8 * 1024 * 1024
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(size)"]))
        let (delegate, box) = try await runPaused([.readRequest, .send(head + TestBytes.pattern(count: size)), Self.stall], pauseOn: { $0 == 0 })
        #expect(delegate.succeeded)
        #expect(delegate.record.body.count == size)
        #expect(TestBytes.firstMismatch(in: delegate.record.body) == nil)
        #expect(!box.deliveredWhilePaused)
    }

    @Test("pause on every chunk of a 1 MiB chunked body, resuming each time: intact and in order")
    func pauseOnEveryChunk() async throws {
        var raw = EngineTest.bytes(EngineTest.response(["Transfer-Encoding: chunked"]))
        let body = TestBytes.pattern(count: 1024 * 1024)
        for start in stride(from: 0, to: body.count, by: 40_000) {
            let piece = body[start..<min(start + 40_000, body.count)]
            raw += EngineTest.bytes(String(piece.count, radix: 16) + "\r\n") + piece + EngineTest.bytes("\r\n")
        }
        raw += EngineTest.bytes("0\r\n\r\n")
        let (delegate, box) = try await runPaused([.readRequest, .send(raw), Self.stall], pauseOn: { _ in true }, delay: .milliseconds(1))
        #expect(delegate.succeeded)
        #expect(delegate.record.body.count == body.count)
        #expect(TestBytes.firstMismatch(in: delegate.record.body) == nil)
        #expect(!box.deliveredWhilePaused)
    }

    /// A delegate that pauses at the head (deciding about the response) and counts body
    /// callbacks that arrive before it resumes.
    private func runPausedAtHead(_ raw: [UInt8], takesOwnedChunks: Bool) async throws -> (CollectingDelegate, HandleBox) {
        let server = try ScriptedServer(scripts: [[.readRequest, .send(raw), Self.stall]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let box = HandleBox()
        let delegate = CollectingDelegate(
            policy: { _, _ in
                if !box.resumed.load(ordering: .acquiring) { box.pauseLeak.store(true, ordering: .releasing) }
                return .more
            },
            headPolicy: {
                box.resume(after: .milliseconds(50))
                return .pause
            },
            takesOwnedChunks: takesOwnedChunks)
        box.set(engine.execute(EngineTest.request(server), delegate: delegate))
        _ = await delegate.wait()
        return (delegate, box)
    }

    @Test("pause at the head: no body byte before resuming, then 4 MiB intact", arguments: [false, true])
    func pauseAtHead(takesOwnedChunks: Bool) async throws {
        let size = 4 * 1024 * 1024
        let head = EngineTest.bytes(EngineTest.response(["Content-Length: \(size)"]))
        let (delegate, box) = try await runPausedAtHead(head + TestBytes.pattern(count: size), takesOwnedChunks: takesOwnedChunks)
        #expect(delegate.succeeded)
        #expect(delegate.record.heads.count == 1)
        #expect(delegate.record.body.count == size)
        #expect(TestBytes.firstMismatch(in: delegate.record.body) == nil)
        #expect(!box.deliveredWhilePaused, "a body byte arrived while the head's pause held")
    }

    @Test("pause at the head of an empty response: it still finishes after resuming")
    func pauseAtHeadOfEmptyResponse() async throws {
        let raw = EngineTest.bytes(EngineTest.response(["Content-Length: 0"]))
        let (delegate, box) = try await runPausedAtHead(raw, takesOwnedChunks: false)
        #expect(delegate.succeeded)
        #expect(delegate.record.body.isEmpty)
        let resumed = box.resumed.load(ordering: .acquiring)
        #expect(resumed, "it finished only after the resume")
    }

    @Test("the server closes while the consumer is paused: the until-close body still ends cleanly")
    func closeWhilePaused() async throws {
        let (delegate, _) = try await runPaused([.readRequest, .send("HTTP/1.1 200 OK\r\n\r\nall of it"), .close], pauseOn: { $0 == 0 })
        #expect(delegate.succeeded)
        #expect(delegate.record.body == EngineTest.bytes("all of it"))
    }

    @Test("the server resets while the consumer is paused: receiveFailed after resuming")
    func resetWhilePaused() async throws {
        let (delegate, _) = try await runPaused(
            [.readRequest, .send(EngineTest.response(["Content-Length: 100"], body: "abc")), .sleep(.milliseconds(50)), .reset],
            pauseOn: { $0 == 0 }, delay: .milliseconds(300))
        guard case .receiveFailed(let system, _) = delegate.error?.kind else {
            Issue.record("expected receiveFailed, got \(String(describing: delegate.record.endings))")
            return
        }
        #expect(system.errno == ECONNRESET)
        #expect(delegate.record.body == EngineTest.bytes("abc"))
    }

    @Test("pause on the last body bytes of a kept-alive response: the exchange still finishes after resuming")
    func pauseOnFinalChunkOfKeepAliveResponse() async throws {
        // The whole body arrives in one read; the server keeps the connection open, so no
        // later byte or EOF will come along to push the parser on.
        let (delegate, _) = try await runPaused(
            [.readRequest, .send(EngineTest.ok("small body")), Self.stall], pauseOn: { $0 == 0 }, requestTimeout: .seconds(1))
        #expect(delegate.succeeded, "ended with \(String(describing: delegate.record.endings))")
        #expect(delegate.record.body == EngineTest.bytes("small body"))
    }
}
