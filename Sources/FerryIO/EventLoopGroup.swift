#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Synchronization

/// A small fixed set of ``EventLoop``s, each on its own thread once it has work.
///
/// Connections are spread over the loops with ``next()``; a connection then stays on its loop.
/// A loop's thread starts with its first task: a session talking to one host (whose
/// connections share a loop) runs one loop thread, and one that was never used runs none.
/// Sendable: ``loops`` is immutable, the round-robin counter is atomic and shutdown state sits
/// behind a `Locked` (a `Mutex`).
package final class EventLoopGroup: Sendable {
    /// The loops, in creation order.
    package let loops: [EventLoop]
    private let counter = Atomic<Int>(0)
    private let isShutDown = Locked(false)

    /// The default loop count: one per core, at most 4 (an HTTP client rarely needs more,
    /// and every loop with work is a thread).
    package static var defaultLoopCount: Int {
        let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
        return min(max(cores, 1), 4)
    }

    /// Creates `loopCount` loops named `ferry-io-0`, `ferry-io-1`, …; each loop's thread
    /// starts with its first task.
    /// - Parameter loopCount: Number of loops (threads, once busy); at least 1.
    /// - Throws: ``SystemError`` when a loop's epoll or eventfd cannot be created; the loops
    ///   already made are shut down first.
    package init(loopCount: Int = EventLoopGroup.defaultLoopCount) throws(SystemError) {
        precondition(loopCount >= 1, "an EventLoopGroup needs at least one loop")
        var loops: [EventLoop] = []
        do {
            for index in 0..<loopCount {
                loops.append(try EventLoop(name: "ferry-io-\(index)"))
            }
        } catch {
            Self.stop(loops)
            throw error
        }
        self.loops = loops
    }

    /// The next loop, round-robin. Callable from any thread.
    package func next() -> EventLoop {
        let index = counter.wrappingAdd(1, ordering: .relaxed).oldValue
        return loops[Int(UInt(bitPattern: index) % UInt(loops.count))]
    }

    /// Stops every loop once its pending tasks have run, and waits for the threads to end.
    ///
    /// Safe to call more than once and from several threads. Pending timers are dropped
    /// unfired; registered descriptors are not closed (their owners close them). Called on one
    /// of the group's own loop threads it cannot wait for that thread, so it detaches it.
    package func shutdownGracefully() {
        let first = isShutDown.withLock { done -> Bool in
            defer { done = true }
            return !done
        }
        guard first else { return }
        Self.stop(loops)
    }

    private static func stop(_ loops: [EventLoop]) {
        // Ask all first, then join: the loops wind down in parallel.
        for loop in loops { loop.initiateShutdown() }
        for loop in loops { loop.join() }
    }

    deinit {
        // Never hangs on itself: join() detaches when run on the loop's own thread.
        shutdownGracefully()
    }
}
