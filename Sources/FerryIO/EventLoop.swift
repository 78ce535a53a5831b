#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import CFerryShims
import Logging
import Synchronization

/// One thread running `epoll_wait` (level-triggered) over its registered descriptors, an
/// `eventfd` for cross-thread wake-ups, and a binary-heap timer queue.
///
/// Everything that touches a connection runs here, so connection state needs no locks.
/// The thread blocks in `epoll_wait` with a timeout equal to the next timer: no busy polling
/// and no sleeping to wait.
///
/// Thread safety (why `@unchecked Sendable` is sound): the registrations, the timer queue, the
/// event buffer and the spare buffers are touched only on the loop's own thread (every such
/// API calls ``preconditionInEventLoop()``, or does nothing off it: `giveBack`). The only
/// state shared with other threads is the task inbox, which a `Locked` guards, the thread
/// identity (`Atomic`) and the two descriptors, which are immutable after `init` and closed
/// only in `deinit`.
package final class EventLoop: @unchecked Sendable, CustomStringConvertible {
    private enum Lifecycle {
        case notStarted, running, stopping, stopped
    }

    private struct Inbox {
        var tasks: [@Sendable () -> Void] = []
        /// Set while an `eventfd` write is outstanding, so concurrent `execute` calls wake
        /// the loop once instead of once each.
        var wakeupPending = false
        var lifecycle = Lifecycle.notStarted
    }

    private struct Registration {
        let handler: any IOHandler
        var interest: IOEvents
        /// Distinguishes this registration from an earlier one on the same fd number, so an
        /// event collected for a closed fd never reaches the handler of its reused number.
        let generation: UInt32
    }

    private static let logger = Logger(label: "ferry.io.eventloop")
    private static let maxEventsPerWait = 256

    /// The loop's name, also its thread's name (for example `ferry-io-0`).
    package let name: String

    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Locked(Inbox())
    private let threadHandle = Atomic<UInt>(0)
    private let thread = Locked<PosixThread?>(nil)
    /// Set once the thread was started, so ``startIfNeeded()`` costs an atomic load after that.
    private let threadStarted = Atomic<Bool>(false)

    // Loop-thread state.
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var timers = TimerQueue()
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var registrations: [Int32: Registration] = [:]
    private var lastGeneration: UInt32 = 0
    /// Descriptors deregistered this turn whose epoll entry the kernel still holds. A handler
    /// that passes its descriptor on (connector, then TLS handshake, then HTTP connection)
    /// registers it again in the same turn: one `EPOLL_CTL_MOD` then, not a DEL and an ADD.
    /// The rest leave epoll before the loop waits again (``forgetUnwatched()``).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    private var unwatched: [Int32] = []
    /// The task array of the round before, emptied, for the inbox to fill next: the two take
    /// turns, so queueing a task does not allocate an array every round.
    private var spareTaskArray: [@Sendable () -> Void] = []
    private let events: UnsafeMutableBufferPointer<epoll_event>
    /// Buffers ended connections gave back, for the next ones (`EventLoop+Buffers.swift`).
    #if !DEBUG
    @exclusivity(unchecked)
    #endif
    var spares = SpareBuffers()

    /// Creates a loop. Its thread starts with its first task (``execute(_:)``): until then
    /// the loop costs two descriptors and no thread.
    /// - Parameter name: The loop's name, also its thread's.
    /// - Throws: ``SystemError`` from `epoll_create1`, `eventfd` or `epoll_ctl`.
    init(name: String) throws(SystemError) {
        self.name = name
        epollFD = try blockingSystemCall("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
        do {
            wakeFD = try blockingSystemCall("eventfd") { eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) }
        } catch {
            _ = Glibc.close(epollFD)
            throw error
        }
        events = .allocate(capacity: Self.maxEventsPerWait)
        // Generation 0 marks the wake-up descriptor; registrations start at 1.
        var event = epoll_event()
        event.events = cferry_epollin()
        event.data.u64 = Self.eventData(fd: wakeFD, generation: 0)
        // Every stored property is set by now, so a throw here runs deinit, which closes the
        // descriptors: closing them here as well would close (and free) them twice.
        _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) }
    }

    deinit {
        closeDescriptors()
    }

    private func closeDescriptors() {
        // close is not retried on EINTR: on Linux the descriptor is gone either way.
        _ = Glibc.close(wakeFD)
        _ = Glibc.close(epollFD)
        events.deallocate()
    }

    /// The loop's name.
    package var description: String { "EventLoop(\(name))" }

    // MARK: - Threads

    /// True when called on this loop's thread.
    package var inEventLoop: Bool {
        let handle = threadHandle.load(ordering: .acquiring)
        return handle != 0 && pthread_equal(pthread_t(handle), pthread_self()) != 0
    }

    /// Stops the process when called off this loop's thread: loop-confined state was about to
    /// be touched from the wrong thread, which would be a data race.
    package func preconditionInEventLoop(file: StaticString = #fileID, line: UInt = #line) {
        precondition(inEventLoop, "\(self) state touched off its thread", file: file, line: line)
    }

    /// Runs `task` on the loop's thread, after what is already queued.
    ///
    /// Callable from any thread. Writes the `eventfd` only when the loop might be asleep and no
    /// wake-up is already on its way; from the loop's own thread it never does. Tasks submitted
    /// after the loop stopped are dropped (and logged): no thread is left to run them. The
    /// loop's first task starts its thread.
    /// - Returns: `false` when the loop has stopped, or its thread could not be started (see
    ///   ``startIfNeeded()`` for the cause), and the task was dropped.
    @discardableResult
    package func execute(_ task: @escaping @Sendable () -> Void) -> Bool {
        let onLoop = inEventLoop
        let (accepted, wake) = inbox.withLock { inbox -> (Bool, Bool) in
            switch inbox.lifecycle {
            case .stopped:
                return (false, false)
            case .notStarted:
                do throws(SystemError) {
                    try start(&inbox)
                } catch {
                    Self.logger.error("event loop thread not started", metadata: ["loop": "\(name)", "error": "\(error)"])
                    return (false, false)
                }
                inbox.tasks.append(task)
                return (true, false)
            case .running, .stopping:
                inbox.tasks.append(task)
                if onLoop || inbox.wakeupPending { return (true, false) }
                inbox.wakeupPending = true
                return (true, true)
            }
        }
        if !accepted {
            Self.logger.warning("task dropped: event loop stopped", metadata: ["loop": "\(name)"])
        }
        if wake { wakeUp() }
        return accepted
    }

    private func wakeUp() {
        var one: UInt64 = 1
        do {
            // EAGAIN only if the counter is near overflow, which means a wake-up is pending.
            _ = try systemCall("write") { Glibc.write(wakeFD, &one, MemoryLayout<UInt64>.size) }
        } catch {
            Self.logger.error("event loop wake-up failed", metadata: ["loop": "\(name)", "error": "\(error)"])
        }
    }

    /// Runs `task` if the loop's thread runs; a loop that never started (or stopped) is left as
    /// it is, and `task` does not run: for housekeeping that only concerns work already done
    /// (closing parked connections), which must not start a thread.
    /// - Returns: Whether `task` will run.
    @discardableResult
    package func executeIfRunning(_ task: @escaping @Sendable () -> Void) -> Bool {
        let running = inbox.withLock { $0.lifecycle == .running }
        return running ? execute(task) : false
    }

    /// Runs `task` if the loop has started. A loop that never started has nothing to clean up:
    /// it is stopped instead, at once, and refuses every task from then on, so no work can
    /// start on it after the caller's last word.
    /// - Returns: Whether `task` will run.
    @discardableResult
    package func executeIfStarted(_ task: @escaping @Sendable () -> Void) -> Bool {
        let neverStarted = inbox.withLock { inbox -> Bool in
            guard inbox.lifecycle == .notStarted else { return false }
            inbox.lifecycle = .stopped
            return true
        }
        return neverStarted ? false : execute(task)
    }

    /// Starts the loop's thread now if it has not started (its first task would start it too),
    /// for a caller that wants the cause when it cannot.
    /// - Throws: ``SystemError`` from `pthread_create`. The loop stays unstarted, so a later
    ///   task or call tries again.
    package func startIfNeeded() throws(SystemError) {
        guard !threadStarted.load(ordering: .acquiring) else { return }
        try inbox.withLock { (inbox: inout Inbox) throws(SystemError) in
            if inbox.lifecycle == .notStarted { try start(&inbox) }
        }
    }

    /// Whether the loop's thread was started (for tests).
    var hasStartedThread: Bool { threadStarted.load(ordering: .acquiring) }

    /// Starts the thread; called with the inbox locked, so no task can be queued for a thread
    /// that then fails to start. The new thread takes the lock first thing, once the caller
    /// lets go of it.
    private func start(_ inbox: inout Inbox) throws(SystemError) {
        let started = try PosixThread.start(name: name) { [self] in run() }
        // The thread publishes its own handle in run(): only it can be "in" the loop, and it
        // clears the handle on exit, which a store from here could race with.
        thread.withLock { $0 = started }
        threadStarted.store(true, ordering: .releasing)
        inbox.lifecycle = .running
    }

    /// Asks the loop to stop once its pending tasks have run. Returns at once.
    func initiateShutdown() {
        let wake = inbox.withLock { inbox -> Bool in
            switch inbox.lifecycle {
            case .notStarted:
                inbox.lifecycle = .stopped
                return false
            case .running:
                inbox.lifecycle = .stopping
                return true
            case .stopping, .stopped:
                return false
            }
        }
        if wake && !inEventLoop { wakeUp() }
    }

    /// Waits for the loop's thread to end. Safe to call more than once; called on the loop's
    /// own thread it detaches instead, because a thread cannot join itself.
    func join() {
        guard let joining = thread.withLock({ thread -> PosixThread? in
            defer { thread = nil }
            return thread
        }) else { return }
        if joining.isCurrent { joining.detach() } else { joining.join() }
    }

    // MARK: - Timers

    /// Runs `body` on the loop's thread at `deadline` (at once on the next turn if it passed).
    ///
    /// Timers with the same deadline fire in scheduling order. Loop thread only.
    /// - Returns: An identifier for ``cancelTimer(_:)``.
    @discardableResult
    package func scheduleTimer(at deadline: Deadline, _ body: @escaping () -> Void) -> TimerID {
        preconditionInEventLoop()
        return timers.schedule(at: deadline, body)
    }

    /// Cancels a timer: it will not fire, and its closure is released now. Unknown or already
    /// fired identifiers are ignored. Loop thread only.
    package func cancelTimer(_ id: TimerID) {
        preconditionInEventLoop()
        timers.cancel(id)
    }

    // MARK: - Descriptors

    /// Watches `fd` for `interest` and calls `handler` on this thread when it is ready.
    ///
    /// The loop does not own `fd`: deregister it before closing it. (If an fd was closed
    /// without that and its number comes back, registering it replaces the stale entry.)
    /// - Throws: ``SystemError`` from `epoll_ctl` (`EEXIST` when `fd` is registered already).
    package func register(fd: Int32, interest: IOEvents, handler: any IOHandler) throws(SystemError) {
        preconditionInEventLoop()
        lastGeneration = lastGeneration == .max ? 1 : lastGeneration + 1
        var event = epoll_event()
        event.events = interest.epollBits
        event.data.u64 = Self.eventData(fd: fd, generation: lastGeneration)
        if let index = unwatched.firstIndex(of: fd) {
            // Deregistered this turn: the kernel still has it, with the old handler's data.
            unwatched.remove(at: index)
            do {
                _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
            } catch where error.errno == ENOENT {
                // Closed and its number taken by a new descriptor since: a new entry.
                _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
            }
        } else {
            _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) }
        }
        registrations[fd] = Registration(handler: handler, interest: interest, generation: lastGeneration)
    }

    /// Changes what a registered `fd` is watched for.
    /// - Throws: ``SystemError`` (`ENOENT` when `fd` is not registered).
    package func modify(fd: Int32, interest: IOEvents) throws(SystemError) {
        preconditionInEventLoop()
        guard var registration = registrations[fd] else {
            throw SystemError(errno: ENOENT, syscall: "epoll_ctl")
        }
        var event = epoll_event()
        event.events = interest.epollBits
        event.data.u64 = Self.eventData(fd: fd, generation: registration.generation)
        _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event) }
        registration.interest = interest
        registrations[fd] = registration
    }

    /// Stops watching `fd` and releases its handler: no event reaches it from now on.
    /// Unregistered descriptors are ignored, so a handler may deregister itself and its owner
    /// may do it again.
    ///
    /// - Parameter closing: The caller closes `fd` right after, before the loop waits again
    ///   (the kernel drops a closed descriptor's entry itself, so no system call is made).
    ///   Otherwise the entry leaves epoll before the loop waits again, unless `fd` is
    ///   registered anew meanwhile.
    package func deregister(fd: Int32, closing: Bool = false) {
        preconditionInEventLoop()
        guard registrations.removeValue(forKey: fd) != nil else { return }
        if !closing { unwatched.append(fd) }
    }

    /// Removes from epoll what was deregistered this turn and not registered again.
    private func forgetUnwatched() {
        for fd in unwatched {
            do {
                _ = try blockingSystemCall("epoll_ctl") { epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil) }
            } catch where error.errno == EBADF || error.errno == ENOENT {
                // Closed since: the kernel already forgot it.
            } catch {
                Self.logger.error("epoll_ctl(DEL) failed", metadata: ["fd": "\(fd)", "error": "\(error)"])
            }
        }
        unwatched.removeAll(keepingCapacity: true)
    }

    /// The number of registered descriptors (for tests and diagnostics). Loop thread only.
    package var registeredCount: Int {
        preconditionInEventLoop()
        return registrations.count
    }

    private static func eventData(fd: Int32, generation: UInt32) -> UInt64 {
        UInt64(generation) << 32 | UInt64(UInt32(bitPattern: fd))
    }

    // MARK: - The loop

    private func run() {
        threadHandle.store(UInt(pthread_self()), ordering: .releasing)
        while true {
            if !unwatched.isEmpty { forgetUnwatched() }
            let timeout = waitTimeout()
            let count: Int32
            do {
                count = try blockingSystemCall("epoll_wait") {
                    epoll_wait(epollFD, events.baseAddress, Int32(events.count), timeout)
                }
            } catch {
                // EBADF/EFAULT/EINVAL: the loop's own descriptors are broken; nothing to recover.
                preconditionFailure("\(self): \(error)")
            }
            for index in 0..<Int(count) {
                dispatch(events[index])
            }
            fireExpiredTimers()
            // Tasks that tasks queued (an answer resuming a caller on this loop's executor, who
            // then starts the next request) run in this turn too, a few rounds at most before
            // the descriptors are looked at again: no `epoll_wait` call in between.
            var outcome = runTasks()
            for _ in 1..<Self.taskRoundsPerTurn where outcome == .moreQueued {
                outcome = runTasks()
            }
            if outcome == .exit { break }
        }
        // Handlers and timer closures often hold their owners, which hold this loop: drop them
        // now so pending connections at shutdown do not keep each other (and the loop) alive.
        registrations.removeAll()
        // Swapped out first: a closure released here may end a connection, whose buffers come
        // back through `giveBack`, which may schedule a timer (touching `timers` again).
        var stopped = TimerQueue()
        swap(&stopped, &timers)
        stopped = TimerQueue()
        // No timer will trim the spares now: release them with the loop's thread.
        spares = SpareBuffers()
        // pthread_t values are reused by later threads; a stale one would make some unrelated
        // thread pass `inEventLoop`.
        threadHandle.store(0, ordering: .releasing)
    }

    /// Milliseconds until the next timer, 0 when tasks wait, -1 (forever) when neither.
    private func waitTimeout() -> Int32 {
        let busy = inbox.withLock { !$0.tasks.isEmpty || $0.lifecycle == .stopping }
        if busy { return 0 }
        guard let next = timers.nextDeadline() else { return -1 }
        let nanoseconds = (next - .now()).saturatingNanoseconds
        if nanoseconds <= 0 { return 0 }
        // Round up: waking a little early would just spin once more with a zero timeout.
        let milliseconds = (nanoseconds + 999_999) / 1_000_000
        return Int32(clamping: milliseconds)
    }

    private func dispatch(_ event: epoll_event) {
        let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: event.data.u64))
        let generation = UInt32(truncatingIfNeeded: event.data.u64 >> 32)
        let bits = event.events
        if generation == 0 {
            drainWakeFD()
            return
        }
        // Look the handler up again before every call: the previous call may have modified,
        // deregistered or replaced this fd (or another one collected in this batch).
        if bits & cferry_epollin() != 0, let handler = handler(fd, generation, wanting: .read) {
            handler.readable()
        }
        if bits & cferry_epollout() != 0, let handler = handler(fd, generation, wanting: .write) {
            handler.writable()
        }
        let hangupBits = cferry_epollhup() | cferry_epollrdhup() | cferry_epollerr()
        if bits & hangupBits != 0, let handler = handler(fd, generation, wanting: []) {
            handler.hangup()
        }
    }

    private func handler(_ fd: Int32, _ generation: UInt32, wanting: IOEvents) -> (any IOHandler)? {
        guard let registration = registrations[fd], registration.generation == generation,
              registration.interest.isSuperset(of: wanting) else { return nil }
        return registration.handler
    }

    private func drainWakeFD() {
        var counter: UInt64 = 0
        // Non-blocking: EAGAIN (already drained) is fine.
        _ = try? systemCall("read") { Glibc.read(wakeFD, &counter, MemoryLayout<UInt64>.size) }
    }

    private func fireExpiredTimers() {
        let now = Deadline.now()
        let limit = timers.nextSequence
        while let body = timers.popExpired(now: now, scheduledBefore: limit) {
            body()
        }
    }

    /// How many times one turn runs the task queue at most.
    private static let taskRoundsPerTurn = 4

    /// What is left after running the queued tasks.
    private enum TaskRoundOutcome {
        /// No task waits.
        case idle
        /// The tasks queued more.
        case moreQueued
        /// The loop stops.
        case exit
    }

    /// Runs the queued tasks.
    private func runTasks() -> TaskRoundOutcome {
        var tasks: [@Sendable () -> Void] = []
        swap(&tasks, &spareTaskArray)
        inbox.withLock { inbox in
            // Clearing the flag with the swap means a task queued after this point wakes us.
            inbox.wakeupPending = false
            swap(&tasks, &inbox.tasks)
        }
        for task in tasks {
            task()
        }
        // Kept for a later round unless a burst made it large.
        if tasks.capacity <= 256 {
            tasks.removeAll(keepingCapacity: true)
            spareTaskArray = tasks
        }
        return inbox.withLock { inbox -> TaskRoundOutcome in
            switch inbox.lifecycle {
            case .stopping where inbox.tasks.isEmpty:
                inbox.lifecycle = .stopped
                return .exit
            case .notStarted, .running, .stopping, .stopped:
                return inbox.tasks.isEmpty ? .idle : .moreQueued
            }
        }
    }
}
