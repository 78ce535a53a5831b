import FerryBase
import Dispatch
import FerryIO
import FerryWire
import Synchronization
import Testing
import TestSupport

@testable import FerryEngine

/// While decoding, a pause is honoured within one slice of encoded input
/// (`Exchange.decodeSliceSize`): a paused consumer is handed at most that slice's decoded
/// bytes, never the rest of a whole read.
@Suite("Engine: backpressure while decoding")
struct EngineDecodingBackpressureTests {
    /// Text-like bytes that compress a few times over, like real bodies (not a bomb).
    static func text(count: Int) -> [UInt8] {
        var state: UInt32 = 12_345
        return (0..<count).map { _ in
            state = state &* 1_103_515_245 &+ 12_345
            return UInt8(ascii: "a") + UInt8((state >> 16) % 16)
        }
    }

    final class PauseProbe: Sendable {
        let paused = Atomic<Bool>(false)
        let bytesWhilePaused = Atomic<Int>(0)
        let handle = Locked<ExchangeHandle?>(nil)
    }

    @Test("a pause while decoding is honoured within one encoded slice")
    func pauseIsHonouredWithinOneSlice() async throws {
        let plain = Self.text(count: 4 * 1024 * 1024)
        let gzip = Zlib.compress(plain, format: .gzip, level: 6)
        let ratio = plain.count / gzip.count + 1
        // One slice's decoded size, with room for local variation of the ratio.
        let bound = Exchange.decodeSliceSize * ratio * 2
        // The test means something only if one read would have delivered far more.
        #expect(min(gzip.count, HTTP1Connection.readBufferSize) * ratio > 4 * bound)

        let head = EngineTest.bytes(EngineTest.response(["Content-Encoding: gzip", "Content-Length: \(gzip.count)"]))
        let server = try ScriptedServer(scripts: [[.readRequest, .send(head + gzip), .stallUntilClosed(limit: .seconds(5))]])
        defer { server.shutdown() }
        let engine = try EngineTest.makeEngine()
        defer { engine.shutdown() }
        let probe = PauseProbe()
        let delegate = CollectingDelegate { call, count in
            if probe.paused.load(ordering: .acquiring) { probe.bytesWhilePaused.add(count, ordering: .relaxed) }
            guard call == 0 else { return .more }
            probe.paused.store(true, ordering: .releasing)
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(100)) {
                probe.paused.store(false, ordering: .releasing)
                probe.handle.withLock { $0 }?.resumeReading()
            }
            return .pause
        }
        var request = EngineTest.request(server)
        request.decodesContent = true
        probe.handle.withLock { $0 = engine.execute(request, delegate: delegate) }
        #expect(await delegate.wait())
        #expect(delegate.succeeded)
        #expect(delegate.record.body == plain)
        #expect(probe.bytesWhilePaused.load(ordering: .acquiring) <= bound)
    }
}
