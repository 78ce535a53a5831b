// Waiting without blocking a thread. Swift Testing runs every test (sync ones too) on the
// cooperative thread pool, which has one thread per core: a test that parks a pool thread on a
// semaphore or a sleep stalls every other test on a small machine, and tests that race a server
// lose. These helpers suspend instead.
import FerryBase
import Foundation
import Synchronization

/// A one-shot event that async code can wait for with a bound, without blocking a thread.
///
/// ``set()`` may be called from any thread (a loop thread, a server thread), before or after a
/// waiter arrives, and more than once (later calls do nothing).
public final class AsyncEvent: Sendable {
    private struct Waiter {
        var continuation: CheckedContinuation<Bool, Never>
        var timer: Task<Void, Never>?
    }

    private struct State {
        var isSet = false
        var nextID = 0
        var waiters: [Int: Waiter] = [:]
    }

    private let state = Locked(State())

    public init() {}

    /// Whether ``set()`` was called.
    public var isSet: Bool { state.withLock { $0.isSet } }

    /// Marks the event as happened and wakes every waiter.
    public func set() {
        let waiters = state.withLock { state -> [Waiter] in
            guard !state.isSet else { return [] }
            state.isSet = true
            defer { state.waiters = [:] }
            return Array(state.waiters.values)
        }
        for waiter in waiters {
            waiter.timer?.cancel()
            waiter.continuation.resume(returning: true)
        }
    }

    /// Suspends until the event happens.
    /// - Parameter timeout: the longest wait.
    /// - Returns: `true` when it happened, `false` when `timeout` passed first or the waiting
    ///   task was cancelled.
    public func wait(timeout: Duration) async -> Bool {
        let id: Int? = state.withLock { state in
            if state.isSet { return nil }
            state.nextID += 1
            return state.nextID
        }
        guard let id else { return true }
        return await withTaskCancellationHandler {
            await withCheckedContinuation { continuation in
                let registered = state.withLock { state -> Bool in
                    guard !state.isSet else { return false }
                    state.waiters[id] = Waiter(continuation: continuation, timer: nil)
                    return true
                }
                guard registered else {
                    continuation.resume(returning: true)
                    return
                }
                let timer = Task { [self] in
                    try? await Task.sleep(for: timeout)
                    expire(id)
                }
                state.withLock { $0.waiters[id]?.timer = timer }
                if Task.isCancelled { expire(id) }
            }
        } onCancel: {
            expire(id)
        }
    }

    /// Ends waiter `id` with `false`, if it still waits.
    private func expire(_ id: Int) {
        guard let waiter = state.withLock({ $0.waiters.removeValue(forKey: id) }) else { return }
        waiter.timer?.cancel()
        waiter.continuation.resume(returning: false)
    }
}

/// Polls `condition` every `interval` (suspending in between) until it holds.
/// - Parameters:
///   - timeout: the longest wait.
///   - interval: the pause between checks.
///   - condition: what to wait for; cheap and thread-safe.
/// - Returns: whether `condition` held within `timeout` (`false` also when cancelled).
public func waitUntil(
    timeout: Duration = .seconds(30), pollingEvery interval: Duration = .milliseconds(2),
    _ condition: () -> Bool
) async -> Bool {
    let clock = ContinuousClock()
    let deadline = clock.now.advanced(by: timeout)
    while !condition() {
        if clock.now >= deadline || Task.isCancelled { return false }
        try? await Task.sleep(for: interval)
    }
    return true
}

/// Runs `body`, but gives up after `limit` seconds (cancelling it) and returns `nil`, so a
/// test that exposes a hang fails instead of stalling the suite. A body that ignores
/// cancellation is left behind rather than awaited.
public func withTimeLimit<T: Sendable>(
    seconds limit: Double, _ body: @escaping @Sendable () async throws -> T
) async throws -> T? {
    let work = Task { try await body() }
    let outcome: Result<T, any Error>? = await withCheckedContinuation { continuation in
        let once = ResumeOnce(continuation)
        Task {
            do {
                once.resume(.success(try await work.value))
            } catch {
                once.resume(.failure(error))
            }
        }
        Task {
            try? await Task.sleep(for: .milliseconds(Int(limit * 1000)))
            once.resume(nil)
        }
    }
    guard let outcome else {
        work.cancel()
        return nil
    }
    return try outcome.get()
}

/// Resumes a continuation at most once, from whichever racer comes first.
private final class ResumeOnce<Value: Sendable>: Sendable {
    private let continuation: Locked<CheckedContinuation<Value, Never>?>

    init(_ continuation: CheckedContinuation<Value, Never>) {
        self.continuation = Locked(continuation)
    }

    func resume(_ value: Value) {
        continuation.withLock { $0.take() }?.resume(returning: value)
    }
}

/// Runs blocking `work` on a fresh thread (never on the cooperative pool) and suspends until it
/// returns: for shutdown calls that join threads, such as an engine's or a server's.
public func offThePool<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in
        let thread = Thread { continuation.resume(returning: work()) }
        thread.start()
    }
}
