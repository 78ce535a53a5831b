import FerryBase
import FoundationEssentials
import Synchronization

/// A response body as it arrives: an `AsyncSequence` of byte chunks with backpressure.
///
/// Ferry stops reading from the socket while about ``ResponseBodyBuffer/highWaterMark`` bytes
/// wait unconsumed, and resumes when the consumer catches up, so a slow consumer never makes
/// the engine buffer without bound. Iterate it once. Errors thrown by `next()` are
/// ``NetworkError``s (connection lost mid-body, timeouts, decoding failures, size limits).
/// Dropping the sequence before its end cancels the request.
public struct ResponseBody: AsyncSequence, Sendable {
    /// A chunk of body bytes, in order.
    public typealias Element = [UInt8]
    /// The error `next()` throws.
    public typealias Failure = NetworkError

    let lifetime: BodyLifetime
    /// The task that delivers the body (URLSession's `AsyncBytes.task`): its
    /// ``SessionTask/metrics`` are there once the body ended.
    public let task: DataTask

    init(buffer: ResponseBodyBuffer, task: DataTask) {
        lifetime = BodyLifetime(buffer)
        self.task = task
    }

    /// Creates the iterator.
    public func makeAsyncIterator() -> Iterator { Iterator(lifetime: lifetime) }

    /// Pulls chunks from the body.
    public struct Iterator: AsyncIteratorProtocol {
        let lifetime: BodyLifetime

        /// The next chunk, or `nil` at the end of the body.
        ///
        /// If the chunk returned before has been let go of by then, its memory carries a later
        /// chunk (pages already mapped, no new allocation). Mutating a chunk before the next
        /// call copies it once.
        /// - Throws: ``NetworkError`` when the body could not be received completely, or
        ///   ``NetworkError/Code/cancelled`` when the iterating task was cancelled.
        public mutating func next() async throws(NetworkError) -> [UInt8]? {
            try await lifetime.buffer.next()
        }

        /// The next chunk (isolation-aware form).
        public mutating func next(isolation actor: isolated (any Actor)?) async throws(NetworkError) -> [UInt8]? {
            try await lifetime.buffer.next()
        }
    }

    /// Collects the rest of the body into memory, refusing more than `limit` bytes.
    /// - Throws: ``NetworkError`` with ``NetworkError/Code/dataLengthExceedsMaximum`` past `limit`,
    ///   or the error that ended the body.
    public func collect(upTo limit: Int = .max) async throws(NetworkError) -> Data {
        var data = Data()
        var iterator = makeAsyncIterator()
        while let chunk = try await iterator.next() {
            guard data.count + chunk.count <= limit else {
                lifetime.buffer.abandon()
                throw NetworkError(SessionFailure.bodyLargerThan(limit), url: nil)
            }
            data.append(contentsOf: chunk)
        }
        return data
    }
}

/// The hand-over between the engine (producer, on a loop thread) and a ``ResponseBody``
/// consumer (any task). Bounded: the producer is told to pause above ``highWaterMark``.
final class ResponseBodyBuffer: Sendable {
    /// Unconsumed bytes (each chunk counted at least ``minimumChunkCharge``) above which the
    /// engine stops reading: two of the arrays a large body
    /// arrives in over TLS, one over plain TCP (`HTTP1Connection.directChunkCapacity`). The
    /// kernel's socket buffer keeps receiving while the engine pauses, so a consumer that lags
    /// for a moment costs no throughput; what more buffering would cost is memory. Measured on
    /// 1 GiB, 5 and 6 interleaved runs: 1 MiB held 1.0 MiB more at the peak over plain HTTP
    /// (15.6 against 14.6 MiB) and 0.6 MiB more over HTTPS, for the same CPU time.
    static let highWaterMark = 512 * 1024
    /// The least a held chunk counts against ``highWaterMark``: about what holding one costs
    /// beyond its bytes (an allocation, a queue slot, for a delegate a closure and a `Data`).
    /// Without it a peer sending 1-byte chunks could have half a million of them queued.
    static let minimumChunkCharge = 256

    /// What a chunk of `count` bytes counts against ``highWaterMark`` while it is held.
    static func charge(forChunkOf count: Int) -> Int { max(count, minimumChunkCharge) }
    /// Chunks at least this large (read straight from the socket) are worth reusing.
    static let recycledCapacityMinimum = 64 * 1024
    /// Emptied chunks kept for the producer at most: its next chunk, and the one after when it
    /// runs a chunk ahead of its consumer. More would only hold memory longer.
    static let sparesMaximum = 2

