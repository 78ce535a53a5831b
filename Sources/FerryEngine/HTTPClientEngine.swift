import FerryIO
import Synchronization

/// Ferry's HTTP/1.1 engine: a few event loops, each with its own connection pool.
///
/// Every exchange for one scheme, host and port runs on the same loop (chosen by the pool key's
/// ``PoolKey/loopAffinity``), so its keep-alive connections and per-host limit live in one
/// place, with no lock.
package final class HTTPClientEngine: Sendable {
    private let group: EventLoopGroup
    private let resolver: Resolver
    private let pools: [LoopBound<ConnectionPool>]
    /// One per loop, in the order of ``pools``.
    private let executors: [EventLoopTaskExecutor]
    private let isShutDown = Atomic<Bool>(false)

    /// Makes the loops (each starts its thread with its first exchange) and the resolver.
    /// - Parameters:
    ///   - loopCount: Event loops; `nil` for one per core, at most 4.
    ///   - maxConnectionsPerHost: Most connections per scheme, host and port.
    ///   - idleTimeout: How long a parked keep-alive connection is kept.
    ///   - connect: How new connections are opened (timeout, resolved addresses, trust check):
    ///     the session's, once for all its exchanges.
    /// - Throws: ``SystemError`` when a loop's epoll or eventfd cannot be created.
    package init(
        loopCount: Int?, maxConnectionsPerHost: Int, idleTimeout: Duration, connect: ConnectSettings = ConnectSettings()
    ) throws(SystemError) {
        if let loopCount {
            group = try EventLoopGroup(loopCount: max(1, loopCount))
        } else {
            group = try EventLoopGroup()
        }
        resolver = Resolver()
        pools = group.loops.map { [resolver] loop in
            LoopBound(ConnectionPool(
                loop: loop, resolver: resolver, maxConnectionsPerHost: maxConnectionsPerHost, idleTimeout: idleTimeout,
                connect: connect))
        }
        executors = group.loops.map(EventLoopTaskExecutor.init)
    }

    /// The loop, and its pool, that runs every exchange for `key` (``PoolKey/loopAffinity``).
    private func index(for key: PoolKey) -> Int {
        Int(UInt(bitPattern: key.loopAffinity) % UInt(pools.count))
    }

    /// The executor of the loop that runs the exchanges for `key`: tasks that prefer it are
    /// resumed by those exchanges without a thread switch.
    package func taskExecutor(for key: PoolKey) -> EventLoopTaskExecutor {
        executors[index(for: key)]
    }

    /// Runs one exchange. Delegate methods are called on the exchange's loop thread.
    /// - Parameter handleReady: Given the handle on the calling thread before the exchange can
    ///   start, so a caller that keeps it has it before the first delegate call needs it.
    /// - Returns: A handle to cancel the exchange or resume a paused body.
    /// After ``shutdown()`` the delegate fails at once, on the calling thread, as cancelled.
    package func execute(_ request: consuming ExchangeRequest, delegate: any ExchangeDelegate & Sendable,
                         handleReady: (ExchangeHandle) -> Void = { _ in }) -> ExchangeHandle {
        guard !isShutDown.load(ordering: .acquiring) else {
            delegate.exchangeDidFail(EngineError(.cancelled), metrics: ExchangeMetrics(start: .now()))
            return ExchangeHandle(loop: nil)
        }
        let pool = pools[index(for: request.key)]
        let loop = pool.value.loop
        do throws(SystemError) {
            try loop.startIfNeeded()
        } catch {
            delegate.exchangeDidFail(EngineError(.loopThreadFailed(error)), metrics: ExchangeMetrics(start: .now()))
            return ExchangeHandle(loop: nil)
        }
        let handle = ExchangeHandle(loop: loop)
        handleReady(handle)
        // Made here, where the request can be moved into it, and touched only on its loop from
        // then on: built inside the closure, it copied the request out of the closure's capture.
        // Its metrics start now, when the engine accepts the request (the hand-over counts).
        let exchange = LoopBound(Exchange(request: request, delegate: delegate, pool: pool.value, loop: loop))
        let accepted = loop.execute {
            // The exchange holds its pool unowned: the task keeps the pool alive until it ran.
            withExtendedLifetime(pool) {
                // A `cancel()` through the handle that `handleReady` gave out may have reached
                // the loop before this task: its abort found no exchange, so it is done here.
                if handle.attach(exchange.value) {
                    exchange.value.abort(EngineError(.cancelled))
                } else {
                    exchange.value.start()
                }
            }
        }
        // The engine shut down between the check above and now: nothing will run the exchange.
        if !accepted { delegate.exchangeDidFail(EngineError(.cancelled), metrics: ExchangeMetrics(start: .now())) }
        return handle
    }

    /// Closes every parked keep-alive connection on every loop that has started (a loop that
    /// never started has none), then calls `completion` once, from any thread. Running
    /// exchanges keep their connections.
    package func closeIdleConnections(_ completion: @escaping @Sendable () -> Void) {
        let countdown = Countdown(pools.count, then: completion)
        for pool in pools {
            let ran = pool.value.loop.executeIfRunning {
                pool.value.closeIdleConnections()
                countdown.tick()
            }
            if !ran { countdown.tick() }
        }
    }

    /// Closes every connection, fails what waits, and stops the loops. Blocks until done;
    /// never call it from a loop thread.
    package func shutdown() {
        guard !isShutDown.exchange(true, ordering: .acquiringAndReleasing) else { return }
        for pool in pools {
            // A loop that never started has no connections: it is stopped instead of started.
            pool.value.loop.executeIfStarted { pool.value.shutdown() }
        }
        group.shutdownGracefully()
        resolver.shutdown()
    }
}

