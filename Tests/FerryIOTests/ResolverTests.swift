import FerryBase
import Dispatch
import Synchronization
import Testing

@testable import FerryIO

#if canImport(Glibc)
import Glibc
#endif

@Suite("Resolver")
struct ResolverTests {
    private func resolve(_ resolver: Resolver, _ host: String, port: UInt16 = 80) async throws -> Result<[SocketAddress], DNSError> {
        try await withLoop { loop in
            let latch = Latch<Result<[SocketAddress], DNSError>>()
            loop.execute {
                resolver.resolve(host: host, port: port, on: loop) { result in
                    #expect(loop.inEventLoop)
                    latch.fulfill(result)
                }
            }
            return try #require(await latch.wait())
        }
    }

    @Test("localhost resolves to loopback addresses with the port")
    func localhost() async throws {
        let resolver = Resolver()
        defer { resolver.shutdown() }
        let addresses = try await resolve(resolver, "localhost", port: 8080).get()
        #expect(!addresses.isEmpty)
        for address in addresses {
            #expect(address.port == 8080)
            #expect(address.ipAddress == "::1" || address.ipAddress.hasPrefix("127."))
        }
    }

    @Test("numeric hosts skip the lookup entirely", arguments: [
        ("127.0.0.1", "127.0.0.1:443"), ("::1", "[::1]:443"), ("[::1]", "[::1]:443"),
    ])
    func numericHosts(host: String, expected: String) async throws {
        let calls = Atomic<Int>(0)
        let resolver = Resolver { host, _ in
            calls.add(1, ordering: .relaxed)
            return .failure(DNSError(host: host, code: EAI_FAIL))
        }
        defer { resolver.shutdown() }
        let addresses = try await resolve(resolver, host, port: 443).get()
        #expect(addresses.map(\.description) == [expected])
        #expect(calls.load(ordering: .relaxed) == 0)
    }

    @Test("the system lookup answers numeric hosts too (AI_NUMERICSERV port)")
    func systemLookupNumeric() async throws {
        let addresses = try Resolver.systemLookup("127.0.0.1", 9).get()
        #expect(addresses.map(\.description) == ["127.0.0.1:9"])
    }