    private struct State {
        var chunks: [[UInt8]] = []
        var head = 0
        /// What the buffered chunks count against ``highWaterMark`` (``charge(forChunkOf:)``).
        var bufferedBytes = 0
        var ended = false
        var failure: NetworkError?
        var paused = false
        var waiter: CheckedContinuation<Result<[UInt8]?, NetworkError>, Never>?
        /// The chunk the consumer got last: a second reference, which is the only one left
        /// once the consumer lets go of it (see ``recycleHandedOut(_:)``).
        var handedOut: [UInt8] = []
        /// Empty arrays consumed chunks left, for the producer's next chunks.
        var spares: [[UInt8]] = []
        /// Run once on the producer's thread after ``append(_:)`` asked for a pause, before
        /// it returns (for tests: the consumer can drain the buffer in that window).
        var pauseObserverForTests: (@Sendable () -> Void)?
    }

    private let state = Locked(State())
    private let onResume: @Sendable () -> Void
    private let onAbandon: @Sendable () -> Void

    init(onResume: @escaping @Sendable () -> Void, onAbandon: @escaping @Sendable () -> Void) {
        self.onResume = onResume
        self.onAbandon = onAbandon
    }

    /// Whether the consumer waits in `next()` for a chunk (for tests).
    var hasWaitingConsumer: Bool { state.withLock { $0.waiter != nil } }

    /// Producer: adds a chunk. Returns `false` when the producer should pause.
    ///
    /// A waiting consumer gets the chunk itself (`consuming`): the producer keeps no reference
    /// of its own that could make the chunk look still in use when it is recycled.
    func append(_ chunk: consuming [UInt8]) -> Bool {
        var chunk = Optional(chunk)
        let (waiter, keepGoing, observer) = state.withLock { state in
            if let waiter = state.waiter {
                state.waiter = nil
                state.handedOut = chunk!
                return (Optional(waiter), true, (@Sendable () -> Void)?.none)
            }
            let bytes = chunk.take()!
            state.bufferedBytes += Self.charge(forChunkOf: bytes.count)
            state.chunks.append(bytes)
            let keepGoing = state.bufferedBytes < Self.highWaterMark
            guard !keepGoing else { return (nil, true, nil) }
            state.paused = true
            return (nil, false, state.pauseObserverForTests.take())
        }
        if let waiter { waiter.resume(returning: .success(chunk.take())) }
        observer?()
        return keepGoing
    }

    /// Whether the producer was told to pause and the consumer has not yet resumed it. The
    /// consumer resumes it on its own thread, possibly before the producer's task recorded
    /// the pause: the task asks this, under its lock, before it stops reading.
    var isPaused: Bool { state.withLock(\.paused) }

    /// Sets what runs once, the next time ``append(_:)`` asks for a pause (for tests).
    func observeNextPauseForTests(_ observer: @escaping @Sendable () -> Void) {
        state.withLock { $0.pauseObserverForTests = observer }
    }

