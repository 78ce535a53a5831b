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
        let resolver = try Resolver()
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
        let resolver = try Resolver { host, _ in
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
        let resolver = try Resolver { host, _ in .failure(DNSError(host: host, code: EAI_NONAME)) }
        defer { resolver.shutdown() }
        let result = try await resolve(resolver, "no-such-host.invalid")
        #expect(throws: DNSError(host: "no-such-host.invalid", code: EAI_NONAME)) { try result.get() }
        if case .failure(let error) = result { #expect(error.isNameNotFound) }
    }

    @Test("lookups run on resolver threads, never the loop thread")
    func offLoop() async throws {
        let onLoop = Mutex<Bool?>(nil)
        let loopBox = Mutex<EventLoop?>(nil)
        let resolver = try Resolver { _, port in
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
        let resolver = try Resolver { host, _ in .failure(DNSError(host: host, code: EAI_FAIL)) }
        resolver.shutdown()
        resolver.shutdown()  // twice is fine
        let result = try await resolve(resolver, "example.test")
        #expect(throws: DNSError(host: "example.test", code: EAI_SYSTEM, systemErrno: ECANCELED)) { try result.get() }
    }
}
