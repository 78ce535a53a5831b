import Dispatch
import Synchronization
import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("EventLoop")
struct EventLoopTests {
    @Test("execute from other threads wakes the sleeping loop and runs every task")
    func executeFromOtherThreads() async throws {
        try await withLoop { loop in
            let count = Atomic<Int>(0)
            let done = Latch<Void>()
            let threads = 4, perThread = 250
            DispatchQueue.concurrentPerform(iterations: threads) { _ in
                for _ in 0..<perThread {
                    loop.execute {
                        #expect(loop.inEventLoop)
                        if count.wrappingAdd(1, ordering: .relaxed).newValue == threads * perThread {
                            done.fulfill(())
                        }
                    }
                }
            }
            #expect(await done.wait() != nil)
            #expect(count.load(ordering: .relaxed) == threads * perThread)
            #expect(!loop.inEventLoop)
        }
    }

    @Test("tasks from one thread run in submission order")
    func taskOrder() async throws {
        try await withLoop { loop in
            let seen = Recorder<Int>()
            for index in 0..<100 { loop.execute { seen.append(index) } }
            _ = try await loop.sync { 0 }
            #expect(seen.values == Array(0..<100))
        }
    }

    @Test("timers fire in deadline order; equal deadlines in scheduling order")
    func timerOrder() async throws {
        try await withLoop { loop in
            let fired = Recorder<String>()
            let done = Latch<Void>()
            loop.execute {
                let base = Deadline.now() + .milliseconds(20)
                loop.scheduleTimer(at: base + .milliseconds(10)) { fired.append("late") }
                loop.scheduleTimer(at: base) { fired.append("a") }
                loop.scheduleTimer(at: base) { fired.append("b") }
                loop.scheduleTimer(at: base - .milliseconds(10)) { fired.append("early") }
                loop.scheduleTimer(at: base) { fired.append("c") }
                loop.scheduleTimer(at: base + .milliseconds(10)) { done.fulfill(()) }
            }
            #expect(await done.wait() != nil)
            #expect(fired.values == ["early", "a", "b", "c", "late"])
        }
    }

    @Test("a timer does not fire before its deadline")
    func timerNotEarly() async throws {
        try await withLoop { loop in
            let latch = Latch<Duration>()
            loop.execute {
                let start = Deadline.now()
                loop.scheduleTimer(at: start + .milliseconds(30)) { latch.fulfill(Deadline.now() - start) }
            }
            let elapsed = try #require(await latch.wait())
            #expect(elapsed >= .milliseconds(30))
        }
    }

    @Test("cancelled timers never fire, including one cancelled by an earlier timer")
    func timerCancellation() async throws {
        try await withLoop { loop in
            let fired = Recorder<Int>()
            let done = Latch<Void>()
            loop.execute {
                let soon = Deadline.now() + .milliseconds(5)
                let first = loop.scheduleTimer(at: soon) { fired.append(1) }
                let box = TimerBox()
                loop.scheduleTimer(at: soon) { loop.cancelTimer(box.id!) }
                box.id = loop.scheduleTimer(at: soon) { fired.append(3) }
                loop.scheduleTimer(at: soon + .milliseconds(5)) { fired.append(4) }
                loop.cancelTimer(first)
                loop.cancelTimer(first)  // twice is harmless
                loop.scheduleTimer(at: soon + .milliseconds(10)) { done.fulfill(()) }
            }
            #expect(await done.wait() != nil)
            #expect(fired.values == [4])
        }
    }

    @Test("thousands of timers, half cancelled, fire in order")
    func manyTimers() async throws {
        try await withLoop { loop in
            let fired = Recorder<Int>()
            let done = Latch<Void>()
            let total = 5_000
            loop.execute {
                let base = Deadline.now()
                var ids: [TimerID] = []
                // Scheduled out of order; deadlines spread over 50 ms.
                for index in (0..<total).reversed() {
                    let deadline = base + .microseconds(10 * index)
                    ids.append(loop.scheduleTimer(at: deadline) { fired.append(index) })
                }
                for (offset, id) in ids.enumerated() where offset % 2 == 0 { loop.cancelTimer(id) }
                loop.scheduleTimer(at: base + .milliseconds(60)) { done.fulfill(()) }
            }
            #expect(await done.wait() != nil)
            // ids[offset] belongs to index total-1-offset; even offsets were cancelled.
            let expected = (0..<total).filter { (total - 1 - $0) % 2 == 1 }
            #expect(fired.values == expected)
        }
    }

    @Test("a timer scheduled from a task on an idle loop wakes it (no busy polling needed)")
    func timerFromTaskWakes() async throws {
        try await withLoop { loop in
            let latch = Latch<Void>()
            loop.execute {
                loop.scheduleTimer(at: .now() + .milliseconds(1)) { latch.fulfill(()) }
            }
            #expect(await latch.wait() != nil)
        }
    }
}

/// Holds a timer id for a closure scheduled before the id exists (loop thread only).
final class TimerBox {
    var id: TimerID?
}