    /// Producer: the body ended, normally (`nil`) or with an error.
    func finish(_ failure: NetworkError?) {
        let waiter = state.withLock { state -> CheckedContinuation<Result<[UInt8]?, NetworkError>, Never>? in
            state.ended = true
            state.failure = failure
            // The producer reads no more chunks.
            state.spares = []
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume(returning: failure.map { .failure($0) } ?? .success(nil))
    }

    /// Consumer, with the chunk handed out last (which ``next()`` took from the state): its
    /// memory goes to the producer for a later chunk. Emptying the array keeps its memory only
    /// if the consumer let go of the chunk; if it still holds it, Swift gives the emptied array
    /// new memory of the same capacity, not yet touched, and the consumer's chunk stays as it is.
    private func recycleHandedOut(_ chunk: consuming [UInt8]) {
        var chunk = chunk
        guard chunk.capacity >= Self.recycledCapacityMinimum else { return }
        chunk.removeAll(keepingCapacity: true)
        state.withLock { state in
            if !state.ended, state.spares.count < Self.sparesMaximum { state.spares.append(chunk) }
        }
    }

    /// Producer: an empty array from ``recycleHandedOut(_:)`` with room for `minimumCapacity`
    /// bytes, if there is one.
    func takeSpareChunk(minimumCapacity: Int) -> [UInt8]? {
        state.withLock { state in
            guard let index = state.spares.lastIndex(where: { $0.capacity >= minimumCapacity }) else { return nil }
            return state.spares.remove(at: index)
        }
    }

    /// Consumer: stops the transfer early (a no-op once the body ended).
    func abandon() {
        let wasEnded = state.withLock { state -> Bool in
            defer { state.ended = true; state.chunks = []; state.head = 0; state.bufferedBytes = 0; state.spares = [] }
            return state.ended
        }
        if !wasEnded { onAbandon() }
    }

    /// Consumer: the next chunk, `nil` at the end. Cancelling the waiting task ends the body
    /// with ``NetworkError/Code/cancelled`` and cancels the transfer.
    ///
    /// A chunk already buffered is taken without suspending: suspending and resuming at once
    /// would still send the task through the executor, often a thread wake-up per chunk.
    func next() async throws(NetworkError) -> [UInt8]? {
        if Task.isCancelled { cancelFromConsumer() }
        let (ready, resume, last) = state.withLock { state in
            // The chunk handed out last leaves the state before the next one is taken; once the
            // body ended, the producer takes no more spares, so it is simply dropped.
            let last = state.ended ? [] : state.handedOut
            state.handedOut = []
            let taken = Self.take(from: &state)
            return (taken.result, taken.resume, last)
        }
        recycleHandedOut(consume last)
        if resume { onResume() }
        if let ready { return try ready.get() }
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<[UInt8]?, NetworkError>, Never>) in
                let (immediate, resume) = state.withLock { state -> (Result<[UInt8]?, NetworkError>?, Bool) in
                    let taken = Self.take(from: &state)
                    if taken.result == nil { state.waiter = continuation }
                    return taken
                }
                if resume { onResume() }
                if let immediate { continuation.resume(returning: immediate) }
            }
        } onCancel: {
            cancelFromConsumer()
        }
        return try result.get()
    }

    /// The next buffered chunk or the end, if there is one (nil: the consumer must wait), and
    /// whether the paused producer should now resume.
    private static func take(from state: inout State) -> (result: Result<[UInt8]?, NetworkError>?, resume: Bool) {
        if state.head < state.chunks.count {
            // Moved out, so the buffer keeps no reference of its own to the chunk.
            var chunk: [UInt8] = []
            swap(&chunk, &state.chunks[state.head])
            state.handedOut = chunk
            state.head += 1
            state.bufferedBytes -= charge(forChunkOf: chunk.count)
            if state.head == state.chunks.count {
                state.chunks.removeAll(keepingCapacity: true)
                state.head = 0
            }
            var resume = false
            if state.paused, state.bufferedBytes < highWaterMark / 2 {
                state.paused = false
                resume = true
            }
            return (.success(chunk), resume)
        }
        if state.ended { return (state.failure.map { .failure($0) } ?? .success(nil), false) }
        // Nothing left: a paused producer must go on, or the consumer would wait for ever.
        var resume = false
        if state.paused {
            state.paused = false
            resume = true
        }
        return (nil, resume)
    }

    /// The consuming task was cancelled: end the body for the consumer and stop the transfer.
    private func cancelFromConsumer() {
        let cancelled = NetworkError(SessionFailure.cancelledWhileReadingBody, url: nil)
        let (waiter, wasEnded) = state.withLock { state -> (CheckedContinuation<Result<[UInt8]?, NetworkError>, Never>?, Bool) in
            let wasEnded = state.ended
            if !wasEnded {
                state.ended = true
                state.failure = cancelled
                state.chunks = []
                state.head = 0
                state.bufferedBytes = 0
                state.spares = []
            }
            defer { state.waiter = nil }
            return (state.waiter, wasEnded)
        }
        waiter?.resume(returning: .failure(cancelled))
        if !wasEnded { onAbandon() }
    }
}

/// Lives as long as any copy of a ``ResponseBody`` or its iterator; when the last one goes
/// away before the body ended, the transfer is cancelled and its connection freed.
final class BodyLifetime: Sendable {
    let buffer: ResponseBodyBuffer

    init(_ buffer: ResponseBodyBuffer) { self.buffer = buffer }

    deinit { buffer.abandon() }
}
