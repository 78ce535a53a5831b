#if canImport(Glibc)
import Glibc
#endif
import FerryBase
import Dispatch
import Synchronization

/// Resolves host names with `getaddrinfo` on a small pool of worker threads, started as lookups
/// need them.
///
/// `getaddrinfo` blocks (it may wait seconds for a DNS server), so it never runs on a loop
/// thread; results come back on the caller's ``EventLoop``. Numeric hosts skip the pool, so a
/// process that only ever connects to addresses starts no resolver thread at all.
/// The lookup function is injectable so tests can produce failures without a DNS server.
package final class Resolver: Sendable {
    /// A blocking lookup: host and port in, addresses (in the system's preference order) or a
    /// ``DNSError`` out. Runs on a resolver worker thread.
    package typealias Lookup = @Sendable (_ host: String, _ port: UInt16) -> Result<[SocketAddress], DNSError>

    private let pool: WorkerPool
    private let lookup: Lookup

    /// A resolver that starts up to `threadCount` worker threads, the first with the first
    /// lookup, another only when a lookup arrives while every started one is busy.
    /// - Parameters:
    ///   - threadCount: Concurrent lookups; 2 keeps one slow DNS answer from blocking all.
    ///   - lookup: The blocking lookup; ``systemLookup(host:port:)`` unless a test injects one.
    package init(threadCount: Int = 2, lookup: @escaping Lookup = Resolver.systemLookup) {
        precondition(threadCount >= 1, "a Resolver needs at least one thread")
        self.pool = WorkerPool(maximumThreads: threadCount)
        self.lookup = lookup
    }

    deinit {
        pool.shutdown()
    }

    /// Stops the worker threads and waits for them: only for the lookups already running.
    /// Queued lookups are not made; they, and those requested afterwards, answer
    /// `EAI_SYSTEM`/`ECANCELED` on their loop if it still runs (so shutting down never waits
    /// for a slow DNS server once per queued name). Safe to call more than once.
    package func shutdown() {
        pool.shutdown()
    }

    /// How many worker threads have been started, and how many of them wait for a lookup
    /// (for tests).
    var threads: (started: Int, idle: Int) { pool.threads }

    /// Whether ``shutdown()`` was called (for tests).
    var isShutDown: Bool { pool.isShutDown }

    /// Lookups queued that no worker has taken yet, cancelled ones included (for tests).
    package var queuedLookupsForTests: Int { pool.queuedJobs }

    /// Looks up `host` and calls `completion` on `loop`'s thread.
    ///
    /// Numeric IPv4 and IPv6 hosts (`127.0.0.1`, `::1`, `[::1]`) are answered without a lookup.
    /// The completion always runs later (never inside this call), so callers need not guard
    /// against re-entrance. Call on `loop`'s thread: the completion is loop-confined.
    /// - Returns: The queued lookup, to cancel when its answer is no longer wanted; nil when
    ///   none was queued (a numeric host, or a resolver that refused it: shut down, or no
    ///   worker thread could start).
    @discardableResult
    package func resolve(
        host: String,
        port: UInt16,
        on loop: EventLoop,
        _ completion: @escaping (Result<[SocketAddress], DNSError>) -> Void
    ) -> ResolverLookup? {
        loop.preconditionInEventLoop()
        // Sound: the closure is created on, and only ever called on, `loop`'s thread; the
        // worker only carries it back through `execute`.
        let completion = LoopBound(completion)
        if let numeric = SocketAddress(ipAddress: host, port: port) {
            loop.execute { completion.value(.success([numeric])) }
            return nil
        }
        let lookup = self.lookup
        let request = ResolverLookup()
        let submission = pool.submit { shutDown in
            let cancelled = shutDown || request.isCancelled
            let result = cancelled ? .failure(DNSError(host: host, code: EAI_SYSTEM, systemErrno: ECANCELED)) : lookup(host, port)
            loop.execute { completion.value(result) }
        }
        let refusal: Int32
        switch submission {
        case .accepted: return request
        case .shutDown: refusal = ECANCELED
        case .noWorker(let error): refusal = error.errno
        }
        loop.execute {
            completion.value(.failure(DNSError(host: host, code: EAI_SYSTEM, systemErrno: refusal)))
        }
        return nil
    }

    /// The real lookup: `getaddrinfo` for TCP, numeric port, `AI_ADDRCONFIG` for real names.
    ///
    /// `AI_ADDRCONFIG` drops IPv6 answers on hosts without IPv6 (and IPv4 without IPv4), which
    /// saves Happy Eyeballs a doomed attempt. It is left out for `localhost` (RFC 6761 §6.3):
    /// glibc ignores loopback when deciding what is configured, so a host with only loopback
    /// would otherwise get no answer for it at all.
    package static let systemLookup: Lookup = { host, port in
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        hints.ai_protocol = Int32(IPPROTO_TCP)
        let lowercased = host.lowercased()
        let isLocalhost = lowercased == "localhost" || lowercased.hasSuffix(".localhost")
        hints.ai_flags = AI_NUMERICSERV | (isLocalhost ? 0 : AI_ADDRCONFIG)
        var list: UnsafeMutablePointer<addrinfo>?
        let code = getaddrinfo(host, String(port), &hints, &list)
        guard code == 0 else {
            return .failure(DNSError(host: host, code: code, systemErrno: code == EAI_SYSTEM ? errno : 0))
        }
        defer { freeaddrinfo(list) }
        var addresses: [SocketAddress] = []
        var cursor = list
        while let entry = cursor?.pointee {
            if let pointer = entry.ai_addr, let address = SocketAddress(pointer, length: entry.ai_addrlen),
               !addresses.contains(address) {
                addresses.append(address)
            }
            cursor = entry.ai_next
        }
        guard !addresses.isEmpty else { return .failure(DNSError(host: host, code: EAI_NONAME)) }
        return .success(addresses)
    }
}

