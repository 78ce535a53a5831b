#if canImport(Glibc)
import Glibc
#endif
import Dispatch
import Synchronization

/// Resolves host names with `getaddrinfo` on a small fixed pool of worker threads.
///
/// `getaddrinfo` blocks (it may wait seconds for a DNS server), so it never runs on a loop
/// thread; results come back on the caller's ``EventLoop``. Numeric hosts skip the pool.
/// The lookup function is injectable so tests can produce failures without a DNS server.
package final class Resolver: Sendable {
    /// A blocking lookup: host and port in, addresses (in the system's preference order) or a
    /// ``DNSError`` out. Runs on a resolver worker thread.
    package typealias Lookup = @Sendable (_ host: String, _ port: UInt16) -> Result<[SocketAddress], DNSError>

    private let pool: WorkerPool
    private let lookup: Lookup

    /// Starts `threadCount` worker threads.
    /// - Parameters:
    ///   - threadCount: Concurrent lookups; 2 keeps one slow DNS answer from blocking all.
    ///   - lookup: The blocking lookup; ``systemLookup(host:port:)`` unless a test injects one.
    /// - Throws: ``SystemError`` from `pthread_create`.
    package init(threadCount: Int = 2, lookup: @escaping Lookup = Resolver.systemLookup) throws(SystemError) {
        precondition(threadCount >= 1, "a Resolver needs at least one thread")
        self.pool = try WorkerPool(threadCount: threadCount)
        self.lookup = lookup
    }

    deinit {
        pool.shutdown()
    }

    /// Stops the worker threads after the queued lookups have run and waits for them.
    /// Safe to call more than once. Lookups requested afterwards fail with `EAI_SYSTEM`/`ECANCELED`.
    package func shutdown() {
        pool.shutdown()
    }

    /// Looks up `host` and calls `completion` on `loop`'s thread.
    ///
    /// Numeric IPv4 and IPv6 hosts (`127.0.0.1`, `::1`, `[::1]`) are answered without a lookup.
    /// The completion always runs later (never inside this call), so callers need not guard
    /// against re-entrance. Call on `loop`'s thread: the completion is loop-confined.
    package func resolve(
        host: String,
        port: UInt16,
        on loop: EventLoop,
        _ completion: @escaping (Result<[SocketAddress], DNSError>) -> Void
    ) {
        loop.preconditionInEventLoop()
        // Sound: the closure is created on, and only ever called on, `loop`'s thread; the
        // worker only carries it back through `execute`.
        let completion = LoopBound(completion)
        if let numeric = SocketAddress(ipAddress: host, port: port) {
            loop.execute { completion.value(.success([numeric])) }
            return
        }
        let lookup = self.lookup
        let accepted = pool.submit {
            let result = lookup(host, port)
            loop.execute { completion.value(result) }
        }
        if !accepted {
            loop.execute {
                completion.value(.failure(DNSError(host: host, code: EAI_SYSTEM, systemErrno: ECANCELED)))
            }
        }
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

/// A fixed set of threads taking jobs from a FIFO queue.
private final class WorkerPool: Sendable {
    private struct Queue {
        var jobs: [@Sendable () -> Void] = []
        var head = 0
        var isShutDown = false
        var threads: [PosixThread] = []
    }

    private let queue = Mutex(Queue())
    private let available = DispatchSemaphore(value: 0)

    init(threadCount: Int) throws(SystemError) {
        for index in 0..<threadCount {
            do {
                let thread = try PosixThread.start(name: "ferry-dns-\(index)") { [self] in work() }
                queue.withLock { $0.threads.append(thread) }
            } catch {
                shutdown()
                throw error
            }
        }
    }

    /// Queues `job`; false after shutdown.
    func submit(_ job: @escaping @Sendable () -> Void) -> Bool {
        let accepted = queue.withLock { queue -> Bool in
            guard !queue.isShutDown else { return false }
            queue.jobs.append(job)
            return true
        }
        if accepted { available.signal() }
        return accepted
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
            available.wait()
            let job = queue.withLock { queue -> (@Sendable () -> Void)? in
                guard queue.head < queue.jobs.count else { return nil }
                let job = queue.jobs[queue.head]
                queue.head += 1
                // Drop the consumed prefix once it dominates, so the array does not grow forever.
                if queue.head > 32 && queue.head * 2 > queue.jobs.count {
                    queue.jobs.removeFirst(queue.head)
                    queue.head = 0
                }
                return job
            }
            // No job after a signal only happens at shutdown (one signal per thread).
            guard let job else { return }
            job()
        }
    }
}
