// A server that answers and then resets before it has read the whole request (an early 413):
// writing fails, yet its answer is queued in the socket and is the outcome (RFC 9112 §9.5).
@testable import FerryEngine
import FerryWire
import HTTPTypes
import Testing
import TestSupport

/// A streamed body whose first chunk comes at once and whose second waits for ``open()``.
private final class GatedChunkSource: BodyChunkSource {
    typealias Completion = @Sendable (Result<[UInt8]?, EngineError>) -> Void
    private struct State {
        var calls = 0
        var waiting: Completion?
        var isOpen = false
    }
    private let state = Locked(State())
    private let first: [UInt8]
    private let second: [UInt8]

    init(first: [UInt8], second: [UInt8]) {
        self.first = first
        self.second = second
    }

    func nextChunk(_ completion: @escaping Completion) {
        let answer: Result<[UInt8]?, EngineError>? = state.withLock { state in
            state.calls += 1
            switch state.calls {
            case 1: return .success(first)
            case 2 where !state.isOpen:
                state.waiting = completion
                return nil
            case 2: return .success(second)
            default: return .success(nil)
            }
        }
        if let answer { completion(answer) }
    }

    /// Lets the second chunk go.
    func open() {
        let waiting = state.withLock { state in
            state.isOpen = true
            defer { state.waiting = nil }
            return state.waiting
        }
        waiting?(.success(second))
    }

    func cancel() {}
}

@Suite("Engine: an answer before the request's end")
struct EngineEarlyAnswerTests {
    @Test("writing fails after the server answered and reset: the answer stands, not the send failure")
    func theAnswerQueuedBeforeAResetStands() async throws {
        let refusal = EngineTest.response(status: "413 Content Too Large", ["Content-Length: 9", "Connection: close"], body: "too large")
        let server = try ScriptedServer(scripts: [[.readHead, .send(refusal), .reset]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let source = GatedChunkSource(first: Array(repeating: 0x61, count: 10), second: Array(repeating: 0x62, count: 10))
        let request = EngineTest.request(server, method: .post, target: "/upload", body: .stream(source, length: 20))
        // The consumer decides about the head, so reading waits; meanwhile the next chunk's
        // write meets the reset. Resuming then reads the rest of the answer.
        let box = HandleBox()
        let delegate = CollectingDelegate(headPolicy: { .pause })
        box.set(engine.execute(request, delegate: delegate))
        #expect(await eventually { delegate.record.heads.count == 1 })
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(10)))
        // Both run on the loop in this order: the chunk's write fails first, then reading resumes.
        source.open()
        box.resume(after: .zero)
        #expect(await delegate.wait(timeout: .seconds(10)))
        #expect(delegate.succeeded, "\(String(describing: delegate.ending))")
        #expect(delegate.record.heads.first?.status.code == 413)
        #expect(delegate.record.body == EngineTest.bytes("too large"))
    }

    @Test("writing fails and nothing was answered: the send failure is the error")
    func aResetWithoutAnswerIsASendFailure() async throws {
        let server = try ScriptedServer(scripts: [[.readHead, .reset]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let source = GatedChunkSource(first: Array(repeating: 0x61, count: 10), second: Array(repeating: 0x62, count: 10))
        let request = EngineTest.request(server, method: .post, target: "/upload", body: .stream(source, length: 20))
        let delegate = CollectingDelegate()
        _ = engine.execute(request, delegate: delegate)
        #expect(await server.waitForFinishedConnections(1, timeout: .seconds(10)))
        source.open()
        #expect(await delegate.wait(timeout: .seconds(10)))
        // The reset reaches the client as a failed write or a failed read, whichever the loop
        // meets first; never as an empty success.
        switch delegate.error?.kind {
        case .sendFailed?, .receiveFailed?: break
        default: Issue.record("unexpected ending: \(String(describing: delegate.ending))")
        }
    }
}