/// A lookup queued on a ``Resolver``. Cancelling one that waits for a worker skips it: it
/// answers `EAI_SYSTEM`/`ECANCELED` without asking DNS, so names nobody wants any more (a
/// connect cancelled or timed out) do not hold up the lookups queued behind them. A lookup
/// already running finishes; its answer still comes.
package final class ResolverLookup: Sendable {
    private let cancelled = Atomic<Bool>(false)

    init() {}

    /// Skips the lookup if no worker has taken it yet. Any thread.
    package func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Whether ``cancel()`` was called.
    var isCancelled: Bool { cancelled.load(ordering: .relaxed) }
}

/// Threads taking jobs from a FIFO queue, started as the jobs need them, up to a maximum.
private final class WorkerPool: Sendable {
    /// A job; `shutDown` when the pool shut down while it was queued: it should only say so.
    typealias Job = @Sendable (_ shutDown: Bool) -> Void

    /// What became of a submitted job.
    enum Submission {
        /// Queued; a worker will run it.
        case accepted
        /// Refused: the pool was shut down.
        case shutDown
        /// Refused: no worker was running and none could be started.
        case noWorker(SystemError)
    }

    private struct Queue {
        var jobs: [Job] = []
        var head = 0
        var isShutDown = false
        var threads: [PosixThread] = []
        /// Workers waiting for a job: a job queued while one waits needs no new thread.
        var idle = 0
    }

    private let queue = Locked(Queue())
    private let available = DispatchSemaphore(value: 0)
    private let maximumThreads: Int

    init(maximumThreads: Int) {
        self.maximumThreads = maximumThreads
    }

    var threads: (started: Int, idle: Int) { queue.withLock { ($0.threads.count, $0.idle) } }

    var isShutDown: Bool { queue.withLock(\.isShutDown) }

    var queuedJobs: Int { queue.withLock { $0.jobs.count - $0.head } }

    /// Queues `job`, starting a worker for it when every started one is busy and the maximum
    /// allows another.
    func submit(_ job: @escaping Job) -> Submission {
        let submission = queue.withLock { queue -> Submission in
            guard !queue.isShutDown else { return .shutDown }
            queue.jobs.append(job)
            guard queue.jobs.count - queue.head > queue.idle, queue.threads.count < maximumThreads else {
                return .accepted
            }
            // Started under the lock, so the count stays exact and shutdown() sees the thread.
            // The worker takes the lock first thing, which only waits for this to return.
            do throws(SystemError) {
                let index = queue.threads.count
                queue.threads.append(try PosixThread.start(name: "ferry-dns-\(index)") { [self] in work() })
                return .accepted
            } catch {
                // Without any worker the job would wait for ever; with one, it waits its turn.
                guard queue.threads.isEmpty else { return .accepted }
                queue.jobs.removeLast()
                return .noWorker(error)
            }
        }
        if case .accepted = submission { available.signal() }
        return submission
    }

    func shutdown() {
        let threads = queue.withLock { queue -> [PosixThread] in
            queue.isShutDown = true
            defer { queue.threads = [] }
            return queue.threads
        }
        for _ in threads { available.signal() }
        for thread in threads {
            // A worker can drop the last reference to the Resolver (its job's closure); it
            // cannot join itself.
            if thread.isCurrent { thread.detach() } else { thread.join() }
        }
    }

    private func work() {
        while true {
            queue.withLock { $0.idle += 1 }
            available.wait()
            let taken = queue.withLock { queue -> (job: Job, cancelled: Bool)? in
                queue.idle -= 1
                guard queue.head < queue.jobs.count else { return nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                // Drop the consumed prefix once it dominates, so the array does not grow forever.
                if queue.head > 32 && queue.head * 2 > queue.jobs.count {
                    queue.jobs.removeFirst(queue.head)
                    queue.head = 0
                }
                return (job, queue.isShutDown)
            }
            // No job after a signal only happens at shutdown (one signal per thread).
            guard let taken else { return }
            taken.job(taken.cancelled)
        }
    }
}
