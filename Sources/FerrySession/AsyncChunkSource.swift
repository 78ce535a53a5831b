import FerryBase
import FerryEngine
import Synchronization

/// Feeds an `AsyncSequence` request body to the engine one chunk at a time.
///
/// The engine asks for the next chunk only after the previous one arrived, so at most one
/// pull runs at once; the iterator is handed from pull to pull under the mutex.
final class AsyncChunkSource: BodyChunkSource, Sendable {
    private typealias ChunkIterator = any AsyncIteratorProtocol<[UInt8], any Error>

    private struct State {
        var iterator: ChunkIterator?
        var task: Task<Void, Never>?
        var isCancelled = false
    }

    private let sequence: RequestBody.ByteChunks
    private let state = Locked<UncheckedState>(UncheckedState(State()))

    init(_ sequence: RequestBody.ByteChunks) { self.sequence = sequence }

    func nextChunk(_ completion: @escaping @Sendable (Result<[UInt8]?, EngineError>) -> Void) {
        let cancelled = state.withLock { $0.value.isCancelled }
        guard !cancelled else { return completion(.failure(EngineError(.cancelled))) }
        let task = Task { completion(await self.pull()) }
        state.withLock { $0.value.task = task }
    }

    func cancel() {
        let task = state.withLock { box -> Task<Void, Never>? in
            box.value.isCancelled = true
            return box.value.task
        }
        task?.cancel()
    }

    private func pull() async -> Result<[UInt8]?, EngineError> {
        var iterator = state.withLock { $0.value.iterator.take() } ?? sequence.makeAsyncIterator()
        do {
            let chunk = try await iterator.next()
            let keep = UncheckedState(iterator)
            state.withLock { $0.value.iterator = keep.value }
            return .success(chunk)
        } catch {
            return .failure(EngineError(.requestBodyFailed(String(describing: error))))
        }
    }
}

/// The iterator of a `Sendable` sequence is not itself `Sendable`; it is only ever used by
/// one pull at a time (see ``AsyncChunkSource``).
private struct UncheckedState<Value>: @unchecked Sendable {
    var value: Value
    init(_ value: Value) { self.value = value }
}
