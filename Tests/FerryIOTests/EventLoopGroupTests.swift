import Dispatch
import Synchronization
import Testing

@testable import FerryIO

@Suite("EventLoopGroup")
struct EventLoopGroupTests {
    @Test("next() hands out the loops round-robin")
    func roundRobin() async throws {
        let group = try EventLoopGroup(loopCount: 3)
        defer { group.shutdownGracefully() }
        let picked = (0..<6).map { _ in group.next() }
        #expect(picked.map(\.name) == ["ferry-io-0", "ferry-io-1", "ferry-io-2", "ferry-io-0", "ferry-io-1", "ferry-io-2"])
        #expect(group.loops.count == 3)
    }

    @Test("no loop thread starts with the group; each starts with its first task")
    func loopsStartOnDemand() async throws {
        let group = try EventLoopGroup(loopCount: 3)
        defer { group.shutdownGracefully() }
        #expect(group.loops.map(\.hasStartedThread) == [false, false, false])
        let value = try await group.loops[2].sync { group.loops[2].inEventLoop }
        #expect(value)
        #expect(group.loops.map(\.hasStartedThread) == [false, false, true])
    }

    @Test("startIfNeeded starts a loop's thread once; the loop then runs tasks as usual")
    func startIfNeeded() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdownGracefully() }
        try group.loops[1].startIfNeeded()
        try group.loops[1].startIfNeeded()
        #expect(group.loops.map(\.hasStartedThread) == [false, true])
        let ran = try await group.loops[1].sync { group.loops[1].inEventLoop }
        #expect(ran)
    }

    @Test("executeIfStarted runs the task on a started loop and retires one that never started")
    func executeIfStarted() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdownGracefully() }
        let ran = Atomic<Int>(0)
        _ = try await group.loops[0].sync { 0 }
        #expect(group.loops[0].executeIfStarted { ran.add(1, ordering: .relaxed) })
        #expect(!group.loops[1].executeIfStarted { ran.add(10, ordering: .relaxed) })
        // Retired for good: a later task neither runs nor starts the thread.
        #expect(!group.loops[1].execute { ran.add(100, ordering: .relaxed) })
        #expect(!group.loops[1].hasStartedThread)
        _ = try await group.loops[0].sync { 0 }
        #expect(ran.load(ordering: .relaxed) == 1)
    }

    @Test("executeIfRunning runs the task on a running loop and leaves one that never started startable")
    func executeIfRunning() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        defer { group.shutdownGracefully() }
        let ran = Atomic<Int>(0)
        _ = try await group.loops[0].sync { 0 }
        #expect(group.loops[0].executeIfRunning { ran.add(1, ordering: .relaxed) })
        #expect(!group.loops[1].executeIfRunning { ran.add(10, ordering: .relaxed) })
        #expect(!group.loops[1].hasStartedThread)
        // Unlike executeIfStarted, the loop is not retired: its first real task starts it.
        _ = try await group.loops[1].sync { ran.add(100, ordering: .relaxed).newValue }
        _ = try await group.loops[0].sync { 0 }
        #expect(ran.load(ordering: .relaxed) == 101)
    }

    @Test("the default loop count is between 1 and 4")
    func defaultCount() async throws {
        let group = try EventLoopGroup()
        defer { group.shutdownGracefully() }
        #expect((1...4).contains(group.loops.count))
    }

    @Test("shutdown runs pending tasks, joins the threads, and is safe to call twice")
    func shutdownRunsPendingTasks() async throws {
        let group = try EventLoopGroup(loopCount: 2)
        let ran = Atomic<Int>(0)
        for loop in group.loops {
            for _ in 0..<100 {
                loop.execute { ran.add(1, ordering: .relaxed) }
            }
        }
        group.shutdownGracefully()
        // Joined: every task submitted before shutdown has run, none is still running.
        #expect(ran.load(ordering: .relaxed) == 200)
        group.shutdownGracefully()
        // Tasks after shutdown are dropped, not run and not crashing.
        group.loops[0].execute { ran.add(1, ordering: .relaxed) }
        #expect(ran.load(ordering: .relaxed) == 200)
    }

    @Test("shutdown drops pending timers without firing them")
    func shutdownDropsTimers() async throws {
        let group = try EventLoopGroup(loopCount: 1)
        let fired = Atomic<Bool>(false)
        let loop = group.loops[0]
        _ = try await loop.sync {
            loop.scheduleTimer(at: .now() + .seconds(3_600)) { fired.store(true, ordering: .relaxed) }
        }
        group.shutdownGracefully()
        let didFire = fired.load(ordering: .relaxed)
        #expect(!didFire)
    }

    @Test("shutdown releases handlers and timers still registered, breaking owner cycles")
    func shutdownReleasesHandlers() async throws {
        let weakHandler = WeakBox()
        weak var weakLoop: EventLoop?
        let (a, _b) = try makeSocketPair()
        do {
            let group = try EventLoopGroup(loopCount: 1)
            let loop = group.loops[0]
            weakLoop = loop
            try await loop.sync {
                // A cycle like a pending connection's: handler → loop → registration → handler.
                let handler = ClosureHandler()
                weakHandler.value = handler
                handler.onReadable = { _ = loop }
                try loop.register(fd: a.fd, interest: .read, handler: handler)
                loop.scheduleTimer(at: .distantFuture) { _ = (handler, loop) }
            }
            group.shutdownGracefully()
        }
        #expect(weakHandler.value == nil)
        #expect(weakLoop == nil)
        withExtendedLifetime(_b) {}
    }

    @Test("deinit stops the loops without hanging")
    func deinitDoesNotHang() async throws {
        weak var weakLoop: EventLoop?
        do {
            let group = try EventLoopGroup(loopCount: 2)
            weakLoop = group.loops[0]
            _ = try await group.loops[0].sync { 1 }
        }
        // The group's deinit joined the threads, which released their loops.
        #expect(weakLoop == nil)
    }

    @Test("shutdown called from one of the group's own loop threads does not deadlock")
    func shutdownFromLoopThread() async throws {
        let done = Latch<Void>()
        let group = try EventLoopGroup(loopCount: 2)
        group.loops[0].execute {
            group.shutdownGracefully()
            done.fulfill(())
        }
        #expect(await done.wait() != nil)
        group.shutdownGracefully()
    }
}

/// A weak reference the test can read after a loop task set it (reads happen after a join).
final class WeakBox: @unchecked Sendable {
    weak var value: AnyObject?
}
