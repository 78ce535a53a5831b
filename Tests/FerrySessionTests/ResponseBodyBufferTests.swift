@testable import FerrySession
import Synchronization
import Testing

/// The hand-over between the engine and a `bytes(for:)` consumer, without a server.
@Suite("ResponseBodyBuffer")
struct ResponseBodyBufferTests {
    /// Counts the producer's resume and abandon calls.
    final class Calls: Sendable {
        let resumes = Atomic(0)
        let abandons = Atomic(0)
    }

    static func buffer(_ calls: Calls) -> ResponseBodyBuffer {
        ResponseBodyBuffer(
            onResume: { calls.resumes.add(1, ordering: .relaxed) },
            onAbandon: { calls.abandons.add(1, ordering: .relaxed) })
    }

    @Test("buffered chunks come out in order; the paused producer resumes once, below half the mark")
    func drainAfterPause() async throws {
        let calls = Calls()
        let buffer = Self.buffer(calls)
        let size = ResponseBodyBuffer.highWaterMark / 8
        var appended = 0
        while buffer.append([UInt8](repeating: UInt8(appended), count: size)) { appended += 1 }
        appended += 1
        #expect(appended == 8, "the eighth chunk reaches the mark and pauses the producer")
        buffer.finish(nil)

        var seen: [UInt8] = []
        var resumesSeen: [Int] = []
        while let chunk = try await buffer.next() {
            #expect(chunk.count == size)
            seen.append(chunk[0])
            resumesSeen.append(calls.resumes.load(ordering: .relaxed))
        }
        #expect(seen == (0..<8).map(UInt8.init))
        // Below half the mark (4 chunks) after the fifth chunk is taken: one resume, then none.
        #expect(resumesSeen == [0, 0, 0, 0, 1, 1, 1, 1])
        #expect(try await buffer.next() == nil)
        #expect(calls.abandons.load(ordering: .relaxed) == 0)
    }

    @Test("a waiting consumer gets the next chunk, then the end")
    func waitingConsumer() async throws {
        let buffer = Self.buffer(Calls())
        let consumer = Task { () throws(NetworkError) -> [[UInt8]] in
            var chunks: [[UInt8]] = []
            while let chunk = try await buffer.next() { chunks.append(chunk) }
            return chunks
        }
        try await Task.sleep(for: .milliseconds(50))
        #expect(buffer.append([1, 2, 3]))
        try await Task.sleep(for: .milliseconds(20))
        #expect(buffer.append([4]))
        buffer.finish(nil)
        #expect(try await consumer.value == [[1, 2, 3], [4]])
    }

    @Test("a failure reaches the consumer after the chunks before it")
    func failureAfterChunks() async throws {
        let buffer = Self.buffer(Calls())
        #expect(buffer.append([7]))
        buffer.finish(NetworkError(.networkConnectionLost, reason: "test"))
        #expect(try await buffer.next() == [7])
        let error = await #expect(throws: NetworkError.self) { try await buffer.next() }
        #expect(error?.code == .networkConnectionLost)
    }

    @Test("a cancelled consumer gets cancelled, not the buffered bytes, and the transfer is abandoned")
    func cancelledConsumer() async throws {
        let calls = Calls()
        let buffer = Self.buffer(calls)
        #expect(buffer.append([1]))
        let consumer = Task { () throws(NetworkError) -> [UInt8]? in
            withUnsafeCurrentTask { $0?.cancel() }
            return try await buffer.next()
        }
        let error = await #expect(throws: NetworkError.self) { try await consumer.value }
        #expect(error?.code == .cancelled)
        #expect(calls.abandons.load(ordering: .relaxed) == 1)
    }
}