    @Test("an injected lookup failure arrives as DNSError on the loop")
    func injectedFailure() async throws {
        let resolver = Resolver { host, _ in .failure(DNSError(host: host, code: EAI_NONAME)) }
        defer { resolver.shutdown() }
        let result = try await resolve(resolver, "no-such-host.invalid")
        #expect(throws: DNSError(host: "no-such-host.invalid", code: EAI_NONAME)) { try result.get() }
        if case .failure(let error) = result { #expect(error.isNameNotFound) }
    }

    @Test("lookups run on resolver threads, never the loop thread")
    func offLoop() async throws {
        let onLoop = Locked<Bool?>(nil)
        let loopBox = Locked<EventLoop?>(nil)
        let resolver = Resolver { _, port in
            onLoop.withLock { $0 = loopBox.withLock { $0?.inEventLoop } }
            return .success([SocketAddress(ipAddress: "192.0.2.7", port: port)!])
        }
        defer { resolver.shutdown() }
        try await withLoop { loop in
            loopBox.withLock { $0 = loop }
            let latch = Latch<[SocketAddress]>()
            loop.execute {
                resolver.resolve(host: "example.test", port: 1, on: loop) { result in
                    latch.fulfill((try? result.get()) ?? [])
                }
            }
            #expect(await latch.wait()?.map(\.description) == ["192.0.2.7:1"])
            loopBox.withLock { $0 = nil }
        }
        #expect(onLoop.withLock { $0 } == false)
    }

    @Test("after shutdown, lookups fail with ECANCELED instead of hanging")
    func afterShutdown() async throws {
        let resolver = Resolver { host, _ in .failure(DNSError(host: host, code: EAI_FAIL)) }
        resolver.shutdown()
        resolver.shutdown()  // twice is fine
        let result = try await resolve(resolver, "example.test")
        #expect(throws: DNSError(host: "example.test", code: EAI_SYSTEM, systemErrno: ECANCELED)) { try result.get() }
    }

    @Test("shutdown makes no queued lookup: they fail as cancelled, and only the running one is waited for")
    func shutdownSkipsQueuedLookups() async throws {
        let gate = DispatchSemaphore(value: 0)
        let lookups = Atomic<Int>(0)
        let resolver = Resolver(threadCount: 1) { _, port in
            lookups.add(1, ordering: .relaxed)
            _ = gate.wait(timeout: .now() + .seconds(60))  // bounded, so a failed test leaves no worker parked
            return .success([SocketAddress(ipAddress: "192.0.2.7", port: port)!])
        }
        try await withLoop { loop in
            let answers = Locked<[Result<[SocketAddress], DNSError>]>([])
            try await loop.sync {
                for port in 1...5 {
                    resolver.resolve(host: "example.test", port: UInt16(port), on: loop) { result in
                        answers.withLock { $0.append(result) }
                    }
                }
            }
            for _ in 0..<1000 where lookups.load(ordering: .relaxed) == 0 { try await Task.sleep(for: .milliseconds(5)) }
            // The first lookup runs (held at the gate); four wait behind it.
            let shutDown = Latch<Bool>()
            DispatchQueue.global().async { resolver.shutdown(); shutDown.fulfill(true) }
            for _ in 0..<1000 where !resolver.isShutDown { try await Task.sleep(for: .milliseconds(5)) }
            gate.signal()
            #expect(await shutDown.wait() == true)
            #expect(lookups.load(ordering: .relaxed) == 1, "no queued lookup was made")
            for _ in 0..<1000 where answers.withLock({ $0.count }) < 5 { try await Task.sleep(for: .milliseconds(5)) }
            let results = answers.withLock { $0 }
            #expect(results.count == 5, "every caller is answered")
            #expect((try? results.first?.get())?.isEmpty == false, "the running lookup's answer")
            let cancelled = DNSError(host: "example.test", code: EAI_SYSTEM, systemErrno: ECANCELED)
            for result in results.dropFirst() {
                #expect(throws: cancelled) { try result.get() }
            }
        }
    }

    @Test("no thread starts before a name needs looking up; sequential lookups share the first")
    func threadsStartOnDemand() async throws {
        let resolver = Resolver { _, port in .success([SocketAddress(ipAddress: "192.0.2.7", port: port)!]) }
        defer { resolver.shutdown() }
        #expect(resolver.threads.started == 0)
        _ = try await resolve(resolver, "127.0.0.1").get()
        #expect(resolver.threads.started == 0, "a numeric host needs no thread")
        for _ in 0..<3 {
            _ = try await resolve(resolver, "example.test").get()
            // The answer reaches the loop just before its worker is back waiting for the next.
            for _ in 0..<1000 where resolver.threads.idle == 0 { try await Task.sleep(for: .milliseconds(5)) }
        }
        #expect(resolver.threads == (started: 1, idle: 1), "each lookup found the first worker idle")
    }

    @Test("lookups that overlap start more workers, never more than the maximum")
    func overlappingLookupsStartUpToTheMaximum() async throws {
        let gate = DispatchSemaphore(value: 0)
        let gateOpened = Atomic<Bool>(false)
        let running = Atomic<Int>(0)
        let startedBeforeOpening = Atomic<Int>(0)
        let resolver = Resolver(threadCount: 2) { _, port in
            if !gateOpened.load(ordering: .acquiring) { startedBeforeOpening.add(1, ordering: .relaxed) }
            running.add(1, ordering: .relaxed)
            _ = gate.wait(timeout: .now() + .seconds(60))  // bounded, so a failed test leaves no worker parked
            return .success([SocketAddress(ipAddress: "192.0.2.7", port: port)!])
        }
        defer {
            // Whatever failed above, no worker is left parked at the gate for shutdown() to join.
            gateOpened.store(true, ordering: .releasing)
            for _ in 1...3 { gate.signal() }
            resolver.shutdown()
        }
        try await withLoop { loop in
            let answered = Atomic<Int>(0)
            // Returns once all three are submitted: a worker is started (or not) inside resolve().
            try await loop.sync {
                for port in 1...3 {
                    resolver.resolve(host: "example.test", port: UInt16(port), on: loop) { result in
                        if case .success = result { answered.add(1, ordering: .relaxed) }
                    }
                }
            }
            // Two lookups run at once, the third waits its turn: no third thread.
            #expect(resolver.threads.started == 2)
            for _ in 0..<1000 where running.load(ordering: .relaxed) < 2 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(running.load(ordering: .relaxed) == 2)
            // Stored before any signal, so a lookup that starts once a worker is free sees it.
            gateOpened.store(true, ordering: .releasing)
            for _ in 1...3 { gate.signal() }
            for _ in 0..<1000 where answered.load(ordering: .relaxed) < 3 { try await Task.sleep(for: .milliseconds(5)) }
            #expect(answered.load(ordering: .relaxed) == 3)
            #expect(resolver.threads.started == 2)
            // The event that proves the wait, rather than a pause: the third lookup started only
            // after the gate opened, i.e. only when one of the two workers was free again.
            #expect(startedBeforeOpening.load(ordering: .relaxed) == 2, "a third lookup ran while two were blocked")
        }
    }
}
