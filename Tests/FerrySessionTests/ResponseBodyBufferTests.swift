@testable import FerrySession
import Synchronization
import Testing
import TestSupport

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

    @Test("tiny chunks count at least their holding cost: 1-byte chunks pause the producer after a bounded number")
    func tinyChunksAreBounded() async throws {
        let calls = Calls()
        let buffer = Self.buffer(calls)
        var appended = 1
        while buffer.append([UInt8(truncatingIfNeeded: appended)]) { appended += 1 }
        #expect(appended == ResponseBodyBuffer.highWaterMark / ResponseBodyBuffer.minimumChunkCharge)
        // Taking all but half of them resumes it, as for large chunks.
        for _ in 0..<(appended / 2) { _ = try await buffer.next() }
        #expect(calls.resumes.load(ordering: .relaxed) == 0)
        _ = try await buffer.next()
        #expect(calls.resumes.load(ordering: .relaxed) == 1)
    }

    @Test("a waiting consumer gets the next chunk, then the end")
    func waitingConsumer() async throws {
        let buffer = Self.buffer(Calls())
        let consumer = Task { () throws(NetworkError) -> [[UInt8]] in
            var chunks: [[UInt8]] = []
            while let chunk = try await buffer.next() { chunks.append(chunk) }
            return chunks
        }
        #expect(await waitUntil { buffer.hasWaitingConsumer })
        #expect(buffer.append([1, 2, 3]))
        #expect(await waitUntil { buffer.hasWaitingConsumer }, "the consumer took the chunk and waits again")
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

    /// A full chunk in an array of `capacity` bytes, and the address of its memory.
    static func largeChunk(_ value: UInt8, capacity: Int = 256 * 1024) -> ([UInt8], UnsafePointer<UInt8>?) {
        var chunk = [UInt8]()
        chunk.reserveCapacity(capacity)
        chunk.append(contentsOf: repeatElement(value, count: capacity))
        return (chunk, chunk.withUnsafeBufferPointer { $0.baseAddress })
    }

    /// A buffer holding two large chunks, `first` then `second` (under the high-water mark),
    /// and the address of the first one's memory, which only the buffer references.
    static func bufferWithTwoChunks(_ first: UInt8, _ second: UInt8) -> (ResponseBodyBuffer, UnsafePointer<UInt8>?) {
        let buffer = Self.buffer(Calls())
        let (chunk, address) = largeChunk(first)
        _ = buffer.append(consume chunk)
        _ = buffer.append(largeChunk(second).0)
        return (buffer, address)
    }

    @Test("a large chunk the consumer let go of lends its memory, emptied, to the producer's next chunk")
    func releasedChunkIsReused() async throws {
        let (buffer, address) = Self.bufferWithTwoChunks(1, 2)
        #expect(buffer.takeSpareChunk(minimumCapacity: 1) == nil, "nothing consumed yet")
        let taken = try await buffer.next()
        #expect(taken?.first == 1)
        _ = consume taken
        #expect(try await buffer.next()?.first == 2)
        let spare = try #require(buffer.takeSpareChunk(minimumCapacity: 256 * 1024))
        #expect(spare.isEmpty && spare.capacity >= 256 * 1024)
        #expect(spare.withUnsafeBufferPointer { $0.baseAddress } == address)
        #expect(buffer.takeSpareChunk(minimumCapacity: 1) == nil, "one spare, taken once")
    }

    @Test("a chunk the consumer still holds is never written into: the spare gets memory of its own")
    func heldChunkIsLeftAlone() async throws {
        let (buffer, address) = Self.bufferWithTwoChunks(7, 8)
        let kept = try #require(try await buffer.next())
        #expect(try await buffer.next()?.first == 8)
        var spare = try #require(buffer.takeSpareChunk(minimumCapacity: 256 * 1024))
        #expect(spare.withUnsafeBufferPointer { $0.baseAddress } != address)
        spare.append(contentsOf: repeatElement(0, count: 1000))
        #expect(kept.count == 256 * 1024 && kept.allSatisfy { $0 == 7 })
    }

    @Test("small chunks are not kept for reuse, and at most sparesMaximum large ones are")
    func recyclingIsBounded() async throws {
        let buffer = Self.buffer(Calls())
        #expect(buffer.append([UInt8](repeating: 1, count: 1000)))
        #expect(buffer.append([2]))
        _ = try await buffer.next()
        _ = try await buffer.next()
        #expect(buffer.takeSpareChunk(minimumCapacity: 1) == nil, "a 1,000-byte chunk is not worth keeping")

        // Each call to next() recycles the chunk the call before returned.
        let count = ResponseBodyBuffer.sparesMaximum + 2
        for value in 0..<count { _ = buffer.append(Self.largeChunk(UInt8(value), capacity: ResponseBodyBuffer.recycledCapacityMinimum).0) }
        for _ in 0..<count { _ = try await buffer.next() }
        var spares = 0
        while buffer.takeSpareChunk(minimumCapacity: ResponseBodyBuffer.recycledCapacityMinimum) != nil { spares += 1 }
        #expect(spares == ResponseBodyBuffer.sparesMaximum)
    }

    @Test("once the body ended, no memory is kept for a producer that reads no more")
    func noSparesAfterTheEnd() async throws {
        let (buffer, _) = Self.bufferWithTwoChunks(1, 2)
        _ = try await buffer.next()
        buffer.finish(nil)
        _ = try await buffer.next()
        #expect(try await buffer.next() == nil)
        #expect(buffer.takeSpareChunk(minimumCapacity: 1) == nil)
    }

    @Test("a spare smaller than the producer needs is not handed out")
    func spareTooSmall() async throws {
        let buffer = Self.buffer(Calls())
        #expect(buffer.append(Self.largeChunk(1, capacity: 100_000).0))
        #expect(buffer.append([2]))
        _ = try await buffer.next()
        _ = try await buffer.next()
        #expect(buffer.takeSpareChunk(minimumCapacity: 256 * 1024) == nil)
        #expect(buffer.takeSpareChunk(minimumCapacity: 100_000) != nil)
    }
}