/// Controls one running exchange from any thread.
package final class ExchangeHandle: @unchecked Sendable {
    // Only touched on `loop`: set by the task that starts the exchange. The handle is given
    // out before that task is queued, so a task of `cancel()` can run first and find none:
    // `cancelled` tells the starting task. (A `resumeReading()` cannot come first: only a
    // callback of the started exchange pauses it.)
    // Weak: the pool or connection owns a running exchange; the exchange owns its delegate,
    // which owns this handle, so a strong reference would be a cycle.
    private weak var exchange: Exchange?
    private let loop: EventLoop?
    private let cancelled = Atomic<Bool>(false)

    init(loop: EventLoop?) { self.loop = loop }

    /// Ties the handle to its exchange, on the loop. Returns whether ``cancel()`` was called
    /// already: the exchange must then fail as cancelled instead of starting.
    fileprivate func attach(_ exchange: Exchange) -> Bool {
        self.exchange = exchange
        return cancelled.load(ordering: .acquiring)
    }

    /// Cancels the exchange; its delegate then receives `exchangeDidFail` with `.cancelled`
    /// unless it already ended.
    package func cancel() {
        cancelled.store(true, ordering: .releasing)
        loop?.execute { [self] in exchange?.abort(EngineError(.cancelled)) }
    }

    /// Fails the exchange with `error`, as ``BodyDemand/stop(_:)`` does, for a decision taken
    /// after the head callback returned; its delegate then receives `exchangeDidFail` with it
    /// unless it already ended.
    package func stop(_ error: EngineError) {
        loop?.execute { [self] in exchange?.abort(error) }
    }

    /// Resumes reading after the delegate returned ``BodyDemand/pause``.
    package func resumeReading() {
        loop?.execute { [self] in exchange?.resumeReading() }
    }

    /// Runs `body` on the exchange's loop thread, after the delegate callbacks already under
    /// way: a delegate changes its loop-confined state there, between two callbacks, or acts
    /// once the loop is done with what the current pass brought.
    /// - Returns: False when `body` will not run: the loop has stopped (or the exchange never
    ///   had one).
    @discardableResult
    package func onLoop(_ body: @escaping @Sendable () -> Void) -> Bool {
        loop?.execute(body) ?? false
    }
}

/// Calls its closure once, when ``tick()`` has been called `count` times (from any threads).
private final class Countdown: Sendable {
    private let left: Atomic<Int>
    private let then: @Sendable () -> Void

    init(_ count: Int, then: @escaping @Sendable () -> Void) {
        left = Atomic(count)
        self.then = then
    }

    func tick() {
        if left.subtract(1, ordering: .acquiringAndReleasing).newValue == 0 { then() }
    }
}
